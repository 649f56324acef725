// Demo and test data of the rentals domain: the tenant-wide reservation setting.
import type { EntityManager } from '@mikro-orm/postgresql';
import { Setting } from '../entities/Setting.js';
import { RENTAL_RESERVATION_SETTING_KEY, defaultReservationSettings } from '../../domain/rental.js';
import { fromBoard, type DomainSeed, type SeedBoard } from './board.js';

/** The `rental.reservation` setting with its defaults, for every branch (branch 0). */
export const rentalSeed: DomainSeed = {
  rows(tx: EntityManager, board: SeedBoard) {
    tx.create(Setting, {
      tenant: fromBoard(board, 'tenant'),
      key: RENTAL_RESERVATION_SETTING_KEY,
      name: 'Rental reservation',
      area: 'CORE',
      valueType: 'RENTAL_RESERVATION_SETTINGS',
      branchIds: [0],
      value: { ...defaultReservationSettings },
    });
  },
};
