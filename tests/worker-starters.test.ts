// The worker's starters limited to some tenants (WORKER_STARTER_TENANTS, as the suites' and a per-tenant
// deployment's workers run them): each selects that tenant's pending work and nothing else. The tenant
// list once reached PostgreSQL as a malformed array literal, so a limited starter did nothing at all.
import { startTestBackend, uniqueTenant, type TestBackend } from './support/stack.js';
import { ensureRecurringTaskProcesses } from '../workers/recurring-task-starter.js';
import { ensureExportSchedules } from '../workers/export-schedule-starter.js';
import { startPendingPaymentWorkflows } from '../workers/payment-starter.js';
import { ensureVoucherStateSchedules } from '../workers/voucher-state-starter.js';

let backend: TestBackend;

beforeAll(async () => {
  backend = await startTestBackend();
}, 120_000);

afterAll(async () => {
  await backend?.stop();
});

const temporal = () => ({ client: backend.client, taskQueue: backend.taskQueue });

test('each starter runs for a list of tenants, once or twice, and a tenant without work is left alone', async () => {
  const mine = [backend.seed.tenant];
  const nobody = [uniqueTenant('none')];
  for (const tenants of [mine, mine, nobody]) {
    await expect(ensureRecurringTaskProcesses(backend.orm, temporal(), { tenants })).resolves.toEqual(
      expect.any(Number),
    );
    await expect(ensureExportSchedules(backend.orm, temporal(), { tenants })).resolves.toEqual(
      expect.any(Number),
    );
    await expect(startPendingPaymentWorkflows(backend.orm, temporal(), 0, tenants)).resolves.toEqual(
      expect.any(Number),
    );
    await expect(ensureVoucherStateSchedules(backend.orm, temporal(), { tenants })).resolves.toEqual(
      expect.any(Number),
    );
  }
  // Nothing of another tenant is picked up.
  expect(await ensureRecurringTaskProcesses(backend.orm, temporal(), { tenants: nobody })).toBe(0);
  expect(await startPendingPaymentWorkflows(backend.orm, temporal(), 0, nobody)).toBe(0);
});
