// Applies pending migrations to DATABASE_URL (used by docker-compose's one-shot `migrate` service and by ops).
import { connectOrm, migrateDatabase } from '../db/orm.js';

const databaseUrl = process.env.DATABASE_URL;
if (!databaseUrl) {
  console.error('DATABASE_URL is required');
  process.exit(2);
}
const orm = await connectOrm(databaseUrl);
try {
  const applied = await migrateDatabase(orm);
  console.log(applied.length ? `applied ${applied.join(', ')}` : 'database schema is up to date');
} finally {
  await orm.close();
}
