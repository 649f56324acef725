// Rewrites the generated permission list of docs/access.md from the domains' declarations
// (`npx tsx scripts/generate-access-docs.ts`); tests/roles-api.test.ts checks it is current.
import fs from 'node:fs';
import path from 'node:path';
import { repoRoot } from '../platform/config.js';
import { accessDocsPath, accessDocument } from './access-docs.js';

fs.writeFileSync(accessDocsPath, await accessDocument());
console.log(`wrote ${path.relative(repoRoot, accessDocsPath)}`);
