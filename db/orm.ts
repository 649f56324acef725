import { MikroORM, defineConfig, type EntityManager, type Options } from '@mikro-orm/postgresql';
import type { Constructor, EntityClass } from '@mikro-orm/core';
import { Migrator, type Migration } from '@mikro-orm/migrations';
import path from 'node:path';
import { TENANT_FILTER } from './entities/TenantScoped.js';
import { repoRoot } from '../platform/config.js';
import { ReadCache, readCacheOf } from './read-cache.js';
import { prepareInTransactions } from './prepared.js';

/** A migration as the migrator lists it: its class and the name recorded when it ran. */
export interface NamedMigration {
  name: string;
  class: Constructor<Migration>;
}

/** What the database holds: every entity and every migration (the composition root gathers them from the domains). */
export interface DatabaseSchema {
  entities: readonly EntityClass<unknown>[];
  migrations: readonly NamedMigration[];
}

/** ORM options shared by the API, the worker, scripts and tests; schema changes only through migrations. */
export function ormOptions(
  databaseUrl: string,
  schema: DatabaseSchema,
  overrides: Partial<Options> = {},
): Options {
  return defineConfig({
    clientUrl: databaseUrl,
    entities: [...schema.entities],
    extensions: [Migrator],
    migrations: {
      path: path.join(repoRoot, 'db/migrations'),
      migrationsList: [...schema.migrations],
      snapshot: true,
      snapshotName: '.snapshot-fleetflow',
      silent: true,
    },
    // Entities are declared with explicit types; never touch the schema outside migrations.
    ensureDatabase: false,
    // Every query is confined by the tenant filter of its own entity, and rows only reference rows of
    // their tenant, so joining each referenced table just to re-apply the filter to it is pure cost
    // (it doubled the joins of every vehicle and rental read). Populated relations are still filtered.
    autoJoinRefsForFilters: false,
    debug: process.env.DEBUG_SQL === '1',
    pool: { min: 0, max: Number(process.env.DB_POOL_MAX ?? 10) },
    // Grants, branch trees and category configuration read per request, emptied by writes (db/read-cache.ts).
    subscribers: [new ReadCache()],
    // The hot statements run prepared inside transactions too (db/prepared.ts).
    driverOptions: { onPoolCreated: prepareInTransactions },
    ...overrides,
  });
}

/**
 * Connects the ORM, its read cache listening to the other processes' writes (db/read-cache.ts); the
 * caller owns `close()`, which also ends the listener.
 */
export async function connectOrm(
  databaseUrl: string,
  schema: DatabaseSchema,
  overrides: Partial<Options> = {},
): Promise<MikroORM> {
  const orm = await MikroORM.init(ormOptions(databaseUrl, schema, overrides));
  await readCacheOf(orm.em).listen(orm.em);
  return orm;
}

/** Applies pending migrations; safe to run on every start (a no-op when up to date). */
export async function migrateDatabase(orm: MikroORM): Promise<string[]> {
  const applied = await orm.migrator.up();
  return applied.map((migration) => migration.name);
}

export type { MikroORM, EntityManager };

/** A fresh EntityManager confined to one tenant by the always-on tenant filter. */
export function tenantEm(orm: MikroORM, tenant: string): EntityManager {
  const em = orm.em.fork();
  em.setFilterParams(TENANT_FILTER, { tenantId: tenant });
  return em;
}

/** Runs `work` in one transaction confined to the tenant; everything it writes commits or nothing does. */
export async function inTenantTransaction<T>(
  orm: MikroORM,
  tenant: string,
  work: (em: EntityManager) => Promise<T>,
): Promise<T> {
  return tenantEm(orm, tenant).transactional(async (tx) => {
    tx.setFilterParams(TENANT_FILTER, { tenantId: tenant });
    return work(tx);
  });
}
