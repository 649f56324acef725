// Developer tool: diffs the entities against the migration snapshot and writes a new migration file
// into db/migrations (then list it in its domain's `migrations`, composition/domains/<domain>.ts). Diffs against DATABASE_URL when set (a
// database migrated to the head), else against a throwaway embedded PostgreSQL it migrates itself.
//
// `--snapshot-only` rewrites db/migrations/.snapshot-fleetflow.json from the entities without a database,
// e.g. after merging branches that each added a migration (the schema test in tests/platform.test.ts
// checks that the migrations together still build exactly that schema).
import { MikroORM } from '@mikro-orm/postgresql';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { migrateDatabase } from '../db/orm.js';
import { startEmbeddedPostgres } from '../platform/embedded-postgres.js';
import { connectOrm, ormOptions } from '../composition/orm.js';

if (process.argv[2] === '--snapshot-only') {
  // The constructor discovers the entities without connecting.
  const orm = new MikroORM(ormOptions('postgresql://unused@127.0.0.1:1/unused'));
  const migrator = orm.migrator as unknown as { storeCurrentSchema(): Promise<void> };
  await migrator.storeCurrentSchema();
  console.log('snapshot rewritten from the entities');
  process.exit(0);
}

// Without DATABASE_URL a throwaway embedded PostgreSQL is migrated to the head and diffed against.
const name = process.argv[2];
const throwaway = process.env.DATABASE_URL
  ? undefined
  : await (async () => {
      const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'fleetflow-migration-'));
      const server = await startEmbeddedPostgres({ dataDir, port: 0 });
      return { dataDir, server };
    })();
const orm = await connectOrm(process.env.DATABASE_URL ?? throwaway!.server.url);
try {
  if (throwaway) await migrateDatabase(orm);
  const result = await orm.migrator.create(undefined, false, false, name);
  console.log(
    result.fileName
      ? `created ${result.fileName} (list it in its domain's migrations, composition/domains/<domain>.ts)`
      : 'no schema changes',
  );
} finally {
  await orm.close();
  if (throwaway) {
    await throwaway.server.stop();
    await fs.rm(throwaway.dataDir, { recursive: true, force: true });
  }
}
