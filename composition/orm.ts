// The ORM of every fleetflow process: the entities and migrations of all domains.
import type { Options } from '@mikro-orm/postgresql';
import {
  connectOrm as connectOrmWith,
  ormOptions as ormOptionsWith,
  type DatabaseSchema,
  type MikroORM,
} from '../db/orm.js';
import { allEntities, allMigrations } from './registry.js';

/** Every domain's entities and migrations. */
export const databaseSchema = (): DatabaseSchema => ({
  entities: allEntities(),
  migrations: allMigrations(),
});

/** ORM options of the API, the worker, scripts and tests. */
export const ormOptions = (databaseUrl: string, overrides: Partial<Options> = {}): Options =>
  ormOptionsWith(databaseUrl, databaseSchema(), overrides);

/** Connects the ORM over every domain's entities; the caller owns `close()`. */
export const connectOrm = (databaseUrl: string, overrides: Partial<Options> = {}): Promise<MikroORM> =>
  connectOrmWith(databaseUrl, databaseSchema(), overrides);
