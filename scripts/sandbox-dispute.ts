// Opens a dispute (chargeback) on a sandbox gateway charge, as a cardholder's bank would, and delivers
// the sandbox's signed DISPUTE_OPENED webhook to the running API's sandbox webhook endpoint, the way the
// gateway posts it: the payment and its invoice become DISPUTED. For demos and ops on test deployments.
//   DATABASE_URL=… npx tsx scripts/sandbox-dispute.ts <tenant> <chargeReference> [reason]
// The API is reached at PUBLIC_BASE_URL (or --api <url>); the sandbox's secret must match the API's.
import { parseArgs } from 'node:util';
import { connectOrm } from '../composition/orm.js';
import { paymentGatewaysFor } from '../composition/payment-gateways.js';
import { loadConfig } from '../platform/config.js';
import { sandboxOf } from '../platform/payment-gateway/index.js';
import { SandboxRefusal } from '../platform/payment-gateway/sandbox.js';

const { values, positionals } = parseArgs({ options: { api: { type: 'string' } }, allowPositionals: true });
const [tenant, chargeReference, reason = 'fraudulent'] = positionals;
const config = loadConfig();
if (!tenant || !chargeReference || !config.databaseUrl) {
  console.error(
    'usage: DATABASE_URL=… npx tsx scripts/sandbox-dispute.ts <tenant> <chargeReference> [reason] [--api <url>]',
  );
  process.exit(2);
}
const orm = await connectOrm(config.databaseUrl);
try {
  const sandbox = sandboxOf(paymentGatewaysFor(orm, config))!;
  const webhook = await sandbox.openDispute(chargeReference, reason);
  const base = (values.api ?? config.publicBaseUrl).replace(/\/+$/, '');
  const url = `${base}/v1/${encodeURIComponent(tenant)}/back/payment-gateways/sandbox/webhooks`;
  const response = await fetch(url, { method: 'POST', headers: webhook.headers, body: webhook.body });
  console.log(`${response.status} ${await response.text()}`);
  if (!response.ok) process.exitCode = 1;
} catch (error) {
  if (!(error instanceof SandboxRefusal)) throw error;
  console.error(`${error.reason}: ${error.message}`);
  process.exitCode = 1;
} finally {
  await orm.close();
}
