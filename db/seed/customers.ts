// Demo customers: different verification states, a demo customer who can sign in with a password,
// tenant-wide terms, and a business account with members and cost centers. Every demo customer and the
// business account can pay (the shipped start requirements ask for a payment method: P104).
import type { EntityManager } from '@mikro-orm/postgresql';
import { CostCenter } from '../entities/CostCenter.js';
import { GroupMembership } from '../entities/GroupMembership.js';
import { Setting } from '../entities/Setting.js';
import { TermsAcceptance } from '../entities/TermsAcceptance.js';
import { TermsAndConditions } from '../entities/TermsAndConditions.js';
import { UserGroup } from '../entities/UserGroup.js';
import { Verification } from '../entities/Verification.js';
import { VerificationMedia } from '../entities/VerificationMedia.js';
import { PaymentSource } from '../entities/PaymentSource.js';
import { CreditRating } from '../entities/CreditRating.js';
import { type Branch } from '../entities/Branch.js';
import { type BusinessUnit } from '../entities/BusinessUnit.js';
import { Customer } from '../entities/Customer.js';
import { type Tenant } from '../entities/Tenant.js';
import { GROUP_SETTING_KEY, defaultGroupSettings } from '../../domain/customer.js';
import { hashPassword } from '../../platform/passwords.js';
import { randomUUID } from 'node:crypto';
import { fromBoard, type DomainSeed, type SeedBoard } from './board.js';

/** A 1×1 PNG: the demo licence picture waiting for review. */
const demoPicture = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
  'base64',
);

/** The demo customer of the README: signs in at `POST /v1/demo/auth/customer/sign-in`. */
export const demoCustomer = { email: 'anna.schmidt@example.com', password: 'anna-demo-2026' };
/** The join code of the demo business account. */
export const demoGroupCode = 'ACME-LOGISTICS';

/**
 * Completes the seeded customers (`customers` in seed order: Anna, Ben, Clara, Deniz) inside the seed's
 * transaction and adds terms, the group setting and a business account; flushed by the caller.
 */
export async function seedCustomers(
  tx: EntityManager,
  {
    tenant,
    customers,
    cityBranch,
    businessUnit,
  }: { tenant: Tenant; customers: Customer[]; cityBranch: Branch; businessUnit: BusinessUnit },
): Promise<void> {
  const [anna, ben, clara, deniz] = customers as [Customer, Customer, Customer, Customer];
  Object.assign(anna, {
    passwordHash: await hashPassword(demoCustomer.password),
    phoneNumber: '+4915100000001',
    emailIsVerified: true,
    phoneIsVerified: true,
    birthDate: '1990-04-12',
    street: 'Torstraße',
    houseNumber: '1',
    postcode: '10119',
    city: 'Berlin',
    country: 'DE',
    signupSettled: true,
    licenseVerificationState: 'VERIFIED',
    idVerificationState: 'VERIFIED',
    manualVerificationState: 'VERIFIED',
    paymentState: 'SOURCE_ADDED',
  } satisfies Partial<Customer>);
  Object.assign(ben, {
    emailIsVerified: true,
    birthDate: '1985-11-02',
    signupSettled: true,
    licenseVerificationState: 'PROCESSING',
    // Pays by invoice: no stored payment source (so a booking's pickup still needs one: B311).
    paymentState: 'INVOICING',
  } satisfies Partial<Customer>);
  Object.assign(clara, {
    birthDate: '2001-07-30',
    signupSettled: true,
    licenseVerificationState: 'REJECTED',
    manualVerificationState: 'RETRY',
    paymentState: 'SOURCE_ADDED',
  } satisfies Partial<Customer>);
  Object.assign(deniz, { birthDate: '1998-01-20', paymentState: 'SOURCE_ADDED' } satisfies Partial<Customer>);

  tx.create(PaymentSource, {
    tenant,
    customer: anna,
    businessUnit,
    type: 'CARD',
    provider: 'sandbox',
    providerReference: 'tok_sandbox_visa',
    label: 'Visa •••• 4242',
    expiry: '2029-12',
    isDefault: true,
  });
  // Clara pays by card, Deniz by a card that keeps declining (neither is rated). The references are the
  // sandbox gateway's test tokens (docs/finance.md), which choose how a charge ends.
  const otherSources = [
    [clara, 'CARD', 'tok_sandbox_mastercard', 'Mastercard •••• 5454', '2028-06'],
    [deniz, 'CARD', 'tok_sandbox_insufficient_funds', 'Visa •••• 9995', '2027-03'],
  ] as const;
  for (const [customer, type, providerReference, label, expiry] of otherSources)
    tx.create(PaymentSource, {
      tenant,
      customer,
      businessUnit,
      type,
      provider: 'sandbox',
      providerReference,
      label,
      expiry,
      isDefault: true,
    });
  tx.create(CreditRating, {
    tenant,
    customer: anna,
    provider: 'demo-credit',
    status: 'GOOD',
    score: 712,
    checkedAt: new Date('2026-01-15T10:00:00Z'),
  });

  // Ben's licence waits in the operators' review queue; Clara's manual check was sent back (RETRY).
  const bensLicence = tx.create(Verification, {
    tenant,
    attemptUuid: randomUUID(),
    customer: ben,
    kind: 'LICENSE',
    state: 'PROCESSING',
    provider: 'operator',
  });
  tx.create(VerificationMedia, {
    tenant,
    fileUuid: randomUUID(),
    verification: bensLicence,
    label: 'FRONT',
    contentType: 'image/png',
    data: demoPicture,
    sizeBytes: demoPicture.length,
  });
  tx.create(Verification, {
    tenant,
    attemptUuid: randomUUID(),
    customer: clara,
    kind: 'MANUAL',
    state: 'RETRY',
    provider: 'operator',
    reason: 'The picture is blurred; please send a sharper one.',
    decidedBy: 'seed',
    decidedAt: new Date(),
  });

  const terms = tx.create(TermsAndConditions, {
    tenant,
    branch: null,
    version: 1,
    name: 'Terms of use',
    url: 'https://fleetflow.example/terms/v1',
    content: null,
  });
  for (const customer of [anna, ben, clara])
    tx.create(TermsAcceptance, { tenant, customer, terms, acceptedBy: `customer:seed` });

  tx.create(Setting, {
    tenant,
    key: GROUP_SETTING_KEY,
    name: 'Business account defaults',
    area: 'CORE',
    valueType: 'JSON',
    branchIds: [0],
    value: { ...defaultGroupSettings },
  });
  const group = tx.create(UserGroup, {
    tenant,
    code: demoGroupCode,
    name: 'Acme Logistics GmbH',
    branch: cityBranch,
    owner: anna,
    billingCycle: defaultGroupSettings.billingCycle,
    maxMembers: defaultGroupSettings.maxMembers,
    // The account pays its members' business rentals by invoice (its monthly billing cycle).
    paymentState: 'INVOICING',
    street: 'Friedrichstraße',
    houseNumber: '100',
    postcode: '10117',
    city: 'Berlin',
    country: 'DE',
  });
  const sales = tx.create(CostCenter, { tenant, group, code: 'SALES', name: 'Sales' });
  tx.create(CostCenter, { tenant, group, code: 'OPS', name: 'Operations' });
  tx.create(GroupMembership, { tenant, group, customer: anna, state: 'ACTIVE', canManage: true });
  tx.create(GroupMembership, { tenant, group, customer: ben, state: 'ACTIVE' });
  await tx.flush();
  group.defaultCostCenterId = sales.id;
}

declare module './board.js' {
  interface SeedBoard {
    /** Anna, Ben, Clara and Deniz, in that order. */
    customers?: Customer[];
  }
}

/** Four customers (Anna is the demo customer), terms, verification, a card, a business account. */
export const customerSeed: DomainSeed = {
  async rows(tx: EntityManager, board: SeedBoard) {
    const tenant = fromBoard(board, 'tenant');
    const businessUnit = fromBoard(board, 'businessUnit');
    const customers = [
      ['anna.schmidt@example.com', 'Anna', 'Schmidt'],
      ['ben.mueller@example.com', 'Ben', 'Müller'],
      ['clara.weber@example.com', 'Clara', 'Weber'],
      ['deniz.yilmaz@example.com', 'Deniz', 'Yılmaz'],
    ];
    const customerRows = customers.map(([email, firstName, lastName]) =>
      tx.create(Customer, {
        tenant,
        email: email!,
        firstName: firstName!,
        lastName: lastName!,
        homeBusinessUnit: businessUnit,
      }),
    );
    board.customers = customerRows;
    await seedCustomers(tx, {
      tenant,
      customers: customerRows,
      cityBranch: fromBoard(board, 'city'),
      businessUnit,
    });
  },
};
