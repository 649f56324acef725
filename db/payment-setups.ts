// Saving a payment method through a gateway, the way a real gateway does it: the app's customer starts a
// setup (a row here, then the gateway's setup with its client secret for the client), the client confirms
// it with the gateway, and the gateway's verified webhook completes it here — a SETUP_SUCCEEDED stores the
// payment source (db/payment-sources.ts), a SETUP_FAILED records the refusal. The source's unique `setup`
// and the setup row's lock make a redelivered or concurrent confirmation store one source.
import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { BusinessUnit } from './entities/BusinessUnit.js';
import type { Customer } from './entities/Customer.js';
import { PaymentSetup } from './entities/PaymentSetup.js';
import type { UserGroup } from './entities/UserGroup.js';
import { inTenantTransaction, type MikroORM } from './orm.js';
import { addPaymentSource } from './payment-sources.js';
import { DomainError } from '../domain/errors.js';
import {
  GatewayUnavailableError,
  type PaymentGateway,
  type SavedPaymentMethod,
  type SetupNotice,
} from '../platform/payment-gateway/port.js';

/** A started setup and the secret its client confirms it with (never stored here). */
export interface StartedSetup {
  setup: PaymentSetup;
  clientSecret: string;
}

/** Who a setup saves a method for and where. */
export interface SetupFor {
  customer: Customer;
  /** A business account the customer owns; null for the customer's own sources. */
  group: UserGroup | null;
  businessUnitId: number;
}

/** The gateway's customer an earlier setup of the same owner at this gateway made, if any. */
async function knownGatewayCustomer(
  em: EntityManager,
  gateway: string,
  owner: SetupFor,
): Promise<string | null> {
  const earlier = await em.findOne(
    PaymentSetup,
    {
      gateway,
      gatewayCustomer: { $ne: null },
      ...(owner.group ? { group: owner.group.id } : { customer: owner.customer.id, group: null }),
    },
    { orderBy: { id: 'desc' } },
  );
  return earlier?.gatewayCustomer ?? null;
}

/**
 * Starts a setup with the gateway: the row first (its id is in the gateway's metadata and key), then the
 * gateway's setup. PGS100 when the gateway does not answer, PGS103 when it refuses; the row then says
 * FAILED and a new setup may be started.
 */
export async function startPaymentSetup(
  orm: MikroORM,
  tenant: string,
  gateway: PaymentGateway,
  owner: SetupFor,
): Promise<StartedSetup> {
  const { setupId, gatewayCustomer, currency } = await inTenantTransaction(orm, tenant, async (tx) => {
    const unit = await tx.findOneOrFail(BusinessUnit, owner.businessUnitId);
    const setup = tx.create(PaymentSetup, {
      tenant,
      customer: owner.customer.id,
      group: owner.group?.id ?? null,
      businessUnit: unit,
      gateway: gateway.name,
    });
    await tx.flush();
    return {
      setupId: setup.id,
      gatewayCustomer: await knownGatewayCustomer(tx, gateway.name, owner),
      currency: unit.currency,
    };
  });
  const description = owner.group
    ? `Business account ${owner.group.id} (${owner.group.name})`
    : `Customer ${owner.customer.id}`;
  let started;
  try {
    started = await gateway.createSetup({
      idempotencyKey: `payment-setup:${tenant}:${setupId}`,
      gatewayCustomer,
      description: `${description}, tenant ${tenant}`,
      currency,
      metadata: { tenant, setupId: String(setupId) },
    });
  } catch (fault) {
    if (!(fault instanceof GatewayUnavailableError)) throw fault;
    await endSetup(orm, tenant, setupId, 'PGS100', { code: 'unavailable', message: fault.message });
    throw new DomainError('PGS100', `the ${gateway.name} gateway did not answer: ${fault.message}`);
  }
  if (started.status === 'REFUSED') {
    await endSetup(orm, tenant, setupId, 'PGS103', started);
    throw new DomainError('PGS103', `the ${gateway.name} gateway refused the setup: ${started.message}`);
  }
  const setup = await inTenantTransaction(orm, tenant, async (tx) => {
    const row = await tx.findOneOrFail(PaymentSetup, setupId);
    row.reference = started.reference;
    row.gatewayCustomer = started.gatewayCustomer;
    await tx.flush();
    return row;
  });
  return { setup, clientSecret: started.clientSecret };
}

async function endSetup(
  orm: MikroORM,
  tenant: string,
  setupId: number,
  errorCode: 'PGS100' | 'PGS103',
  failure: { code: string; message: string },
) {
  await inTenantTransaction(orm, tenant, async (tx) => {
    const row = await tx.findOneOrFail(PaymentSetup, setupId);
    Object.assign(row, {
      state: 'FAILED',
      errorCode,
      failureCode: failure.code.slice(0, 100),
      failureMessage: failure.message.slice(0, 500),
      completedAt: new Date(),
    });
    await tx.flush();
  });
}

/** The setup of a gateway's reference in the caller's tenant, if it started one. */
export function setupOfReference(
  em: EntityManager,
  gateway: string,
  reference: string,
): Promise<PaymentSetup | null> {
  return em.findOne(PaymentSetup, { gateway, reference });
}

/** What the gateway said: the method it saved, or why it refused. */
export type SetupCompletion =
  { status: 'SUCCEEDED'; method: SavedPaymentMethod } | { status: 'FAILED'; notice: SetupNotice };

/**
 * Completes a PENDING setup in the caller's transaction (its row locked): a saved method becomes the
 * owner's payment source (addPaymentSource: default, paymentState, USER_PAYMENT_METHOD_ADD), a refusal
 * marks it FAILED with PGS103. False, writing nothing, when the tenant has no such setup or it is
 * completed already (a second confirmation).
 */
export async function completePaymentSetup(
  tx: EntityManager,
  gateway: string,
  reference: string,
  completion: SetupCompletion,
): Promise<boolean> {
  const found = await setupOfReference(tx, gateway, reference);
  if (!found) return false;
  const setup = await tx.findOneOrFail(PaymentSetup, found.id, {
    lockMode: LockMode.PESSIMISTIC_WRITE,
    refresh: true,
  });
  if (setup.state !== 'PENDING') return false;
  setup.completedAt = new Date();
  if (completion.status === 'FAILED') {
    setup.state = 'FAILED';
    setup.errorCode = 'PGS103';
    setup.failureCode = (completion.notice.failureCode ?? 'setup_failed').slice(0, 100);
    setup.failureMessage = (
      completion.notice.failureMessage ?? 'The gateway refused the payment method.'
    ).slice(0, 500);
    await tx.flush();
    return true;
  }
  setup.state = 'SUCCEEDED';
  const { method } = completion;
  await addPaymentSource(
    tx,
    {
      owner: setup.group ? { userGroupId: setup.group.id } : { customerId: setup.customer.id },
      businessUnitId: setup.businessUnit.id,
      setup,
      type: method.type,
      provider: gateway,
      providerReference: method.sourceToken.slice(0, 200),
      label: method.label.slice(0, 100),
      expiry: method.expiry,
    },
    { adminSubject: null, customerId: setup.customer.id },
  );
  return true;
}
