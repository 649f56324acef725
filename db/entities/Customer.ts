import type { Opt } from '@mikro-orm/core';
import { Entity, Index, ManyToOne, PrimaryKey, Property, Unique } from '@mikro-orm/decorators/es';
import { TenantScoped } from './TenantScoped.js';
import { BusinessUnit } from './BusinessUnit.js';
import type { VerificationState } from '../../domain/customer.js';

/** An end user who rents vehicles (the spec's "guser"); also the identity behind customer tokens. */
@Entity({ tableName: 'customer' })
@Unique({ properties: ['tenant', 'email'] })
@Unique({ properties: ['tenant', 'phoneNumber'] })
@Index({ properties: ['tenant', 'birthDate'] })
// Trigram indexes serve the operators' `searchText` (ILIKE on name, e-mail and phone prefixes).
@Index({
  name: 'customer_first_name_trgm',
  properties: ['firstName'],
  type: 'gin',
  options: { opclass: 'gin_trgm_ops' },
})
@Index({
  name: 'customer_last_name_trgm',
  properties: ['lastName'],
  type: 'gin',
  options: { opclass: 'gin_trgm_ops' },
})
@Index({
  name: 'customer_email_trgm',
  properties: ['email'],
  type: 'gin',
  options: { opclass: 'gin_trgm_ops' },
})
@Index({
  name: 'customer_phone_number_trgm',
  properties: ['phoneNumber'],
  type: 'gin',
  options: { opclass: 'gin_trgm_ops' },
})
export class Customer extends TenantScoped {
  @PrimaryKey({ type: 'integer' })
  id!: number;

  /** Stored lower-case, so sign-in and the unique index ignore case. */
  @Property({ type: 'string', length: 320 })
  email!: string;

  @Property({ type: 'string', length: 100 })
  firstName!: string;

  @Property({ type: 'string', length: 100 })
  lastName!: string;

  /** E.164 (`+4915112345678`); unique per tenant, the identity of phone sign-in. */
  @Property({ type: 'string', length: 32, nullable: true })
  phoneNumber?: string | null;

  @Property({ type: 'boolean' })
  isBlocked: Opt<boolean> = false;

  @ManyToOne({ entity: () => BusinessUnit, nullable: true, ref: false })
  homeBusinessUnit?: BusinessUnit | null;

  @Property({ type: 'Date', onCreate: () => new Date() })
  createdAt: Opt<Date> = new Date();

  /** `scrypt$N$r$p$salt$hash` (platform/passwords.ts); null when the customer signs in by codes only. */
  @Property({ type: 'string', length: 300, nullable: true, hidden: true, lazy: true })
  passwordHash?: string | null;

  @Property({ type: 'boolean' })
  emailIsVerified: Opt<boolean> = false;

  @Property({ type: 'boolean' })
  phoneIsVerified: Opt<boolean> = false;

  /** `YYYY-MM-DD`. */
  @Property({ type: 'date', nullable: true })
  birthDate?: string | null;

  @Property({ type: 'string', length: 16, nullable: true })
  gender?: string | null;

  @Property({ type: 'string', length: 200, nullable: true })
  street?: string | null;

  @Property({ type: 'string', length: 32, nullable: true })
  houseNumber?: string | null;

  @Property({ type: 'string', length: 200, nullable: true })
  addressAddition?: string | null;

  @Property({ type: 'string', length: 32, nullable: true })
  postcode?: string | null;

  @Property({ type: 'string', length: 100, nullable: true })
  city?: string | null;

  /** ISO 3166-1 alpha-2. */
  @Property({ type: 'string', length: 2, nullable: true })
  country?: string | null;

  /** Whether the sign-up is complete (profile data and sign-up fee, when the tenant charges one). */
  @Property({ type: 'boolean' })
  signupSettled: Opt<boolean> = false;

  @Property({ type: 'boolean' })
  skipPreAuth: Opt<boolean> = false;

  /** Driving licence categories (`B`, `AM`, …) the licence verification found; null: not known yet. */
  @Property({ type: 'json', nullable: true })
  drivingLicenseCategories?: string[] | null;

  @Property({ type: 'string', length: 16 })
  paymentState: Opt<'NONE' | 'PUSH_INITIATED' | 'PUSH_COMPLETED' | 'SOURCE_ADDED' | 'INVOICING'> = 'NONE';

  @Property({ type: 'string', length: 32 })
  licenseVerificationState: Opt<VerificationState> = 'UNVERIFIED';

  @Property({ type: 'string', length: 32 })
  idVerificationState: Opt<VerificationState> = 'UNVERIFIED';

  @Property({ type: 'string', length: 32 })
  manualVerificationState: Opt<VerificationState> = 'UNVERIFIED';

  @Property({ type: 'string', length: 32 })
  customExternalVerificationState: Opt<VerificationState> = 'UNVERIFIED';

  @Property({ type: 'string', length: 200, nullable: true })
  externalReference?: string | null;

  @Property({ type: 'json', defaultRaw: `'[]'` })
  tags: Opt<string[]> = [];
}
