// Pricing lookups shared by the API, activities and (later) rentals and bookings: which bundle prices a
// branch and category, which of its versions applies at a time, and the engine's inputs from rows.
import type { EntityManager } from '@mikro-orm/postgresql';
import { Branch } from './entities/Branch.js';
import { BusinessUnit } from './entities/BusinessUnit.js';
import { PricingAssignment } from './entities/PricingAssignment.js';
import { PricingBundle } from './entities/PricingBundle.js';
import { PricingBundleVersion } from './entities/PricingBundleVersion.js';
import { branchAncestry, branchDirectory } from './branches.js';
import { preparedRows } from './prepared.js';
import { deepFreeze, readCacheOf } from './read-cache.js';
import { DomainError } from '../domain/errors.js';
import { applicableVersion } from '../domain/pricing-versions.js';
import type { PricedVersion, PricingBundleType, TaxContext } from '../domain/pricing.js';

/** A live (not archived) bundle of the tenant, or ODP100. */
export async function loadPricingBundle(em: EntityManager, pricingBundleId: number): Promise<PricingBundle> {
  const bundle = await em.findOne(PricingBundle, { id: pricingBundleId, archivedAt: null });
  if (!bundle) throw new DomainError('ODP100', `pricing bundle ${pricingBundleId} not found`);
  return bundle;
}

/** A version of a live bundle, or ODP101. */
export async function loadPricingVersion(
  em: EntityManager,
  pricingBundleId: number,
  versionId: number,
): Promise<PricingBundleVersion> {
  const version = await em.findOne(PricingBundleVersion, { id: versionId, bundle: pricingBundleId });
  if (!version)
    throw new DomainError('ODP101', `version ${versionId} of pricing bundle ${pricingBundleId} not found`);
  return version;
}

/** The engine's view of a version row (the entities, or the row an ending rental's billing reads). */
export function pricedVersion(
  bundle: Pick<PricingBundle, 'id' | 'name' | 'type' | 'currency' | 'distanceUnit'>,
  version: Pick<PricingBundleVersion, 'id' | 'version' | 'rules'>,
): PricedVersion {
  return {
    ref: {
      pricingBundleId: bundle.id,
      pricingBundleVersionId: version.id,
      version: version.version,
      name: bundle.name,
    },
    bundleType: bundle.type,
    currency: bundle.currency,
    distanceUnit: bundle.distanceUnit,
    rules: version.rules,
  };
}

/** Tax, rounding scale, currency and time zone of a business unit (read, never changed here). */
export function taxContextOf(
  unit: Pick<BusinessUnit, 'taxPercentage' | 'scale' | 'currency' | 'timeZoneId'>,
): TaxContext {
  return {
    taxPercentage: unit.taxPercentage,
    scale: unit.scale,
    currency: unit.currency,
    timeZoneId: unit.timeZoneId,
  };
}

/** The business unit of a branch, or B404. */
export async function businessUnitOfBranch(em: EntityManager, branchId: number): Promise<BusinessUnit> {
  const branch = await em.findOne(Branch, branchId, { populate: ['businessUnit'] });
  if (!branch) throw new DomainError('B404', `branch ${branchId} not found`);
  return branch.businessUnit;
}

/** A business unit as pricing and invoicing read it: the numbering's fields and the tax context. */
export interface PricingUnit {
  id: number;
  code: string;
  timeZoneId: string;
  tax: TaxContext;
}

async function loadPricingUnits(
  em: EntityManager,
  tenant: string,
): Promise<ReadonlyMap<number, PricingUnit>> {
  const rows = await preparedRows<{
    id: number;
    code: string;
    time_zone_id: string;
    currency: string;
    tax_percentage: string;
    scale: number;
  }>(
    em,
    'select id, code, time_zone_id, currency, tax_percentage, scale from business_unit where tenant_id = $1',
    [tenant],
  );
  return new Map(
    rows.map((row) => [
      row.id,
      deepFreeze({
        id: row.id,
        code: row.code,
        timeZoneId: row.time_zone_id,
        tax: taxContextOf({
          taxPercentage: row.tax_percentage,
          scale: row.scale,
          currency: row.currency,
          timeZoneId: row.time_zone_id,
        }),
      }),
    ]),
  );
}

/**
 * `businessUnitOfBranch` from the read cache (the branch tree and the tenant's units; B404 for an unknown
 * branch): every ended rental's price and invoice ask, and `warmRentalReadCache` fills both before the
 * step's transaction.
 */
export async function pricingUnitOfBranch(
  em: EntityManager,
  tenant: string,
  branchId: number,
): Promise<PricingUnit> {
  // Inside a transaction the cache is not refilled: a branch or unit it does not hold yet is read as a row.
  const unitId =
    (await branchDirectory(em, tenant, { branchId })).branches.get(branchId)?.businessUnitId ??
    (
      await preparedRows<{ business_unit_id: number }>(
        em,
        'select business_unit_id from branch where tenant_id = $1 and id = $2',
        [tenant, branchId],
      )
    )[0]?.business_unit_id;
  if (unitId === undefined) throw new DomainError('B404', `branch ${branchId} not found`);
  const unit =
    (await pricingUnits(em, tenant)).get(unitId) ?? (await loadPricingUnits(em, tenant)).get(unitId);
  if (!unit) throw new DomainError('B404', `business unit of branch ${branchId} not found`);
  return unit;
}

/** The tenant's business units as pricing reads them, from the read cache. */
export function pricingUnits(em: EntityManager, tenant: string): Promise<ReadonlyMap<number, PricingUnit>> {
  return readCacheOf(em).get(em, `pricing-units:${tenant}`, () => loadPricingUnits(em, tenant));
}

/**
 * The assignment that prices a category at a branch: the branch's own, else the nearest ancestor's.
 * Missing is ODP104, never a zero price.
 */
export async function assignedPricing(
  em: EntityManager,
  tenant: string,
  branchId: number,
  vehicleCategoryId: number,
  bundleType: PricingBundleType,
): Promise<PricingAssignment> {
  const ancestry = await branchAncestry(em, tenant, branchId);
  if (!ancestry.length) throw new DomainError('B404', `branch ${branchId} not found`);
  const rows = await em.find(
    PricingAssignment,
    { branch: { $in: ancestry }, vehicleCategory: vehicleCategoryId, bundleType },
    { populate: ['bundle'] },
  );
  for (const id of ancestry) {
    const row = rows.find((candidate) => candidate.branch.id === id);
    if (row) return row;
  }
  throw new DomainError(
    'ODP104',
    `no ${bundleType === 'BOOKING' ? 'booking' : 'on-demand'} pricing assigned to category ${vehicleCategoryId} at branch ${branchId}`,
  );
}

/** The version of a bundle that applies at `at` (ODP106 when none does); rentals and bookings pin it at creation. */
export async function versionApplyingAt(
  em: EntityManager,
  pricingBundleId: number,
  at: Date,
): Promise<PricingBundleVersion> {
  const candidates = await em.find(
    PricingBundleVersion,
    {
      bundle: pricingBundleId,
      status: { $in: ['PUBLISHED', 'SUPERSEDED', 'EXPIRED'] },
      effectiveFrom: { $lte: at },
    },
    { orderBy: { effectiveFrom: 'desc', id: 'desc' }, limit: 1 },
  );
  const found = applicableVersion(
    candidates.map((version) => ({
      id: version.id,
      status: version.status,
      effectiveFrom: version.effectiveFrom?.getTime() ?? null,
      validUntil: version.validUntil?.getTime() ?? null,
      version,
    })),
    at.getTime(),
  );
  if (!found)
    throw new DomainError(
      'ODP106',
      `no published version of pricing bundle ${pricingBundleId} applies at ${at.toISOString()}`,
    );
  return found.version;
}

/** Everything needed to price a branch's category at a time: bundle, applicable version and tax context. */
export interface ResolvedPricing {
  bundle: PricingBundle;
  version: PricingBundleVersion;
  priced: PricedVersion;
  tax: TaxContext;
}

/**
 * The version that applies to a branch and category at time T (assignment, then version), with the
 * tax context of the branch's business unit: what a rental or booking records at its creation.
 */
export async function pricingForBranch(
  em: EntityManager,
  tenant: string,
  query: { branchId: number; vehicleCategoryId: number; bundleType: PricingBundleType; at: Date },
): Promise<ResolvedPricing> {
  const unit = await businessUnitOfBranch(em, query.branchId);
  const assignment = await assignedPricing(
    em,
    tenant,
    query.branchId,
    query.vehicleCategoryId,
    query.bundleType,
  );
  const bundle = assignment.bundle;
  const version = await versionApplyingAt(em, bundle.id, query.at);
  return { bundle, version, priced: pricedVersion(bundle, version), tax: taxContextOf(unit) };
}

/**
 * The pricing of a version recorded earlier (a rental's or booking's pinned version), with the tax
 * context of the branch's business unit: re-pricing later uses exactly the rules applied at creation,
 * whatever happened to the bundle since (published versions never change; archived ones stay readable).
 */
export async function pricingForVersion(
  em: EntityManager,
  query: { branchId: number; pricingBundleVersionId: number },
): Promise<ResolvedPricing> {
  const unit = await businessUnitOfBranch(em, query.branchId);
  const version = await em.findOne(PricingBundleVersion, query.pricingBundleVersionId, {
    populate: ['bundle'],
  });
  if (!version || version.status === 'DRAFT')
    throw new DomainError(
      'ODP101',
      `pricing bundle version ${query.pricingBundleVersionId} was never published`,
    );
  return {
    bundle: version.bundle,
    version,
    priced: pricedVersion(version.bundle, version),
    tax: taxContextOf(unit),
  };
}
