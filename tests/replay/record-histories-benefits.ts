// Records the voucher state keeper's histories for the replay tests (see record-histories.ts): a run with
// nothing due, and one two days later on the workflow's clock that activates a PENDING voucher (with its
// credit).
import { Client } from '@temporalio/client';
import { Voucherable } from '../../db/entities/Voucherable.js';
import { inTenantTransaction, tenantEm } from '../../db/orm.js';
import { grantVouchersTo } from '../../db/voucher-grants.js';
import {
  VOUCHER_STATES_WORKFLOW_TYPE,
  type VoucherStatesResult,
} from '../../workflows/voucher-states.messages.js';
import { startTestBackend, type TestBackend } from '../support/stack.js';
import { recordHistory } from './history-files.js';
import { DAY, group } from './recording.js';

group('voucher states workflow', () => {
  let backend: TestBackend;

  beforeAll(async () => {
    backend = await startTestBackend({ timeSkipping: true });
  }, 120_000);

  afterAll(async () => {
    await backend?.stop();
  });

  /** One run as the schedule starts it, through a plain client (no time skipped while it waits). */
  async function run(id: string) {
    const plain = new Client({ connection: backend.testEnv!.connection });
    const handle = await plain.workflow.start(VOUCHER_STATES_WORKFLOW_TYPE, {
      workflowId: id,
      taskQueue: backend.taskQueue,
      args: [{ tenant: backend.seed.tenant }],
    });
    return { handle, result: (await handle.result()) as VoucherStatesResult };
  }

  test('nothing due', async () => {
    const { handle, result } = await run('voucher-states-replay-nothing');
    expect(result.moved).toBe(0);
    await recordHistory('voucher-states-nothing', handle);
  });

  test('two days later: a PENDING voucher activated with its credit', async () => {
    const em = tenantEm(backend.orm, backend.seed.tenant);
    const template = em.create(Voucherable, {
      businessUnitId: backend.seed.businessUnitId,
      branchId: backend.seed.branchId,
      type: 'CustomerCare',
      status: 'ACTIVE',
      name: 'Replay credit',
      currency: 'EUR',
      benefits: [{ type: 'Value', amount: '5.00' }],
      createdBy: 'replay',
    });
    await em.persist(template).flush();
    const now = Date.now();
    await inTenantTransaction(backend.orm, backend.seed.tenant, async (tx) => {
      const customerId = backend.seed.customerIds[0]!;
      await grantVouchersTo(tx, {
        voucherableId: template.id,
        owner: { customerId },
        source: { kind: 'OPERATOR', reference: 'replay:pending' },
        validFrom: new Date(now + DAY),
      });
    });
    await backend.testEnv!.sleep(2 * DAY);
    const { handle, result } = await run('voucher-states-replay-moved');
    expect(result.moved).toBeGreaterThanOrEqual(1);
    await recordHistory('voucher-states-moved', handle);
  });
});
