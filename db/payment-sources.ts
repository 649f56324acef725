// A customer's or business account's stored payment sources: adding one (the app's confirmed setup),
// making one the default, and removing one — the one rule the operator's `DELETE /payments` and the app's
// `DELETE /payment-methods/{id}` share. Each keeps the owner's `paymentState` as the spec names it
// (NONE → SOURCE_ADDED with the first source, back to NONE with the last; INVOICING and the push states
// are left alone) and records USER_PAYMENT_METHOD_ADD, _CHANGED or _REMOVED. Each locks the owner's row
// first, so two changes to one owner's sources run one after the other.
import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { Customer } from './entities/Customer.js';
import { Payment } from './entities/Payment.js';
import { PaymentSource } from './entities/PaymentSource.js';
import type { PaymentSetup } from './entities/PaymentSetup.js';
import { UserGroup } from './entities/UserGroup.js';
import { recordEvent } from './events.js';
import { DomainError } from '../domain/errors.js';
import { runningPaymentStates } from '../domain/finance.js';
import { PAYMENT_METHOD_REMOVED_EVENT } from '../domain/invoice-events.js';

/** The spec's event of a payment source added (the app's confirmed setup). */
export const PAYMENT_METHOD_ADDED_EVENT = 'USER_PAYMENT_METHOD_ADD';
/** The spec's event of a change of the owner's sources other than adding or removing: the default changed. */
export const PAYMENT_METHOD_CHANGED_EVENT = 'USER_PAYMENT_METHOD_CHANGED';

/** Whose sources: a customer's own, or a business account's. */
export type SourceOwner = { customerId: number } | { userGroupId: number };

/** Who changes them, as the event records it: an operator or client (`adminSubject`), or a customer in the app. */
export interface SourceActor {
  adminSubject: string | null;
  /** The customer acting in the app (a business account's owner for the account's sources). */
  customerId: number | null;
}

const ownerWhere = (owner: SourceOwner) =>
  'customerId' in owner ? { customer: owner.customerId } : { group: owner.userGroupId };

/** The owner of a stored source. */
export function ownerOfSource(source: PaymentSource): SourceOwner {
  return source.group ? { userGroupId: source.group.id } : { customerId: source.customer!.id };
}

/** The owner's row, locked until the transaction ends (its paymentState is written here). */
async function lockedOwner(tx: EntityManager, owner: SourceOwner): Promise<Customer | UserGroup> {
  const found =
    'customerId' in owner
      ? await tx.findOne(Customer, owner.customerId, { lockMode: LockMode.PESSIMISTIC_WRITE })
      : await tx.findOne(UserGroup, owner.userGroupId, { lockMode: LockMode.PESSIMISTIC_WRITE });
  if (!found) throw new DomainError('P405', 'the payment source has no owner any more');
  return found;
}

/** The customer the event is about: the source's own, else the acting customer (an account's owner). */
const eventCustomer = (source: PaymentSource, actor: SourceActor) =>
  source.customer?.id ?? actor.customerId ?? null;

const eventPayload = (source: PaymentSource, extra: Record<string, unknown> = {}) => ({
  paymentSourceId: source.id,
  userGroupId: source.group?.id ?? null,
  businessUnitId: source.businessUnit.id,
  type: source.type,
  label: source.label,
  provider: source.provider,
  ...extra,
});

/** What a new source is. */
export interface NewPaymentSource {
  owner: SourceOwner;
  businessUnitId: number;
  /** The setup that saved it: the unique key that makes a repeated confirmation store nothing. */
  setup: PaymentSetup | null;
  type: PaymentSource['type'];
  provider: string;
  providerReference: string;
  label: string;
  expiry: string | null;
}

/**
 * Stores a source for its owner, flushed in the caller's transaction: the default when the owner has
 * none, the owner's paymentState SOURCE_ADDED when it was NONE, and USER_PAYMENT_METHOD_ADD.
 */
export async function addPaymentSource(
  tx: EntityManager,
  fields: NewPaymentSource,
  actor: SourceActor,
): Promise<PaymentSource> {
  const holder = await lockedOwner(tx, fields.owner);
  const defaults = await tx.count(PaymentSource, { ...ownerWhere(fields.owner), isDefault: true });
  const source = tx.create(PaymentSource, {
    tenant: holder.tenant,
    ...('customerId' in fields.owner ? { customer: holder as Customer } : { group: holder as UserGroup }),
    businessUnit: fields.businessUnitId,
    setup: fields.setup,
    type: fields.type,
    provider: fields.provider,
    providerReference: fields.providerReference,
    label: fields.label,
    expiry: fields.expiry,
    isDefault: defaults === 0,
  });
  if (holder.paymentState === 'NONE') holder.paymentState = 'SOURCE_ADDED';
  await tx.flush();
  recordEvent(tx, {
    type: PAYMENT_METHOD_ADDED_EVENT,
    customerId: eventCustomer(source, actor),
    adminSubject: actor.adminSubject,
    payload: eventPayload(source, { isDefault: source.isDefault, setupId: fields.setup?.id ?? null }),
  });
  await tx.flush();
  return source;
}

/**
 * Makes the source its owner's default (the others lose it) and records USER_PAYMENT_METHOD_CHANGED;
 * nothing happens, and no event, when it is the default already. P405 when it is gone.
 */
export async function makeDefaultPaymentSource(
  tx: EntityManager,
  sourceId: number,
  actor: SourceActor,
): Promise<PaymentSource> {
  const found = await tx.findOne(PaymentSource, sourceId);
  if (!found) throw new DomainError('P405', `payment source ${sourceId} not found`);
  const owner = ownerOfSource(found);
  await lockedOwner(tx, owner);
  const sources = await tx.find(PaymentSource, ownerWhere(owner), { refresh: true });
  const source = sources.find((candidate) => candidate.id === sourceId);
  if (!source) throw new DomainError('P405', `payment source ${sourceId} not found`);
  if (source.isDefault && sources.every((other) => other === source || !other.isDefault)) return source;
  const previous = sources.find((other) => other !== source && other.isDefault);
  for (const other of sources) other.isDefault = other === source;
  recordEvent(tx, {
    type: PAYMENT_METHOD_CHANGED_EVENT,
    customerId: eventCustomer(source, actor),
    adminSubject: actor.adminSubject,
    payload: eventPayload(source, { change: 'DEFAULT', previousDefaultId: previous?.id ?? null }),
  });
  await tx.flush();
  return source;
}

/**
 * Removes a source (the operator's `DELETE /payments` and the app's removal): P405 when it is gone, P122
 * while a running payment charges it. Finished payments keep their history without it; when the default
 * goes, the owner's newest other source at the same business unit becomes the default. With the owner's
 * last source its paymentState goes from SOURCE_ADDED back to NONE. Records USER_PAYMENT_METHOD_REMOVED.
 * The method is detached at its gateway (`detach`) inside the transaction: if that fails, nothing is
 * removed; if the commit fails after it, the source stays and its next charge is refused by the gateway.
 */
export async function removePaymentSource(
  tx: EntityManager,
  sourceId: number,
  actor: SourceActor,
  /** Detaches the method at its gateway once the removal is allowed, before the row goes; a throw keeps it. */
  detach?: (source: PaymentSource) => Promise<void>,
): Promise<void> {
  const found = await tx.findOne(PaymentSource, sourceId);
  if (!found) throw new DomainError('P405', `payment source ${sourceId} not found`);
  const owner = ownerOfSource(found);
  const holder = await lockedOwner(tx, owner);
  const source = await tx.findOne(PaymentSource, sourceId, {
    lockMode: LockMode.PESSIMISTIC_WRITE,
    refresh: true,
  });
  if (!source) throw new DomainError('P405', `payment source ${sourceId} not found`);
  const charging = await tx.count(Payment, {
    paymentSource: source.id,
    state: { $in: [...runningPaymentStates] },
  });
  if (charging) throw new DomainError('P122', 'a running payment charges this source');
  const others = await tx.find(
    PaymentSource,
    { ...ownerWhere(owner), id: { $ne: source.id } },
    {
      orderBy: { id: 'desc' },
    },
  );
  if (source.isDefault) {
    const next = others.find((other) => other.businessUnit.id === source.businessUnit.id);
    if (next) next.isDefault = true;
  }
  if (others.length === 0 && holder.paymentState === 'SOURCE_ADDED') holder.paymentState = 'NONE';
  await detach?.(source);
  recordEvent(tx, {
    type: PAYMENT_METHOD_REMOVED_EVENT,
    customerId: eventCustomer(source, actor),
    adminSubject: actor.adminSubject,
    payload: eventPayload(source),
  });
  tx.remove(source);
  await tx.flush();
}
