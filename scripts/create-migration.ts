// Developer tool: diffs the entities against the migration snapshot and writes a new migration file
// into db/migrations (then list it in db/migrations/index.ts). Needs DATABASE_URL of a migrated database.
//
// `--snapshot-only` rewrites db/migrations/.snapshot-fleetflow.json from the entities without a database,
// e.g. after merging branches that each added a migration (the schema test in tests/platform.test.ts
// checks that the migrations together still build exactly that schema).
import { MikroORM } from '@mikro-orm/postgresql';
import { connectOrm, ormOptions } from '../db/orm.js';

if (process.argv[2] === '--snapshot-only') {
  // The constructor discovers the entities without connecting.
  const orm = new MikroORM(ormOptions('postgresql://unused@127.0.0.1:1/unused'));
  const migrator = orm.migrator as unknown as { storeCurrentSchema(): Promise<void> };
  await migrator.storeCurrentSchema();
  console.log('snapshot rewritten from the entities');
  process.exit(0);
}

const databaseUrl = process.env.DATABASE_URL;
if (!databaseUrl) {
  console.error('DATABASE_URL is required (a database migrated to the latest migration)');
  process.exit(2);
}
const name = process.argv[2];
const orm = await connectOrm(databaseUrl);
try {
  const result = await orm.migrator.create(undefined, false, false, name);
  console.log(result.fileName ? `created ${result.fileName}` : 'no schema changes');
} finally {
  await orm.close();
}
