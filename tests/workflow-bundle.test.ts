// The workflow bundle the worker process loads (composition/worker.ts, the only builder) carries the whole
// error catalogue: a workflow that refuses with any code must find its entry in the sandbox, or the API
// answers 500 0099 instead of the refusal (the bundle once left the domains' tables out).
// Its shared modules keep no state of a run.
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

// The bundle's workflow modules, error tables and the domain code they import are evaluated once per
// worker thread and shared by every run (`preloadModules` in buildWorkflowBundle): a variable at module
// scope would carry one run's state into the next, on this worker and not on another, which breaks
// replay. Only the interceptor module, evaluated per run, may keep a run's state there.
test('the modules every workflow run shares keep no variable at module scope', async () => {
  const fs = await import('node:fs/promises');
  const perRun = new Set(['workflows/observability-interceptors.ts']);
  const offenders: string[] = [];
  for (const directory of ['workflows', 'domain']) {
    for (const name of await fs.readdir(directory)) {
      const file = `${directory}/${name}`;
      if (!name.endsWith('.ts') || perRun.has(file)) continue;
      const source = await fs.readFile(file, 'utf8');
      for (const line of source.split('\n'))
        if (/^(export\s+)?(let|var)\s/.test(line)) offenders.push(`${file}: ${line.trim()}`);
    }
  }
  expect(offenders).toEqual([]);
});
