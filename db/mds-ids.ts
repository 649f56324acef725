// The MDS identifiers of fleetflow's rows (docs/mds.md, "Identifiers"): name-based UUIDs (version 5,
// RFC 9562 5.5: SHA-1 over a namespace and a name) of the tenant and the row, so every id is stable across
// requests and processes, needs no stored mapping, and reveals no internal id.
import { createHash } from 'node:crypto';

/** fleetflow's MDS namespace (a random version 4 UUID, fixed once). */
export const MDS_NAMESPACE = '5f1c3a52-8d1e-4b7a-9c36-0e2d4a6b8f11';

const bytesOf = (uuid: string) => Buffer.from(uuid.replace(/-/g, ''), 'hex');

/** The 16 bytes of a SHA-1 digest as a version 5 UUID. */
function asUuidV5(hash: Buffer): string {
  hash[6] = (hash[6]! & 0x0f) | 0x50;
  hash[8] = (hash[8]! & 0x3f) | 0x80;
  const hex = hash.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** UUID version 5 of `name` in `namespace`. */
export function uuidV5(namespace: string, name: string): string {
  return asUuidV5(createHash('sha1').update(bytesOf(namespace)).update(name, 'utf8').digest());
}

/** The kinds of rows MDS names. */
export type MdsIdKind = 'provider' | 'device' | 'trip' | 'event' | 'telemetry';

/** SHA-1 with fleetflow's namespace already hashed in: each id copies it and hashes only its name. */
const namespaced = createHash('sha1').update(bytesOf(MDS_NAMESPACE));
/**
 * Ids of providers, devices and trips, which every poll names again (a page of 1,000 statuses names each
 * vehicle and the provider several times): remembered, at most this many, emptied when full.
 */
const remembered = new Map<string, string>();
const REMEMBERED_IDS = 200_000;

/**
 * The MDS id of a row: UUIDv5 of `{tenant}/{kind}/{key}` in fleetflow's namespace (the provider's key is
 * empty: one provider id per tenant). Events add the step of their fold (`{eventId}.{step}`).
 */
export function mdsId(tenant: string, kind: MdsIdKind, key: string | number = ''): string {
  const name = `${tenant}/${kind}/${key}`;
  const known = remembered.get(name);
  if (known !== undefined) return known;
  const id = asUuidV5(namespaced.copy().update(name, 'utf8').digest());
  if (kind === 'provider' || kind === 'device' || kind === 'trip') {
    if (remembered.size >= REMEMBERED_IDS) remembered.clear();
    remembered.set(name, id);
  }
  return id;
}
