// Demo and test data of the settings domain: the app's map defaults, visible to the app.
import type { EntityManager } from '@mikro-orm/postgresql';
import { Setting } from '../entities/Setting.js';
import { fromBoard, type DomainSeed, type SeedBoard } from './board.js';

/** `app.map`: where the app's map opens (central Berlin). */
export const settingSeed: DomainSeed = {
  rows(tx: EntityManager, board: SeedBoard) {
    tx.create(Setting, {
      tenant: fromBoard(board, 'tenant'),
      key: 'app.map',
      name: 'App map defaults',
      area: 'APP',
      valueType: 'JSON',
      branchIds: [0],
      value: { center: { lat: 52.52, lng: 13.405 }, zoom: 14 },
      publicVisible: true,
    });
  },
};
