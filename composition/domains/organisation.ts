import { BusinessUnit } from '../../db/entities/BusinessUnit.js';
import { Branch } from '../../db/entities/Branch.js';
import { Tenant } from '../../db/entities/Tenant.js';
import { defineDomain } from './domain.js';

/** Tenants, business units and the branch tree every permission and setting is scoped by. */
export const organisationDomain = defineDomain({
  name: 'organisation',
  entities: [Tenant, BusinessUnit, Branch],
});
