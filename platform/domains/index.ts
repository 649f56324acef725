// The domain list: app routes, both OpenAPI documents, the worker's activities and workflows, the ORM's
// entities and the permission catalogue are all loops over it. Adding a domain is one line here.
import { buildPermissionCatalogue } from '../../domain/permissions.js';
import type { DomainModule } from './domain.js';
import { organisationDomain } from './organisation.js';
import { customerDomain } from './customers.js';
import { fleetDomain } from './fleet.js';
import { rentalDomain } from './rentals.js';
import { eventDomain } from './events.js';
import { settingDomain } from './settings.js';
import { accessDomain } from './access.js';
import { financeDomain } from './finance.js';
import { pricingDomain } from './pricing.js';
import { geographyDomain } from './geography.js';
import { rentalRequirementsDomain } from './rental-requirements.js';
import { bookingDomain } from './bookings.js';
import { damageDomain } from './damages.js';

export const domains: readonly DomainModule[] = [
  organisationDomain,
  customerDomain,
  fleetDomain,
  rentalDomain,
  eventDomain,
  settingDomain,
  accessDomain,
  financeDomain,
  pricingDomain,
  geographyDomain,
  rentalRequirementsDomain,
  bookingDomain,
  damageDomain,
];

/** Every entity class, for the ORM configuration. */
export const allEntities = () => domains.flatMap((domain) => domain.entities ?? []);

/** Every endpoint of every interface. */
export const allRoutes = () => domains.flatMap((domain) => domain.routes ?? []);

/** The permission catalogue assembled from the domains. */
export const permissionCatalogue = () =>
  buildPermissionCatalogue(domains.map((domain) => domain.permissions ?? {}));

/** Workflow modules to bundle into the worker. */
export const workflowModules = () =>
  domains.flatMap((domain) => (domain.workflows ? [domain.workflows] : []));

/** Long-running process kinds, by workflow id prefix. */
export const processKinds = () => domains.flatMap((domain) => domain.processes ?? []);
