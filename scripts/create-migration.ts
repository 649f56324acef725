// Developer tool: diffs the entities against the migration snapshot and writes a new migration file
// into db/migrations (then list it in db/migrations/index.ts). Needs DATABASE_URL of a migrated database.
import { connectOrm } from '../db/orm.js';

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
