// GBFS test helpers: MobilityData's official JSON schemas (vendored in vendor/gbfs-json-schema, draft-07)
// compiled with ajv and ajv-formats, a fetch of every file of both published versions, and raw requests
// whose paths reach the server exactly as written (fetch would normalise `..` and `//`).
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { createRequire } from 'node:module';
import { gbfsFiles, type GbfsVersionPath } from '../../domain/gbfs-vocabulary.js';

const require = createRequire(import.meta.url);
const Ajv = require('ajv').default as new (options: object) => AjvLike;
const addFormats = require('ajv-formats').default as (ajv: AjvLike) => void;

interface AjvLike {
  compile(schema: object): ValidateFunction;
}
interface ValidateFunction {
  (data: unknown): boolean;
  errors?: unknown[] | null;
}

const schemaRoot = path.resolve(
  path.dirname(new URL(import.meta.url).pathname),
  '../../vendor/gbfs-json-schema',
);
const folder: Record<GbfsVersionPath | 'manifest', string> = { v3: 'v3.0', v2: 'v2.3', manifest: 'v3.0' };

/** One compiled validator per vendored schema file, per version folder. */
const validators = new Map<string, ValidateFunction>();
function validatorFor(version: GbfsVersionPath | 'manifest', file: string): ValidateFunction {
  const key = `${folder[version]}/${file}`;
  let validate = validators.get(key);
  if (!validate) {
    // strict off: the official schemas carry `errorMessage`, an ajv-errors keyword.
    const ajv = new Ajv({ strict: false, allErrors: true });
    addFormats(ajv);
    const schema = JSON.parse(fs.readFileSync(path.join(schemaRoot, `${key}.json`), 'utf8')) as object;
    validate = ajv.compile(schema);
    validators.set(key, validate);
  }
  return validate;
}

/** The schema errors of one file (empty when valid). */
export function gbfsSchemaErrors(
  version: GbfsVersionPath | 'manifest',
  file: string,
  body: unknown,
): unknown[] {
  const validate = validatorFor(version, file);
  return validate(body) ? [] : (validate.errors ?? ['invalid']);
}

export interface FeedReply {
  status: number;
  headers: Headers;
  text: string;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

/** GET one feed path (anonymous). */
export async function getFeed(
  baseUrl: string,
  feedPath: string,
  headers: Record<string, string> = {},
): Promise<FeedReply> {
  const response = await fetch(`${baseUrl}${feedPath}`, { headers });
  const text = await response.text();
  let body: unknown;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = text;
  }
  return { status: response.status, headers: response.headers, text, body };
}

/** Every file of both versions of a system, checked against its schema; answers the bodies by `v3/file`. */
export async function allFeedFiles(
  baseUrl: string,
  tenant: string,
  systemId: string,
): Promise<{ bodies: Map<string, FeedReply['body']>; errors: Record<string, unknown[]> }> {
  const bodies = new Map<string, FeedReply['body']>();
  const errors: Record<string, unknown[]> = {};
  for (const version of ['v3', 'v2'] as const)
    for (const file of gbfsFiles[version]) {
      const reply = await getFeed(baseUrl, `/v1/${tenant}/gbfs/${systemId}/${version}/${file}.json`);
      if (reply.status !== 200) {
        errors[`${version}/${file}`] = [`status ${reply.status}: ${reply.text.slice(0, 200)}`];
        continue;
      }
      bodies.set(`${version}/${file}`, reply.body);
      const found = gbfsSchemaErrors(version, file, reply.body);
      if (found.length) errors[`${version}/${file}`] = found.slice(0, 5);
    }
  return { bodies, errors };
}

/** A request whose path is sent byte for byte as given. */
export function rawRequest(
  baseUrl: string,
  method: string,
  rawPath: string,
): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  const url = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const request = http.request(
      { host: url.hostname, port: url.port, method, path: rawPath },
      (response) => {
        let body = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (body += chunk));
        response.on('end', () =>
          resolve({ status: response.statusCode ?? 0, headers: response.headers, body }),
        );
      },
    );
    request.on('error', reject);
    request.end();
  });
}
