// What provisioning a cached tool from a registry (Temporal binaries, schemathesis) has in common.
import fs from 'node:fs/promises';

/** Build or work directories older than this are leftovers of killed or superseded runs. */
export const staleProvisioningAgeMs = 60 * 60 * 1000;

const inFlight = new Map<string, Promise<string>>();

/** Runs `provision` once per cache path at a time: concurrent callers in this process share its promise. */
export function provisionOnce(cachePath: string, provision: () => Promise<string>): Promise<string> {
  let pending = inFlight.get(cachePath);
  if (!pending) {
    pending = provision().finally(() => inFlight.delete(cachePath));
    inFlight.set(cachePath, pending);
  }
  return pending;
}

/** Removes a leftover build path when it is older than `staleProvisioningAgeMs`. */
export async function removeIfStale(fullPath: string, now = Date.now()): Promise<void> {
  const stat = await fs.lstat(fullPath).catch(() => undefined);
  if (stat && now - stat.mtimeMs > staleProvisioningAgeMs)
    await fs.rm(fullPath, { recursive: true, force: true });
}
