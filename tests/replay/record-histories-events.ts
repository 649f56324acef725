// Records the event partition workflow's histories for the replay tests (see record-histories.ts): a run
// with nothing to create (the migration made the months ahead), and one three months later on the
// workflow's clock that creates the months after the old horizon.
import { Client } from '@temporalio/client';
import { EVENT_PARTITION_MONTHS_AHEAD } from '../../domain/events.js';
import {
  EVENT_PARTITIONS_WORKFLOW_TYPE,
  type EventPartitionsResult,
} from '../../workflows/event-partitions.messages.js';
import { startTestBackend, type TestBackend } from '../support/stack.js';
import { recordHistory } from './history-files.js';
import { DAY, group } from './recording.js';

group('event partitions workflow', () => {
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
    const handle = await plain.workflow.start(EVENT_PARTITIONS_WORKFLOW_TYPE, {
      workflowId: id,
      taskQueue: backend.taskQueue,
      args: [{ monthsAhead: EVENT_PARTITION_MONTHS_AHEAD }],
    });
    return { handle, result: (await handle.result()) as EventPartitionsResult };
  }

  test('nothing to create', async () => {
    const { handle, result } = await run('event-partitions-replay-up-to-date');
    expect(result.created).toEqual([]);
    await recordHistory('event-partitions-up-to-date', handle);
  });

  test('three months later: the months after the old horizon', async () => {
    await backend.testEnv!.sleep(100 * DAY);
    const { handle, result } = await run('event-partitions-replay-created');
    expect(result.created.length).toBeGreaterThan(0);
    await recordHistory('event-partitions-created', handle);
  });
});
