// Writes docs/errors.md from the error catalogue the domains assemble (`npm run docs:errors`); a test
// checks the file is current.
import fs from 'node:fs';
import path from 'node:path';
import { repoRoot } from '../platform/config.js';
import { errorCatalogueDocument, errorDocsPath } from './error-docs.js';

fs.writeFileSync(errorDocsPath, await errorCatalogueDocument());
console.log(`wrote ${path.relative(repoRoot, errorDocsPath)}`);
