// What the platform assembles from the domain list: each function is a loop over it.
import { buildPermissionCatalogue } from '../domain/permissions.js';
import { domains } from './domains/index.js';

export { domains };

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
