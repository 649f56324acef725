import type { EntityManager } from '@mikro-orm/postgresql';
import { TENANT_FILTER, tenantIdOf } from './entities/TenantScoped.js';
import { VehicleCategory } from './entities/VehicleCategory.js';
import { readCacheOf, deepFreeze } from './read-cache.js';
import { effectiveCategoryConfiguration, type VehicleCategoryConfiguration } from '../domain/vehicle.js';

/**
 * A category's configuration merged over its ancestors' (the category's own keys win), from the read cache
 * when the EntityManager is tenant-confined (frozen: read it, never change it); read from the table otherwise
 * or when the cache does not know the category (created since).
 */
export async function categoryConfiguration(
  em: EntityManager,
  categoryId: number,
): Promise<VehicleCategoryConfiguration> {
  if (em.getFilterParams<{ tenantId?: string }>(TENANT_FILTER)?.tenantId) {
    const cached = (await categoryReadiness(em)).get(categoryId);
    if (cached) return cached.configuration;
  }
  const chain: VehicleCategoryConfiguration[] = [];
  let current = await em.findOne(VehicleCategory, categoryId);
  for (let depth = 0; current && depth < 16; depth += 1) {
    chain.push(current.configuration);
    current = current.parent ? await em.findOne(VehicleCategory, current.parent.id) : null;
  }
  return effectiveCategoryConfiguration(chain);
}

/** What the ready-to-rent rules need of a category: whether it is bookable, and its effective configuration. */
export interface CategoryReadiness {
  bookable: boolean;
  configuration: VehicleCategoryConfiguration;
}

/** A category with its effective (inherited) configuration. */
export interface ResolvedCategory extends CategoryReadiness {
  category: VehicleCategory;
}

/** Each category's configuration merged over its ancestors' (sixteen levels at most), by id. */
function effectiveConfigurations(
  categories: readonly { id: number; parentId: number | null; configuration: VehicleCategoryConfiguration }[],
): Map<number, VehicleCategoryConfiguration> {
  const byId = new Map(categories.map((category) => [category.id, category]));
  const effective = new Map<number, VehicleCategoryConfiguration>();
  for (const category of categories) {
    const chain: VehicleCategoryConfiguration[] = [];
    let current: (typeof categories)[number] | undefined = category;
    for (let depth = 0; current && depth < 16; depth += 1) {
      chain.push(current.configuration);
      current = current.parentId === null ? undefined : byId.get(current.parentId);
    }
    effective.set(category.id, effectiveCategoryConfiguration(chain));
  }
  return effective;
}

/**
 * Every category of the tenant with its effective configuration, from one query: lists compute the
 * ready-to-rent rules of many vehicles without a query per vehicle.
 */
export async function resolvedCategories(em: EntityManager): Promise<Map<number, ResolvedCategory>> {
  const categories = await em.find(VehicleCategory, {});
  const configurations = effectiveConfigurations(
    categories.map((category) => ({
      id: category.id,
      parentId: category.parent?.id ?? null,
      configuration: category.configuration,
    })),
  );
  return new Map(
    categories.map((category) => [
      category.id,
      { category, bookable: category.bookable, configuration: configurations.get(category.id)! },
    ]),
  );
}

async function loadCategoryReadiness(
  em: EntityManager,
  tenant: string,
): Promise<Map<number, CategoryReadiness>> {
  const rows = await em.execute<
    { id: number; parent_id: number | null; bookable: boolean; configuration: VehicleCategoryConfiguration }[]
  >('select id, parent_id, bookable, configuration from vehicle_category where tenant_id = ?', [tenant]);
  const configurations = effectiveConfigurations(
    rows.map((row) => ({
      id: Number(row.id),
      parentId: row.parent_id === null ? null : Number(row.parent_id),
      configuration: row.configuration,
    })),
  );
  return new Map(
    rows.map((row) => [
      Number(row.id),
      // Shared by every request of the cache's lifetime: frozen so no reader can change another's.
      Object.freeze({
        bookable: row.bookable,
        configuration: deepFreeze(configurations.get(Number(row.id))!),
      }),
    ]),
  );
}

/**
 * What the ready-to-rent rules need of every category of the tenant, from the read cache (db/read-cache.ts;
 * category writes empty it): vehicle reads compute availability without reading the categories each time.
 */
export async function categoryReadiness(em: EntityManager): Promise<ReadonlyMap<number, CategoryReadiness>> {
  const tenant = tenantIdOf(em);
  return readCacheOf(em).get(em, `categories:${tenant}`, () => loadCategoryReadiness(em, tenant));
}

/** Whether making `parentId` the parent of `categoryId` would create a cycle. */
export async function wouldCreateCycle(
  em: EntityManager,
  categoryId: number,
  parentId: number,
): Promise<boolean> {
  const categories = await resolvedCategories(em);
  let current: number | undefined = parentId;
  for (let depth = 0; current !== undefined && depth < 32; depth += 1) {
    if (current === categoryId) return true;
    current = categories.get(current)?.category.parent?.id;
  }
  return false;
}
