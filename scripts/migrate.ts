// Applies pending migrations to DATABASE_URL (docker-compose's one-shot `migrate` service, ops; `npm run seed`).
// Flags: --seed-demo seeds the demo tenant when missing; --write-fleet <file> writes the demo fleet
// for the vehicle simulator (SIMULATOR_FLEET_FILE).
import fs from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { migrateDatabase, tenantEm } from '../db/orm.js';
import { DEMO_TENANT } from '../db/seed.js';
import { simulatorFleet } from '../db/fleet.js';
import { connectOrm } from '../composition/orm.js';
import { seedDemoTenant } from '../composition/seed.js';
import { loadConfig } from '../platform/config.js';
import { connectObjectStore } from '../platform/object-store.js';

const { values } = parseArgs({
  options: { 'seed-demo': { type: 'boolean' }, 'write-fleet': { type: 'string' } },
});
const databaseUrl = process.env.DATABASE_URL;
if (!databaseUrl) {
  console.error('DATABASE_URL is required');
  process.exit(2);
}
const orm = await connectOrm(databaseUrl);
try {
  const applied = await migrateDatabase(orm);
  console.log(applied.length ? `applied ${applied.join(', ')}` : 'database schema is up to date');
  if (values['seed-demo']) {
    // The demo photo goes to the configured object store (its bucket created when missing); none without one.
    const objectStore = await connectObjectStore(loadConfig());
    const { created } = await seedDemoTenant(orm.em, { objectStore }).finally(() => objectStore?.close());
    console.log(
      created ? `seeded demo tenant "${DEMO_TENANT}"` : `demo tenant "${DEMO_TENANT}" already present`,
    );
  }
  const fleetFile = values['write-fleet'];
  if (fleetFile) {
    await fs.mkdir(path.dirname(fleetFile), { recursive: true });
    await fs.writeFile(fleetFile, JSON.stringify(await simulatorFleet(tenantEm(orm, DEMO_TENANT)), null, 2));
    console.log(`wrote the demo fleet to ${fleetFile}`);
  }
} finally {
  await orm.close();
}
