// Start and end requirements against the database: loads the configuration (setting per branch, profile
// per vehicle category) and the facts, and evaluates them with the pure rules of
// domain/rental-requirements.ts. The rental workflow's activities call these; so do the explaining
// endpoints (`/rental-requirements/start`, the app's `/rentals/requirements`).
import type { EntityManager } from '@mikro-orm/postgresql';
import { Branch } from './entities/Branch.js';
import { CompatibleBranch } from './entities/CompatibleBranch.js';
import { GroupMembership } from './entities/GroupMembership.js';
import { PaymentSource } from './entities/PaymentSource.js';
import { PhysicalStationSlot } from './entities/PhysicalStationSlot.js';
import { RentalAuthority } from './entities/RentalAuthority.js';
import { Station } from './entities/Station.js';
import { UserGroup } from './entities/UserGroup.js';
import { Vehicle } from './entities/Vehicle.js';
import { type Rental } from './entities/Rental.js';
import { branchAncestry } from './branches.js';
import { categoryConfiguration, categoryReadiness } from './categories.js';
import { effectiveSetting } from './settings.js';
import { termsStateOf } from './identity.js';
import { loadBranchGeofence } from './areas.js';
import { readCacheOf } from './read-cache.js';
import { dunningBlockOf, dunningMessage } from './dunning.js';
import { preparedRows } from './prepared.js';
import { DomainError } from '../domain/errors.js';
import type { VerificationState } from '../domain/customer.js';
import type { LatLng, PreparedAreas, VehicleSnapshot } from '../domain/geofence.js';
import {
  assertRequirementsPassed,
  endAreaVerdict,
  evaluateEndRequirements,
  evaluateStartRequirements,
  requirementsFor,
  startRequirementCodes,
  unpaidInvoicesRequirement,
  RENTAL_REQUIREMENTS_SETTING_KEY,
  type BusinessAccountFact,
  type EndRequirementName,
  type PaymentSourceFact,
  type RentalRequirementsConfig,
  type ReportedStartRequirementName,
  type RequirementResult,
  type StartFacts,
} from '../domain/rental-requirements.js';

/** The requirements that apply to a branch and vehicle category, and the profile that gave them. */
export async function requirementsConfigFor(
  em: EntityManager,
  tenant: string,
  branchId: number,
  vehicleCategoryId: number,
): Promise<{ config: RentalRequirementsConfig; profile: string | null }> {
  const [setting, category] = await Promise.all([
    effectiveSetting(em, tenant, RENTAL_REQUIREMENTS_SETTING_KEY, branchId),
    categoryConfiguration(em, vehicleCategoryId),
  ]);
  return requirementsFor(setting?.value, category.rentalRequirementsKey);
}

/** What `startRequirementsReport` is asked. */
export interface StartRequirementsInput {
  customerId?: number;
  branchId: number;
  vehicleCategoryId: number;
  /** The business account the rental would be for (business-account context). */
  userGroupId?: number;
  /** When the question is asked; ages count at `bookingStartTime` when given, else at `at`. */
  at: Date;
  bookingStartTime?: Date;
  bookingEndTime?: Date;
  /**
   * Whether dunning applies (default true): a new rental or booking is refused while an invoice is
   * unpaid past its grace period; the pickup of a booking made before is not (already committed).
   */
  checkUnpaidInvoices?: boolean;
  /** The customer's facts as the caller read them in its transaction (`customerStartFacts`), else read here. */
  customerFacts?: CustomerStartFacts;
}

/** What the start requirements read of a customer: her own facts and her payment sources' types. */
export interface CustomerStartFacts {
  id: number;
  customer: StartFacts['customer'];
  paymentSources: PaymentSourceFact[];
}

/** The row `customerStartFacts` reads. */
interface CustomerStartFactsRow {
  id: number;
  is_blocked: boolean;
  email_is_verified: boolean;
  phone_is_verified: boolean;
  license_verification_state: VerificationState;
  id_verification_state: VerificationState;
  manual_verification_state: VerificationState;
  custom_external_verification_state: VerificationState;
  birth_date: string | null;
  driving_license_categories: string[] | null;
  skip_pre_auth: boolean;
  payment_state: string;
  payment_source_types: PaymentSourceFact['type'][];
}

const customerStartFactsRows = `
  select c.id, c.is_blocked, c.email_is_verified, c.phone_is_verified, c.license_verification_state,
         c.id_verification_state, c.manual_verification_state, c.custom_external_verification_state,
         c.birth_date::text as birth_date, c.driving_license_categories, c.skip_pre_auth, c.payment_state,
         array(select p.type from payment_source p
                where p.tenant_id = c.tenant_id and p.customer_id = c.id order by p.id) as payment_source_types
    from customer c
   where c.tenant_id = $1 and c.id = $2`;

/**
 * A customer's start facts and her payment sources' types in one statement (null: no such customer of
 * the tenant). Every rental's creation asks, so the customer is read as a row, not loaded as an entity.
 */
export async function customerStartFacts(
  em: EntityManager,
  tenant: string,
  customerId: number,
): Promise<CustomerStartFacts | null> {
  const [row] = await preparedRows<CustomerStartFactsRow>(em, customerStartFactsRows, [tenant, customerId]);
  if (!row) return null;
  return {
    id: row.id,
    customer: {
      isBlocked: row.is_blocked,
      emailIsVerified: row.email_is_verified,
      phoneIsVerified: row.phone_is_verified,
      licenseVerificationState: row.license_verification_state,
      idVerificationState: row.id_verification_state,
      manualVerificationState: row.manual_verification_state,
      customExternalVerificationState: row.custom_external_verification_state,
      birthDate: row.birth_date,
      drivingLicenseCategories: row.driving_license_categories,
      skipPreAuth: row.skip_pre_auth,
      paymentState: row.payment_state,
    },
    paymentSources: row.payment_source_types.map((type) => ({ type })),
  };
}

/** The start requirements of a branch and category, evaluated for a customer when one is given. */
export interface StartRequirementsReport {
  branchId: number;
  vehicleCategoryId: number;
  /** The profile of `rental.requirements` that applies (`default` or a category's key); null: none. */
  profile: string | null;
  /** Whether the requirements were evaluated (a customer was given). */
  evaluated: boolean;
  /** Whether every requirement passed; null when not evaluated. */
  passed: boolean | null;
  requirements: (Omit<RequirementResult<ReportedStartRequirementName>, 'passed'> & {
    passed: boolean | null;
  })[];
}

/** B404 unless the tenant has this branch (from the read cache's branch tree). */
async function assertBranchExists(em: EntityManager, tenant: string, branchId: number): Promise<void> {
  if ((await branchAncestry(em, tenant, branchId)).length === 0)
    throw new DomainError('B404', `branch ${branchId} not found`);
}

/** Whether the customer holds rental authority on the branch or one of its ancestors. */
export async function holdsRentalAuthority(
  em: EntityManager,
  tenant: string,
  customerId: number,
  branchId: number,
): Promise<boolean> {
  const chain = await branchAncestry(em, tenant, branchId);
  return (await em.count(RentalAuthority, { customer: customerId, branch: { $in: chain } })) > 0;
}

/** The business-account facts of a rental for a group (membership of the customer included). */
async function businessAccountFact(
  em: EntityManager,
  customerId: number,
  userGroupId: number,
): Promise<BusinessAccountFact> {
  const group = await em.findOne(UserGroup, userGroupId);
  if (!group) throw new DomainError('UG404', `business account ${userGroupId} not found`);
  const [membership, sources] = await Promise.all([
    em.findOne(GroupMembership, { customer: customerId, group: userGroupId, state: 'ACTIVE' }),
    em.find(PaymentSource, { group: userGroupId }, { fields: ['type'] }),
  ]);
  return {
    groupId: group.id,
    member: membership !== null,
    checkRentalRequirements: group.checkRentalRequirements,
    shouldIgnoreBCategoryRentalRequirement: group.shouldIgnoreBCategoryRentalRequirement,
    skipPreAuth: group.skipPreAuth,
    paymentState: group.paymentState,
    paymentSources: sources.map((source) => ({ type: source.type })),
  };
}

/**
 * The start requirements for a branch and vehicle category; evaluated for the customer when given
 * (B404 unknown branch, VC404 unknown category, U106 unknown customer, UG404 unknown business account,
 * 0022 when the booking ends before it starts).
 */
export async function startRequirementsReport(
  em: EntityManager,
  tenant: string,
  input: StartRequirementsInput,
): Promise<StartRequirementsReport> {
  if (input.bookingStartTime && input.bookingEndTime && input.bookingEndTime <= input.bookingStartTime)
    throw new DomainError('0022', 'bookingEndTime must be after bookingStartTime');
  await assertBranchExists(em, tenant, input.branchId);
  if (!(await categoryReadiness(em)).has(input.vehicleCategoryId))
    throw new DomainError('VC404', `vehicle category ${input.vehicleCategoryId} not found`);
  const { config, profile } = await requirementsConfigFor(
    em,
    tenant,
    input.branchId,
    input.vehicleCategoryId,
  );
  const base = { branchId: input.branchId, vehicleCategoryId: input.vehicleCategoryId, profile };
  if (input.customerId === undefined) {
    if (input.userGroupId !== undefined && !(await em.findOne(UserGroup, input.userGroupId)))
      throw new DomainError('UG404', `business account ${input.userGroupId} not found`);
    return {
      ...base,
      evaluated: false,
      passed: null,
      requirements: config.start.map((name) => ({ name, passed: null, code: startRequirementCodes[name] })),
    };
  }
  const customer = input.customerFacts ?? (await customerStartFacts(em, tenant, input.customerId));
  if (!customer) throw new DomainError('U106', `customer ${input.customerId} not found`);
  const needs = new Set(config.start);
  const [terms, authority, business, dunning] = await Promise.all([
    needs.has('TERMS_ACCEPTED') ? termsStateOf(em, tenant, customer.id, input.branchId) : undefined,
    needs.has('RENTAL_AUTHORITY') ? holdsRentalAuthority(em, tenant, customer.id, input.branchId) : false,
    input.userGroupId !== undefined ? businessAccountFact(em, customer.id, input.userGroupId) : null,
    input.checkUnpaidInvoices === false
      ? null
      : dunningBlockOf(em, tenant, customer.id, input.branchId, input.at),
  ]);
  const evaluated = evaluateStartRequirements(config, {
    at: input.bookingStartTime ?? input.at,
    customer: customer.customer,
    termsState: terms?.state ?? 'NO_TERMS',
    paymentSources: customer.paymentSources,
    rentalAuthority: authority,
    businessAccount: business,
  });
  if (!dunning) return { ...base, evaluated: true, ...evaluated };
  // Dunning is listed first, and only when it blocks: it is no requirement a branch configures.
  return {
    ...base,
    evaluated: true,
    passed: false,
    requirements: [
      { name: unpaidInvoicesRequirement, passed: false, code: 'U134', message: dunningMessage(dunning) },
      ...evaluated.requirements,
    ],
  };
}

/**
 * Throws the first failed start requirement's code (DomainError; the report in `details.report`) for a
 * customer; returns the report when every requirement passed. The rental workflow calls it before START.
 */
export async function assertStartRequirements(
  em: EntityManager,
  tenant: string,
  input: StartRequirementsInput & { customerId: number },
): Promise<StartRequirementsReport> {
  const report = await startRequirementsReport(em, tenant, input);
  assertRequirementsPassed(
    {
      passed: report.passed ?? true,
      requirements: report.requirements.map((r) => ({ ...r, passed: r.passed ?? true })),
    },
    { report },
  );
  return report;
}

/** The end requirements evaluated for a rental, and the branch it would end in. */
export interface EndRequirementsReport {
  passed: boolean;
  requirements: RequirementResult<EndRequirementName>[];
  profile: string | null;
  /**
   * The branch whose end areas allow ending at the vehicle's position: the rental's branch first (by the
   * geofence rules), then its outgoing compatible branches (inside one of their ALLOW_END_RENTAL areas);
   * null when none does (or the position is unknown).
   */
  endBranchId: number | null;
}

/** Vehicles of a branch that capacity policies count (all but the rental's own vehicle). */
async function otherVehiclesOf(
  em: EntityManager,
  branchId: number,
  vehicleId: number,
): Promise<VehicleSnapshot[]> {
  const vehicles = await em.find(
    Vehicle,
    { branch: branchId, id: { $ne: vehicleId }, latitude: { $ne: null }, longitude: { $ne: null } },
    { fields: ['latitude', 'longitude', 'category', 'rentalState'] },
  );
  return vehicles.map((vehicle) => ({
    position: { lat: vehicle.latitude!, lng: vehicle.longitude! },
    vehicleCategoryId: vehicle.category.id,
    rentalState: vehicle.rentalState,
  }));
}

const hasCapacityPolicy = (areas: PreparedAreas) =>
  areas.areas.some((area) => area.policies.some((policy) => policy.type === 'END_RENTAL_CAPACITY_POLICY'));

/**
 * Where a rental of `branchId` may end: its own branch, then its outgoing compatible branches in order, with
 * each one's time zone (a branch that no longer exists has none). From the read cache: every END asks.
 */
export async function endBranchCandidates(
  em: EntityManager,
  tenant: string,
  branchId: number,
): Promise<{ candidates: readonly number[]; timeZones: ReadonlyMap<number, string> }> {
  return readCacheOf(em).get(em, `end-branches:${tenant}:${branchId}`, async () => {
    const compatible = await em.find(
      CompatibleBranch,
      { branch: branchId, isOutgoing: true },
      { orderBy: { id: 'asc' } },
    );
    const candidates = [branchId, ...compatible.map((link) => link.compatible.id)];
    const branches = await em.find(Branch, { id: { $in: candidates } });
    return { candidates, timeZones: new Map(branches.map((branch) => [branch.id, branch.timeZoneId])) };
  });
}

/**
 * What the end requirements read of a rental and its vehicle: the entities are one, and so is the row
 * the END step reads without them.
 */
export interface EndRequirementsSubject {
  rental: { branch: { id: number }; startVehicleSensors?: Rental['startVehicleSensors'] };
  vehicle: Pick<Vehicle, 'id' | 'latitude' | 'longitude' | 'charging' | 'powerState' | 'sensors'> & {
    category: { id: number };
  };
}

/**
 * Evaluates the configured end requirements of a rental from the vehicle's last reported state and
 * position, the user's position (force-end, the app) and the areas of the branch it would end in; also
 * finds that branch (`endBranchId`).
 */
export async function endRequirementsReport(
  em: EntityManager,
  tenant: string,
  input: EndRequirementsSubject & { userPosition?: LatLng; at?: Date },
): Promise<EndRequirementsReport> {
  const { rental, vehicle } = input;
  const at = input.at ?? new Date();
  const categoryId = vehicle.category.id;
  const position =
    vehicle.latitude != null && vehicle.longitude != null
      ? { lat: vehicle.latitude, lng: vehicle.longitude }
      : null;
  const { candidates, timeZones } = await endBranchCandidates(em, tenant, rental.branch.id);
  const loaded = new Map<number, { areas: PreparedAreas; others?: VehicleSnapshot[] }>();
  const load = async (branchId: number) => {
    let entry = loaded.get(branchId);
    if (!entry) {
      const areas = await loadBranchGeofence(em, tenant, branchId);
      entry = { areas };
      if (hasCapacityPolicy(areas)) entry.others = await otherVehiclesOf(em, branchId, vehicle.id);
      loaded.set(branchId, entry);
    }
    return entry;
  };
  let endBranchId: number | null = null;
  if (position)
    for (const branchId of candidates) {
      const timeZoneId = timeZones.get(branchId);
      if (timeZoneId === undefined) continue;
      const { areas, others } = await load(branchId);
      const verdict = endAreaVerdict(areas, {
        position,
        vehicleCategoryId: categoryId,
        at,
        timeZoneId,
        ...(others ? { otherVehicles: others } : {}),
      });
      // The rental's own branch follows the geofence rules (no allowing area: anywhere not forbidden);
      // a compatible branch takes the rental only inside one of its allowing areas.
      const own = branchId === rental.branch.id;
      if (verdict.endAllowed && (own ? verdict.inAllowedEndArea : verdict.inAllowingArea)) {
        endBranchId = branchId;
        break;
      }
    }
  const evaluatedBranchId = endBranchId ?? rental.branch.id;
  const { config, profile } = await requirementsConfigFor(em, tenant, rental.branch.id, categoryId);
  if (config.end.length === 0) return { passed: true, requirements: [], profile, endBranchId };
  const needs = new Set(config.end);
  const { areas, others } = await load(evaluatedBranchId);
  const [stations, slot] = await Promise.all([
    needs.has('VEHICLE_IN_STATION_AREA')
      ? em.find(Station, {
          branch: evaluatedBranchId,
          state: 'ACTIVE',
          type: { $in: ['VIRTUAL', 'DOCKING'] },
        })
      : [],
    needs.has('VEHICLE_LOCKED_IN_STATION') ? em.findOne(PhysicalStationSlot, { vehicle: vehicle.id }) : null,
  ]);
  const evaluated = evaluateEndRequirements(config, {
    at,
    vehicleCategoryId: categoryId,
    vehiclePosition: position,
    userPosition: input.userPosition ?? null,
    areas,
    timeZoneId: timeZones.get(evaluatedBranchId) ?? 'UTC',
    ...(others ? { otherVehicles: others } : {}),
    stations: stations
      .filter((station) => !station.validUntil || station.validUntil > at)
      .map((station) => ({
        id: station.id,
        position: { lat: station.latitude, lng: station.longitude },
        radiusMeters: station.radius ?? null,
        area: station.area ?? null,
      })),
    dockedInStation: slot !== null,
    charging: vehicle.charging,
    powerState: vehicle.powerState,
    sensors: vehicle.sensors ?? {},
    startSensors: rental.startVehicleSensors ?? null,
  });
  return { ...evaluated, profile, endBranchId };
}
