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
