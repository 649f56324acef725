// Replays every recorded history (tests/histories, recorded by `npm run record:histories`) against the
// current workflow bundle, the one the worker runs: a change to workflow code that would make a running
// workflow take another path on replay (a command added, removed or reordered) fails here with Temporal's
// DeterminismViolationError. Replay runs no activities and needs no server, database or broker.
import { fileURLToPath } from 'node:url';
import { Worker, type WorkflowBundle } from '@temporalio/worker';
import { workflowModules } from '../composition/registry.js';
import { historyFromJson, recordedHistories } from './replay/history-files.js';
import { loadWorkflowBundle } from '../composition/worker.js';

const histories = recordedHistories();
let bundle: WorkflowBundle;

beforeAll(async () => {
  bundle = await loadWorkflowBundle();
}, 120_000);

test('every workflow the worker runs has recorded histories', async () => {
  const workflowTypes: string[] = [];
  for (const module of workflowModules()) {
    const exported = (await import(fileURLToPath(module))) as Record<string, unknown>;
    workflowTypes.push(...Object.keys(exported).filter((name) => typeof exported[name] === 'function'));
  }
  expect(workflowTypes.length).toBeGreaterThan(0);
  const recorded = new Set(histories.map((history) => history.workflowType));
  expect(workflowTypes.filter((type) => !recorded.has(type))).toEqual([]);
});

test.each(histories.map((history) => [history.name, history] as const))(
  '%s replays deterministically',
  async (_name, recorded) => {
    await Worker.runReplayHistory(
      { workflowBundle: bundle, replayName: recorded.name },
      historyFromJson(recorded.history),
      recorded.workflowId,
    );
  },
);
