// The issues domain's queries and writes: the records an issue links (checked, and completed from the
// rental or booking it names), and what a deposit has left for the issue invoices charged against it.
import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { Decimal } from 'decimal.js';
import { Booking } from './entities/Booking.js';
import { CostCenter } from './entities/CostCenter.js';
import { Customer } from './entities/Customer.js';
import { Damage } from './entities/Damage.js';
import { Deposit } from './entities/Deposit.js';
import { Invoice } from './entities/Invoice.js';
import { IssueInvoice } from './entities/IssueInvoice.js';
import { Rental } from './entities/Rental.js';
import { UserGroup } from './entities/UserGroup.js';
import { Vehicle } from './entities/Vehicle.js';
import { branchWithDescendants } from './branches.js';
import { DomainError } from '../domain/errors.js';
import { formatAmount } from '../domain/money.js';

/** The records an issue links, by id (null: none). */
export interface IssueLinks {
  bookingId: number | null;
  rentalId: number | null;
  vehicleId: number | null;
  customerId: number | null;
  userGroupId: number | null;
  costCenterId: number | null;
  depositId: number | null;
}

export const issueLinkNames = [
  'bookingId',
  'rentalId',
  'vehicleId',
  'customerId',
  'userGroupId',
  'costCenterId',
  'depositId',
] as const satisfies readonly (keyof IssueLinks)[];

const refuse = (why: string): never => {
  throw new DomainError('F101', why);
};

/**
 * The branch of a new issue: the one given, else its rental's, booking's or vehicle's (F201 when none of
 * them is named; F101 when a named one does not exist).
 */
export async function branchOfNewIssue(
  em: EntityManager,
  given: {
    branchId?: number;
    rentalId?: number | null;
    bookingId?: number | null;
    vehicleId?: number | null;
  },
): Promise<number> {
  if (given.branchId !== undefined) return given.branchId;
  if (given.rentalId != null)
    return (
      (await em.findOne(Rental, given.rentalId))?.branch.id ?? refuse(`rental ${given.rentalId} not found`)
    );
  if (given.bookingId != null)
    return (
      (await em.findOne(Booking, given.bookingId))?.branch.id ??
      refuse(`booking ${given.bookingId} not found`)
    );
  if (given.vehicleId != null)
    return (
      (await em.findOne(Vehicle, given.vehicleId))?.branch.id ??
      refuse(`vehicle ${given.vehicleId} not found`)
    );
  throw new DomainError('F201', 'an issue needs a branchId, rentalId, bookingId or vehicleId');
}

/**
 * Checks an issue's links after a change (F101): every id exists in the tenant; a vehicle, rental or
 * booking that is `changed` lies in the issue's branch or below it; the vehicle is the rental's; the cost
 * center is the business account's; the deposit is the rental's. With `derive` (creation) the links not
 * given are completed from the rental (vehicle, customer, business account, cost center, deposit), the
 * booking (customer, vehicle, business account, cost center), the deposit (rental) and the cost center
 * (business account). Returns the complete links.
 */
export async function resolveIssueLinks(
  em: EntityManager,
  tenant: string,
  branchId: number,
  links: IssueLinks,
  changed: ReadonlySet<keyof IssueLinks>,
  derive: boolean,
): Promise<IssueLinks> {
  const result = { ...links };
  const fill = (key: keyof IssueLinks, value: number | null | undefined) => {
    if (derive && result[key] == null && value != null) result[key] = value;
  };
  const tree = new Set(await branchWithDescendants(em, tenant, branchId));
  const inTree = (what: string, id: number, branch: number) => {
    if (!tree.has(branch)) refuse(`${what} ${id} is not in branch ${branchId} or below it`);
  };
  const deposit = result.depositId != null ? await em.findOne(Deposit, result.depositId) : null;
  if (result.depositId != null && !deposit) refuse(`deposit ${result.depositId} not found`);
  fill('rentalId', deposit?.rental.id);
  if (result.rentalId != null) {
    const rental = await em.findOne(Rental, result.rentalId);
    if (!rental) return refuse(`rental ${result.rentalId} not found`);
    if (changed.has('rentalId')) inTree('rental', rental.id, rental.branch.id);
    fill('vehicleId', rental.vehicle.id);
    fill('customerId', rental.customer.id);
    fill('userGroupId', rental.userGroup?.id);
    fill('costCenterId', rental.costCenter?.id);
    fill('depositId', rental.deposit?.id);
    if (result.vehicleId != null && result.vehicleId !== rental.vehicle.id)
      refuse(`rental ${rental.id} is not a rental of vehicle ${result.vehicleId}`);
  }
  if (deposit && deposit.rental.id !== result.rentalId)
    refuse(
      `deposit ${deposit.id} is the deposit of rental ${deposit.rental.id}, not of rental ${result.rentalId}`,
    );
  if (result.bookingId != null) {
    const booking = await em.findOne(Booking, result.bookingId);
    if (!booking) return refuse(`booking ${result.bookingId} not found`);
    if (changed.has('bookingId')) inTree('booking', booking.id, booking.branch.id);
    fill('customerId', booking.customer.id);
    fill('vehicleId', booking.vehicle?.id);
    fill('userGroupId', booking.userGroup?.id);
    fill('costCenterId', booking.costCenter?.id);
  }
  if (result.vehicleId != null) {
    const vehicle = await em.findOne(Vehicle, result.vehicleId);
    if (!vehicle) return refuse(`vehicle ${result.vehicleId} not found`);
    if (changed.has('vehicleId')) inTree('vehicle', vehicle.id, vehicle.branch.id);
  }
  if (result.customerId != null && !(await em.count(Customer, result.customerId)))
    refuse(`customer ${result.customerId} not found`);
  if (result.costCenterId != null) {
    const costCenter = await em.findOne(CostCenter, result.costCenterId);
    if (!costCenter) return refuse(`cost center ${result.costCenterId} not found`);
    fill('userGroupId', costCenter.group.id);
    if (result.userGroupId !== costCenter.group.id)
      refuse(`cost center ${costCenter.id} is not a cost center of business account ${result.userGroupId}`);
  }
  if (result.userGroupId != null && !(await em.count(UserGroup, result.userGroupId)))
    refuse(`business account ${result.userGroupId} not found`);
  return result;
}

/** A damage an issue may link: in the tenant and in the issue's branch or below (F101), linked to no other issue (F102). */
export async function linkableDamage(
  em: EntityManager,
  tenant: string,
  issue: { id: number; branchId: number },
  damageId: number,
): Promise<Damage> {
  const damage = await em.findOne(Damage, damageId, { lockMode: LockMode.PESSIMISTIC_WRITE });
  if (!damage) return refuse(`damage ${damageId} not found`);
  if (!(await branchWithDescendants(em, tenant, issue.branchId)).includes(damage.branchId))
    refuse(`damage ${damageId} is not in branch ${issue.branchId} or below it`);
  if (damage.issueId != null && damage.issueId !== issue.id)
    throw new DomainError('F102', `damage ${damageId} is linked to issue ${damage.issueId}`);
  return damage;
}

/** What a deposit has left for issue invoices: its amount less what they took (0 once released). */
export async function depositLeft(em: EntityManager, tenant: string, deposit: Deposit): Promise<Decimal> {
  if (deposit.state !== 'ACTIVE') return new Decimal(0);
  const [row] = await em.execute<[{ used: string | null }]>(
    `select sum(deposit_amount) as used from issue_invoice where tenant_id = ? and deposit_id = ?`,
    [tenant, deposit.id],
  );
  return new Decimal(deposit.amount).minus(row?.used ?? '0');
}

/**
 * Books an OPEN issue invoice's gross against the issue's deposit, in the caller's transaction, under the
 * deposit's row lock (so two invoices never take the same money): F204 when the issue links no deposit, it
 * was released, it is in another currency or what it has left does not cover the gross. Nothing happens
 * when the invoice is no longer OPEN (the bill refuses it) or was booked already.
 */
export async function bookAgainstDeposit(
  em: EntityManager,
  tenant: string,
  issueInvoiceId: number,
  depositId: number | null,
): Promise<void> {
  const link = await em.findOneOrFail(IssueInvoice, issueInvoiceId, { lockMode: LockMode.PESSIMISTIC_WRITE });
  const invoice = await em.findOneOrFail(Invoice, link.invoice.id, { lockMode: LockMode.PESSIMISTIC_WRITE });
  if (invoice.state !== 'OPEN' || link.depositId != null) return;
  if (depositId == null) throw new DomainError('F204', 'the issue links no deposit');
  const deposit = await em.findOne(Deposit, depositId, { lockMode: LockMode.PESSIMISTIC_WRITE });
  if (!deposit) throw new DomainError('F204', `deposit ${depositId} is gone`);
  if (deposit.state !== 'ACTIVE') throw new DomainError('F204', `deposit ${deposit.id} was released`);
  if (deposit.currency !== invoice.currency)
    throw new DomainError(
      'F204',
      `deposit ${deposit.id} is in ${deposit.currency}, the invoice in ${invoice.currency}`,
    );
  const left = await depositLeft(em, tenant, deposit);
  if (left.lt(invoice.totalGross))
    throw new DomainError(
      'F204',
      `deposit ${deposit.id} has ${formatAmount(left.toString(), deposit.currency)} ${deposit.currency} left, the invoice is ${formatAmount(invoice.totalGross, invoice.currency)}`,
    );
  link.depositId = deposit.id;
  link.depositAmount = invoice.totalGross;
  await em.flush();
}

/** Gives a booking back when the bill it was made for was refused and the invoice is still OPEN. */
export async function releaseDepositBooking(em: EntityManager, issueInvoiceId: number): Promise<void> {
  const link = await em.findOneOrFail(IssueInvoice, issueInvoiceId, { lockMode: LockMode.PESSIMISTIC_WRITE });
  const invoice = await em.findOneOrFail(Invoice, link.invoice.id, { lockMode: LockMode.PESSIMISTIC_WRITE });
  if (invoice.state !== 'OPEN') return;
  link.depositId = null;
  link.depositAmount = null;
  await em.flush();
}
