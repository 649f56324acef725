// Demo and test data of the MDS domain: one agency credential, so the provider interface can be tried at
// once (docs/mds.md; the published systems it reads are the feeds domain's).
import type { EntityManager } from '@mikro-orm/postgresql';
import { MdsAgency } from '../entities/MdsAgency.js';
import { hashSecret } from '../../platform/secrets.js';
import { fromBoard, type DomainSeed, type SeedBoard } from './board.js';

/** The demo agency's client credentials (local demo and test tenants only; README documents them). */
export const demoMdsAgency = { clientId: 'demo-mds-agency', clientSecret: 'demo-mds-agency-secret' };

export const mdsSeed: DomainSeed = {
  async rows(tx: EntityManager, board: SeedBoard) {
    tx.create(MdsAgency, {
      tenant: fromBoard(board, 'tenant'),
      clientId: demoMdsAgency.clientId,
      name: 'Demo city transport agency',
      secretHash: await hashSecret(demoMdsAgency.clientSecret),
      createdBy: 'seed',
    });
  },
};
