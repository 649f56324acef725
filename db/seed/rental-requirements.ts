// Demo rental requirements: the Spandau branch (no demo vehicles) requires verified, paying customers of
// age and a vehicle left locked in the business area. The other demo branches have no setting, so the
// shipped default applies there (`shippedRentalRequirements`: a payment method, P104).
import type { EntityManager } from '@mikro-orm/postgresql';
import { Setting } from '../entities/Setting.js';
import { type Branch } from '../entities/Branch.js';
import { type Tenant } from '../entities/Tenant.js';
import {
  RENTAL_REQUIREMENTS_SETTING_KEY,
  RENTAL_REQUIREMENTS_VALUE_TYPE,
  type RentalRequirementsSetting,
} from '../../domain/rental-requirements.js';
import { fromBoard, type DomainSeed, type SeedBoard } from './board.js';

/** The demo configuration (also the example of docs/rentals.md). */
export const demoRentalRequirements: RentalRequirementsSetting = {
  default: {
    start: [
      'ACCOUNT_NOT_BLOCKED',
      'EMAIL_VERIFIED',
      'LICENSE_VERIFIED',
      'TERMS_ACCEPTED',
      'PAYMENT_METHOD',
      'PAYMENT_PRE_AUTHORIZATION',
      'MINIMUM_AGE',
    ],
    end: ['IN_BUSINESS_AREA', 'NOT_IN_PROHIBITED_AREA', 'POWER_STATE_OFF'],
    minimumAge: 18,
  },
  profiles: {
    bikes: {
      start: ['ACCOUNT_NOT_BLOCKED', 'EMAIL_VERIFIED', 'TERMS_ACCEPTED', 'PAYMENT_METHOD', 'MINIMUM_AGE'],
      end: ['IN_BUSINESS_AREA', 'NOT_IN_PROHIBITED_AREA', 'BIKE_LOCK_LOCKED', 'EXISTING_HELMETS_PLUGGED_IN'],
      minimumAge: 16,
    },
  },
};

/** Seeds the `rental.requirements` setting of one branch (inside the seed's transaction). */
export function seedRentalRequirements(
  tx: EntityManager,
  { tenant, branch }: { tenant: Tenant; branch: Branch },
): void {
  tx.create(Setting, {
    tenant,
    key: RENTAL_REQUIREMENTS_SETTING_KEY,
    name: 'Rental requirements',
    area: 'CORE',
    valueType: RENTAL_REQUIREMENTS_VALUE_TYPE,
    branchIds: [branch.id],
    value: { ...demoRentalRequirements },
  });
}

/** Requirements on the sibling branch, after the flush (the setting names the branch's id). */
export const rentalRequirementSeed: DomainSeed = {
  afterFlush: async (tx: EntityManager, board: SeedBoard) =>
    seedRentalRequirements(tx, { tenant: fromBoard(board, 'tenant'), branch: fromBoard(board, 'sibling') }),
};
