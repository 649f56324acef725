// What the rental's steps share when they write rows without entities (db/rental-reservation.ts,
// db/rental-lifecycle.ts): the JSON columns of the rental and vehicle rows, and the read cache they fill
// before their transaction.
import type { EntityManager } from '@mikro-orm/postgresql';
import { branchDirectory } from './branches.js';
import { categoryReadiness } from './categories.js';
import { tenantGeofenceTemplates } from './geofence-pricing.js';
import { pricingUnits } from './pricing.js';
import { warmSettings } from './settings.js';

/** The rental row's JSON columns, written as jsonb by `insertTenantRow` / `updateTenantRow`. */
export const rentalJsonColumns: ReadonlySet<string> = new Set([
  'phases',
  'start_position',
  'end_position',
  'start_vehicle_sensors',
  'overridden_end_requirements',
]);
/** The vehicle row's JSON columns a transition writes. */
export const vehicleJsonColumns: ReadonlySet<string> = new Set(['sensors']);

/**
 * Fills the read cache (categories, branch tree, business units, geofence templates and the setting keys
 * the step reads) outside any transaction, with an EntityManager that is in none: a transaction serves
 * what the cache holds but never stores into it, so without this every transition would read them all
 * again.
 */
export async function warmRentalReadCache(
  em: EntityManager,
  tenant: string,
  settingKeys: readonly string[],
): Promise<void> {
  await categoryReadiness(em);
  await branchDirectory(em, tenant);
  await pricingUnits(em, tenant);
  await tenantGeofenceTemplates(em, tenant);
  await warmSettings(em, tenant, settingKeys);
}
