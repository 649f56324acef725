// Demo and test data of the feeds domain: the Berlin branch's subtree published as the GBFS system
// `berlin`, and the demo vehicle categories as GBFS vehicle types (electric standing scooters, the long-range
// ones among them, and electric compact cars), so the demo tenant's public feeds answer at once.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Branch } from '../entities/Branch.js';
import { FeedSystem } from '../entities/FeedSystem.js';
import { FeedVehicleType } from '../entities/FeedVehicleType.js';
import { VehicleCategory } from '../entities/VehicleCategory.js';
import { fromBoard, type DomainSeed, type SeedBoard } from './board.js';

/** The demo system's id in the public paths: /v1/{tenant}/gbfs/berlin/v3/gbfs.json. */
export const demoFeedSystemId = 'berlin';

/** Publishes the city branch and maps the demo categories (after the categories exist). */
export async function seedFeeds(tx: EntityManager, board: SeedBoard): Promise<void> {
  const tenant = board.tenantId;
  const city = fromBoard(board, 'city') as Branch;
  tx.create(FeedSystem, {
    tenant,
    systemId: demoFeedSystemId,
    name: `${board.tenantName} Berlin`,
    shortName: 'Berlin',
    rootBranch: city,
    published: true,
    publishedAt: new Date(),
    language: 'de',
    timezone: city.timeZoneId,
    operatorName: board.tenantName,
    url: `https://${tenant}.fleetflow.localhost`,
    email: `support@${tenant}.fleetflow.localhost`,
    feedContactEmail: `feeds@${tenant}.fleetflow.localhost`,
    phoneNumber: '+4930123456',
    createdBy: 'seed',
  });
  const categories = await tx.find(VehicleCategory, { tenant }, { filters: false });
  const mapping: Record<string, Partial<FeedVehicleType>> = {
    'E-Scooter': {
      formFactor: 'scooter_standing',
      propulsionType: 'electric',
      batteryModel: 'Li-ion 36 V 12.8 Ah',
      maxRangeMeters: 40_000,
      riderCapacity: 1,
      wheelCount: 2,
      maxPermittedSpeedKmh: 20,
    },
    'E-Scooter (long range)': {
      formFactor: 'scooter_standing',
      propulsionType: 'electric',
      batteryModel: 'Li-ion 48 V 20 Ah',
      maxRangeMeters: 70_000,
      riderCapacity: 1,
      wheelCount: 2,
      maxPermittedSpeedKmh: 20,
    },
    'Compact car': {
      formFactor: 'car',
      propulsionType: 'electric',
      batteryModel: '58 kWh NMC',
      maxRangeMeters: 400_000,
      riderCapacity: 5,
      wheelCount: 4,
    },
  };
  for (const category of categories) {
    const fields = mapping[category.name];
    if (fields) tx.create(FeedVehicleType, { tenant, category, ...fields } as FeedVehicleType);
  }
}

/** The demo system, once the branches and the fleet's categories exist (after the flush). */
export const feedsSeed: DomainSeed = {
  afterFlush: (tx: EntityManager, board: SeedBoard) => seedFeeds(tx, board),
};
