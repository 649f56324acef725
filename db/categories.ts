import type { EntityManager } from '@mikro-orm/postgresql';
import { VehicleCategory } from './entities/index.js';
import { effectiveCategoryConfiguration, type VehicleCategoryConfiguration } from '../domain/vehicle.js';

/** A category's configuration merged over its ancestors' (the category's own keys win). */
export async function categoryConfiguration(
  em: EntityManager,
  categoryId: number,
): Promise<VehicleCategoryConfiguration> {
  const chain: VehicleCategoryConfiguration[] = [];
  let current = await em.findOne(VehicleCategory, categoryId);
  for (let depth = 0; current && depth < 16; depth += 1) {
    chain.push(current.configuration);
    current = current.parent ? await em.findOne(VehicleCategory, current.parent.id) : null;
  }
  return effectiveCategoryConfiguration(chain);
}

/** A category with its effective (inherited) configuration. */
export interface ResolvedCategory {
  category: VehicleCategory;
  configuration: VehicleCategoryConfiguration;
}

/**
 * Every category of the tenant with its effective configuration, from one query: lists compute the
 * ready-to-rent rules of many vehicles without a query per vehicle.
 */
export async function resolvedCategories(em: EntityManager): Promise<Map<number, ResolvedCategory>> {
  const categories = await em.find(VehicleCategory, {});
  const byId = new Map(categories.map((category) => [category.id, category]));
  const resolved = new Map<number, ResolvedCategory>();
  for (const category of categories) {
    const chain: VehicleCategoryConfiguration[] = [];
    let current: VehicleCategory | undefined = category;
    for (let depth = 0; current && depth < 16; depth += 1) {
      chain.push(current.configuration);
      current = current.parent ? byId.get(current.parent.id) : undefined;
    }
    resolved.set(category.id, { category, configuration: effectiveCategoryConfiguration(chain) });
  }
  return resolved;
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
