// Downloads the Temporal CLI (local dev server) and the time-skipping test server into the cache, and
// builds stripe-mock (the Stripe adapter's test double) and versitygw (the embedded S3-compatible object
// store), both from the Go module proxy, so `npm start` and
// `npm test` never wait for a download. A no-op when everything is already present.
import { loadConfig } from '../platform/config.js';
import { ensureStripeMock } from '../platform/stripe-mock.js';
import { ensureVersitygw } from '../platform/versitygw.js';
import { ensureTemporalCli, ensureTemporalTestServer } from '../platform/temporal-binaries.js';

async function main(): Promise<void> {
  const started = performance.now();
  const config = loadConfig();
  const [cli, testServer, stripeMock, versitygw] = await Promise.all([
    ensureTemporalCli(config),
    ensureTemporalTestServer(config),
    ensureStripeMock(config),
    ensureVersitygw(config),
  ]);
  const seconds = ((performance.now() - started) / 1000).toFixed(2);
  console.log(`Temporal CLI:         ${cli}`);
  console.log(`Temporal test server: ${testServer}`);
  console.log(`stripe-mock:          ${stripeMock.binary}`);
  console.log(`versitygw:            ${versitygw}`);
  console.log(`Provisioned in ${seconds} s`);
}

main().catch((err: unknown) => {
  console.error(`Provisioning failed: ${err instanceof Error ? err.message : String(err)}`);
  process.exitCode = 1;
});
