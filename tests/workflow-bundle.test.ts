// The workflow bundle the worker process loads (composition/worker.ts, the only builder) carries the whole
// error catalogue: a workflow that refuses with any code must find its entry in the sandbox, or the API
// answers 500 0099 instead of the refusal (the bundle once left the domains' tables out).
import { loadWorkflowBundle } from '../composition/worker.js';
import { errorCatalogue } from '../composition/registry.js';

test('every catalogue code is declared inside the production workflow bundle', async () => {
  const { code } = await loadWorkflowBundle();
  const declared = (entry: string) => new RegExp(`code:\\s*["'\`]${entry}["'\`]`).test(code);
  const missing = errorCatalogue()
    .map((entry) => entry.code)
    .filter((entry) => !declared(entry));
  expect(missing).toEqual([]);
}, 120_000);
