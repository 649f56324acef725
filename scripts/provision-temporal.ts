// Downloads the Temporal CLI (local dev server) and the time-skipping test server into the cache,
// so `npm start` and `npm test` never wait for a download. A no-op when both are already present.
import { loadConfig } from '../platform/config.js';
import { ensureTemporalCli, ensureTemporalTestServer } from '../platform/temporal-binaries.js';

async function main(): Promise<void> {
  const started = performance.now();
  const config = loadConfig();
  const [cli, testServer] = await Promise.all([ensureTemporalCli(config), ensureTemporalTestServer(config)]);
  const seconds = ((performance.now() - started) / 1000).toFixed(2);
  console.log(`Temporal CLI:         ${cli}`);
  console.log(`Temporal test server: ${testServer}`);
  console.log(`Provisioned in ${seconds} s`);
}

main().catch((err: unknown) => {
  console.error(`Provisioning Temporal binaries failed: ${err instanceof Error ? err.message : String(err)}`);
  process.exitCode = 1;
});
