// What the platform assembles from the domain list: each function is a loop over it.
import { buildPermissionCatalogue } from '../domain/permissions.js';
import { kernelErrors, registeredErrorCodes, type CatalogueEntry } from '../domain/errors.js';
import type { NamedMigration } from '../db/orm.js';
import { domains } from './domains/index.js';

export { domains };

/** Every entity class, for the ORM configuration. */
export const allEntities = () => domains.flatMap((domain) => domain.entities ?? []);

/**
 * Every domain's migrations, ordered by their timestamped class names (the names the migrator records);
 * one name twice fails.
 */
export function allMigrations(): NamedMigration[] {
  const migrations = domains.flatMap((domain) =>
    (domain.migrations ?? []).map((migration) => ({ name: migration.name, class: migration })),
  );
  const names = new Set(migrations.map((migration) => migration.name));
  if (names.size !== migrations.length) throw new Error('a migration is listed by two domains');
  return migrations.sort((a, b) => a.name.localeCompare(b.name));
}

/** Every entity timeline, in domain order. */
export const allTimelines = () => domains.flatMap((domain) => domain.timelines ?? []);

/** Every endpoint of every interface. */
export const allRoutes = () => {
  const platform = { timelines: allTimelines() };
  return domains.flatMap((domain) =>
    typeof domain.routes === 'function' ? domain.routes(platform) : (domain.routes ?? []),
  );
};

/** Every domain's public handlers (outside the interface documents), in domain order. */
export const publicHandlers = () => domains.flatMap((domain) => domain.publicHandlers ?? []);

/** The permission catalogue assembled from the domains. */
export const permissionCatalogue = () =>
  buildPermissionCatalogue(domains.map((domain) => ({ domain: domain.name, ...domain.permissions })));

/** Workflow modules to bundle into the worker. */
export const workflowModules = () =>
  domains.flatMap((domain) => (domain.workflows ? [domain.workflows] : []));

/** Long-running process kinds, by workflow id prefix. */
export const processKinds = () => domains.flatMap((domain) => domain.processes ?? []);

/**
 * The error catalogue: the kernel's codes, then every domain's, in domain order. A code declared twice
 * fails when its second table is imported; a table imported but listed by no domain fails here.
 */
export function errorCatalogue(): readonly CatalogueEntry[] {
  const tables = [kernelErrors, ...domains.flatMap((domain) => (domain.errors ? [domain.errors] : []))];
  const entries = tables.flatMap((table) => Object.values(table));
  const listed = new Set(entries.map((entry) => entry.code));
  const unlisted = registeredErrorCodes().filter(({ entry }) => !listed.has(entry.code));
  if (unlisted.length > 0)
    throw new Error(
      `error codes registered by no domain of the list: ${unlisted.map(({ domain, entry }) => `${entry.code} (${domain})`).join(', ')}`,
    );
  return entries;
}
