// A cheap fingerprint of everything a tenant's GBFS feeds are built from (docs/feeds.md): per table the
// row count and an XOR of each row's id and transaction id (`xmin`, new with every insert or update), so
// any write — by the ORM, by raw SQL (rental steps, the telemetry ingestor) or in another process —
// changes it, and a snapshot is rebuilt only when it does. Read by the feeds' snapshot store.
import type { MikroORM } from './orm.js';
import { preparedRows } from './prepared.js';

const tables: readonly (readonly [table: string, where: string])[] = [
  ['vehicle', ''],
  ['vehicle_category', ''],
  ['feed_system', ''],
  ['feed_vehicle_type', ''],
  ['branch', ''],
  ['station', ''],
  ['physical_station', ''],
  ['physical_station_slot', ''],
  ['area', ''],
  ['pricing_assignment', ''],
  ['pricing_bundle', ''],
  ['pricing_bundle_version', ''],
  ['booking', ` and state in ('BOOKED', 'APPROVED', 'DELIVERED')`],
];

const statement = `select concat_ws(':', ${tables
  .map(
    ([table, where]) =>
      `(select count(*) || '.' || coalesce(bit_xor(hashtext(id::text || '.' || xmin::text)), 0) from ${table} where tenant_id = $1${where})`,
  )
  .join(', ')}) as fingerprint`;

/** The tenant's change fingerprint: equal strings mean no row the feeds read was written in between. */
export async function gbfsChangeFingerprint(orm: MikroORM, tenant: string): Promise<string> {
  const [row] = await preparedRows<{ fingerprint: string }>(orm.em.fork(), statement, [tenant]);
  return row?.fingerprint ?? '';
}
