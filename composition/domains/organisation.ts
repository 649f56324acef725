import { BusinessUnit, Branch, Tenant } from '../../db/entities/index.js';
import { defineDomain } from './domain.js';

/** Tenants, business units and the branch tree every permission and setting is scoped by. */
export const organisationDomain = defineDomain({
  name: 'organisation',
  entities: [Tenant, BusinessUnit, Branch],
});
