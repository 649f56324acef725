import { BusinessUnit } from '../../db/entities/BusinessUnit.js';
import { Branch } from '../../db/entities/Branch.js';
import { Tenant } from '../../db/entities/Tenant.js';
import { Migration20261121050909_initial } from '../../db/migrations/Migration20261121050909_initial.js';
import { organisationSeed } from '../../db/seed/organisation.js';
import { defineDomain } from './domain.js';

/** Tenants, business units and the branch tree every permission and setting is scoped by. */
export const organisationDomain = defineDomain({
  name: 'organisation',
  seed: organisationSeed,
  entities: [Tenant, BusinessUnit, Branch],
  migrations: [Migration20261121050909_initial],
});
