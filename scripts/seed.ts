// `npm run seed`: seeds the demo tenant into DATABASE_URL (after migrating it) when it is missing.
// `npm start` does this by itself; this is for a database you run yourself.
import { connectOrm, migrateDatabase } from '../db/orm.js';
import { DEMO_TENANT, seedDemoTenant } from '../db/seed.js';

const databaseUrl = process.env.DATABASE_URL;
if (!databaseUrl) {
  console.error('DATABASE_URL is required');
  process.exit(2);
}
const orm = await connectOrm(databaseUrl);
try {
  const applied = await migrateDatabase(orm);
  if (applied.length) console.log(`applied ${applied.join(', ')}`);
  const { created } = await seedDemoTenant(orm.em);
  console.log(
    created ? `seeded demo tenant "${DEMO_TENANT}"` : `demo tenant "${DEMO_TENANT}" already present`,
  );
} finally {
  await orm.close();
}
