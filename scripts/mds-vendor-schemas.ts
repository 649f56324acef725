// Vendors the Open Mobility Foundation's MDS 2.0 OpenAPI (models and the provider reference) into
// vendor/mds-openapi/: the YAML files as published, their LICENSE, and a JSON copy of each (converted once
// with js-yaml) that the tests load into ajv. Reads a local git mirror of openmobilityfoundation/mds-openapi:
//   npx tsx scripts/mds-vendor-schemas.ts [/path/to/mds-openapi.git] [commit]
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import yaml from 'js-yaml';
import { repoRoot } from '../platform/config.js';

const mirror = process.argv[2] ?? '/work/.mirror/openmobilityfoundation+mds-openapi/repo';
const commit = process.argv[3] ?? 'HEAD';
const target = path.join(repoRoot, 'vendor', 'mds-openapi');
const git = (...args: string[]) => execFileSync('git', ['-C', mirror, ...args], { encoding: 'utf8' });

const sha = git('rev-parse', commit).trim();
const files = git('ls-tree', '-r', '--name-only', sha)
  .split('\n')
  .filter((file) => file.startsWith('models/') || file === 'reference/provider.yaml' || file === 'LICENSE');

fs.rmSync(target, { recursive: true, force: true });
for (const file of files) {
  const text = git('show', `${sha}:${file}`);
  const original = path.join(target, file);
  fs.mkdirSync(path.dirname(original), { recursive: true });
  fs.writeFileSync(original, text);
  if (!file.endsWith('.yaml')) continue;
  const converted = path.join(target, 'json', file.replace(/\.yaml$/, '.json'));
  fs.mkdirSync(path.dirname(converted), { recursive: true });
  fs.writeFileSync(converted, `${JSON.stringify(yaml.load(text), null, 2)}\n`);
}
fs.writeFileSync(
  path.join(target, 'README.md'),
  `# MDS 2.0 OpenAPI (vendored)

The Open Mobility Foundation's OpenAPI description of the Mobility Data Specification 2.0, copied from
https://github.com/openmobilityfoundation/mds-openapi at commit \`${sha}\` by
\`scripts/mds-vendor-schemas.ts\` (run it again to update; nothing here is edited by hand).

- \`models/\`, \`reference/provider.yaml\`: the files as published (YAML).
- \`json/\`: the same files converted to JSON with js-yaml, which the tests load into ajv
  (\`tests/support/mds-schemas.ts\`) to validate every MDS response fleetflow serves (docs/mds.md).
- \`LICENSE\`: Creative Commons Attribution 4.0 International, the licence of MDS and its OpenAPI.
`,
);
console.log(`vendored ${files.length} files of mds-openapi ${sha} into ${path.relative(repoRoot, target)}`);
