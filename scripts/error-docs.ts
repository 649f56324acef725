// docs/errors.md, generated from the catalogue: the hand-written head (docs/errors.head.md), then each
// domain's codes in a table, formatted as prettier formats the repository's Markdown.
import fs from 'node:fs';
import path from 'node:path';
import * as prettier from 'prettier';
import { repoRoot } from '../platform/config.js';
import { kernelErrors, type CatalogueEntry } from '../domain/errors.js';
import { domains, errorCatalogue } from '../composition/registry.js';

/** Where the generated document lives. */
export const errorDocsPath = path.join(repoRoot, 'docs/errors.md');

const cell = (text: string) => text.replaceAll('|', '\\|').replaceAll('\n', ' ');

function table(entries: readonly CatalogueEntry[]): string {
  const rows = entries.map((entry) =>
    [
      `\`${entry.code}\``,
      cell(entry.meaning),
      String(entry.httpStatus),
      entry.retryable ? 'yes' : 'no',
      entry.source,
      cell(entry.when ?? ''),
    ].join(' | '),
  );
  return [
    '| Code | Meaning | Status | Retryable | Source | When |',
    '| --- | --- | --- | --- | --- | --- |',
    ...rows.map((row) => `| ${row} |`),
  ].join('\n');
}

/** The whole of docs/errors.md, formatted. */
export async function errorCatalogueDocument(): Promise<string> {
  const options = (await prettier.resolveConfig(errorDocsPath)) ?? {};
  return prettier.format(unformattedDocument(), { ...options, filepath: errorDocsPath });
}

function unformattedDocument(): string {
  errorCatalogue(); // fails on codes no domain lists
  const head = fs.readFileSync(path.join(repoRoot, 'docs/errors.head.md'), 'utf8').trimEnd();
  const sections = [
    { name: 'kernel', file: 'domain/errors.ts', codes: Object.values(kernelErrors) },
    ...domains.flatMap((domain) =>
      domain.errors
        ? [
            {
              name: domain.name,
              file: `domain/${domain.name}.errors.ts`,
              codes: Object.values(domain.errors),
            },
          ]
        : [],
    ),
  ];
  const body = sections
    .map(
      ({ name, file, codes }) =>
        `### ${name}\n\nDeclared in \`${file}\` (${codes.length} codes).\n\n${table(codes)}`,
    )
    .join('\n\n');
  return `${head}\n\n## Codes by domain\n\n<!-- Generated from the domains' error tables by \`npm run docs:errors\`; edit the tables or docs/errors.head.md, not this part. -->\n\n${body}\n`;
}
