// Demo and test data of the organisation domain: the tenant, its business unit and the branch tree every
// other domain's seed hangs its rows on.
import type { EntityManager } from '@mikro-orm/postgresql';
import { Branch } from '../entities/Branch.js';
import { BusinessUnit } from '../entities/BusinessUnit.js';
import { Tenant } from '../entities/Tenant.js';
import type { DomainSeed, SeedBoard } from './board.js';

/** The district branch that holds the seeded fleet. */
export const DEMO_BRANCH_CODE = 'berlin-mitte';

declare module './board.js' {
  interface SeedBoard {
    tenant?: Tenant;
    businessUnit?: BusinessUnit;
    /** The city branch (Berlin), parent of the district and of the booking stations. */
    city?: Branch;
    /** The district branch (Berlin Mitte) holding the fleet. */
    district?: Branch;
    /** A top-level sibling branch (Spandau) the operator client holds no role on (for denial paths). */
    sibling?: Branch;
  }
}

/** A tenant with one business unit, a city branch with a district below it, and a sibling branch. */
export const organisationSeed: DomainSeed = {
  rows(tx: EntityManager, board: SeedBoard) {
    const tenant = tx.create(Tenant, { id: board.tenantId, name: board.tenantName });
    const unit = tx.create(BusinessUnit, {
      tenant,
      code: 'BER',
      name: 'Demo Mobility Berlin GmbH',
      timeZoneId: 'Europe/Berlin',
      currency: 'EUR',
      taxPercentage: '19.00',
      scale: 2,
    });
    const city = tx.create(Branch, {
      tenant,
      name: 'Berlin',
      code: 'berlin',
      businessUnit: unit,
      timeZoneId: 'Europe/Berlin',
    });
    const district = tx.create(Branch, {
      tenant,
      name: 'Berlin Mitte',
      code: DEMO_BRANCH_CODE,
      parent: city,
      businessUnit: unit,
      timeZoneId: 'Europe/Berlin',
    });
    const sibling = tx.create(Branch, {
      tenant,
      name: 'Spandau',
      code: 'spandau',
      businessUnit: unit,
      timeZoneId: 'Europe/Berlin',
    });
    Object.assign(board, { tenant, businessUnit: unit, city, district, sibling });
  },
};
