// The customer representation, which both interfaces use: calendar dates and postal addresses of customers
// (the app's account and sign-up, the operator's search), the terms acceptance state, the operator's
// summary of a customer shown in business-account memberships on both interfaces, and the text filter of
// member and customer searches.
import { Type, type Static } from '@sinclair/typebox';
import { Customer } from '../../db/entities/Customer.js';
import { termsAcceptanceStates } from '../../domain/customer.js';
import { component, DateTime, Id, Nullable, StringEnum } from '../kernel/schemas.js';

/** A calendar date between 1900 and 2099 (PostgreSQL has no year 0; nobody alive was born before 1900). */
export const CalendarDate = (options: Record<string, unknown> = {}) =>
  Type.String({
    format: 'date',
    pattern: '^(19|20)[0-9]{2}-[0-9]{2}-[0-9]{2}$',
    maxLength: 10,
    ...options,
  });

/** The postal address fields of a customer or business account, null where unknown. */
export function addressOf(holder: {
  street?: string | null;
  houseNumber?: string | null;
  addressAddition?: string | null;
  postcode?: string | null;
  city?: string | null;
  country?: string | null;
}) {
  return {
    street: holder.street ?? null,
    houseNumber: holder.houseNumber ?? null,
    addressAddition: holder.addressAddition ?? null,
    postcode: holder.postcode ?? null,
    city: holder.city ?? null,
    country: holder.country ?? null,
  };
}

/**
 * The filter of a `searchText`: the start of first name, last name, e-mail or phone number (LIKE
 * wildcards in the text are taken literally).
 */
export function customerTextFilter(searchText: string) {
  const prefix = `${searchText.trim().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  return {
    $or: [
      { firstName: { $ilike: prefix } },
      { lastName: { $ilike: prefix } },
      { email: { $ilike: prefix } },
      { phoneNumber: { $like: prefix } },
    ],
  };
}

export const TermsAcceptanceStateSchema = component(
  'TermsAndConditionsAcceptanceState',
  StringEnum(termsAcceptanceStates),
);

export const CustomerSummary = component(
  'CustomerSummary',
  Type.Object(
    {
      id: Id(),
      email: Type.String(),
      firstName: Type.String(),
      lastName: Type.String(),
      phoneNumber: Nullable(Type.String()),
      birthDate: Nullable(Type.String({ format: 'date' })),
      isBlocked: Type.Boolean(),
      signupSettled: Type.Boolean(),
      createdAt: DateTime(),
    },
    { additionalProperties: false },
  ),
);

/** The operator's summary of a customer. */
export function toCustomerSummary(customer: Customer): Static<typeof CustomerSummary> {
  return {
    id: customer.id,
    email: customer.email,
    firstName: customer.firstName,
    lastName: customer.lastName,
    phoneNumber: customer.phoneNumber ?? null,
    birthDate: customer.birthDate ?? null,
    isBlocked: customer.isBlocked,
    signupSettled: customer.signupSettled,
    createdAt: customer.createdAt.toISOString(),
  };
}
