// `npm run build:workflows [file]`: writes the workflow bundle the worker runs (composition/worker.ts) to a
// file, by default .data/workflow-bundle.js; a worker started with FLEETFLOW_WORKFLOW_BUNDLE=<file> loads
// it instead of bundling at start (an image build, several replicas). Rebuild it whenever the code changes.
import fs from 'node:fs/promises';
import path from 'node:path';
import { loadConfig } from '../platform/config.js';
import { buildWorkflowBundle } from '../composition/worker.js';

const file = path.resolve(process.argv[2] ?? path.join(loadConfig().dataDir, 'workflow-bundle.js'));
const { code } = await buildWorkflowBundle();
await fs.mkdir(path.dirname(file), { recursive: true });
await fs.writeFile(file, code);
console.log(`workflow bundle written to ${file} (${(code.length / 1024).toFixed(0)} KiB)`);
