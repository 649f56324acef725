// MDS test helpers: the Open Mobility Foundation's MDS 2.0 schemas (vendored in vendor/mds-openapi, the
// JSON copies of its YAML) compiled with ajv (JSON Schema 2020-12, as OpenAPI 3.1) and ajv-formats, and a
// check of an MDS answer against the official response schema of its operation (reference/provider.yaml).
//
// Two things the loader does to the published files, both explained in docs/mds.md ("Schemas"):
// - models/vehicle, event and trip end in a `oneOf` over the four modes whose branches overlap (a
//   micromobility event also matches the car-share and delivery-robot branches, so `oneOf` refuses every
//   valid record); each record is validated with that `oneOf` narrowed to its own mode's branch.
// - the modes' event schemas write `contains: [list]`, which is no schema; it becomes `contains: {enum:
//   list}`, its evident meaning (trip events carry trip_ids).
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import type { MdsMode } from '../../domain/mds.js';

const require = createRequire(import.meta.url);
const Ajv2020 = require('ajv/dist/2020').default as new (options: object) => AjvLike;
const addFormats = require('ajv-formats').default as (ajv: AjvLike) => void;

interface AjvLike {
  addSchema(schema: object, key: string): void;
  compile(schema: object): ValidateFunction;
}
interface ValidateFunction {
  (data: unknown): boolean;
  errors?: unknown[] | null;
}
type Json = Record<string, unknown>;

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../../vendor/mds-openapi/json');
const BASE = 'https://mds-openapi.vendored/';

function vendoredFiles(): Map<string, Json> {
  const files = new Map<string, Json>();
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.name.endsWith('.json'))
        files.set(
          path.relative(root, full).replace(/\.json$/, '.yaml'),
          JSON.parse(fs.readFileSync(full, 'utf8')) as Json,
        );
    }
  };
  walk(root);
  return files;
}

/** `contains: [a, b]` (no schema) as the `contains: {enum: [a, b]}` it means, at any depth. */
function repairContains(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(repairContains);
  if (!node || typeof node !== 'object') return node;
  const out: Json = {};
  for (const [key, value] of Object.entries(node as Json))
    out[key] = key === 'contains' && Array.isArray(value) ? { enum: value } : repairContains(value);
  return out;
}

/** models/vehicle, event, trip with the modes' `oneOf` narrowed to one mode's branch. */
function narrowToMode(schema: Json, mode: MdsMode): Json {
  const allOf = schema.allOf as Json[] | undefined;
  if (!allOf) return schema;
  return {
    ...schema,
    allOf: allOf.map((part) => {
      const branches = part.oneOf as Json[] | undefined;
      const own = branches?.find((branch) => String(branch.$ref ?? '').includes(`/modes/${mode}/`));
      return own ? { $ref: own.$ref } : part;
    }),
  };
}

const validators = new Map<string, ValidateFunction>();
const ajvs = new Map<MdsMode, AjvLike>();

function ajvFor(mode: MdsMode): AjvLike {
  let ajv = ajvs.get(mode);
  if (!ajv) {
    ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false });
    addFormats(ajv);
    for (const [file, published] of vendoredFiles()) {
      let schema = repairContains(published) as Json;
      if (['models/vehicle.yaml', 'models/event.yaml', 'models/trip.yaml'].includes(file))
        schema = narrowToMode(schema, mode);
      // Each file is known by its own path, so relative $refs resolve as in the repository.
      const rest = { ...schema };
      delete rest.$id;
      delete rest.$schema;
      ajv.addSchema(rest, `${BASE}${file}`);
    }
    ajvs.set(mode, ajv);
  }
  return ajv;
}

/** The provider operations whose answers the tests check, by their path in reference/provider.yaml. */
export type MdsOperation =
  | '/vehicles'
  | '/vehicles/{device_id}'
  | '/vehicles/status'
  | '/vehicles/status/{device_id}'
  | '/trips'
  | '/telemetry'
  | '/events/historical'
  | '/events/recent';

function validatorFor(operation: MdsOperation, mode: MdsMode): ValidateFunction {
  const key = `${mode} ${operation}`;
  let validate = validators.get(key);
  if (!validate) {
    const pointer = `/paths/${operation.replace(/~/g, '~0').replace(/\//g, '~1')}/get/responses/200/content/application~1json/schema`;
    validate = ajvFor(mode).compile({ $ref: `${BASE}reference/provider.yaml#${pointer}` });
    validators.set(key, validate);
  }
  return validate;
}

/** The list of records of each operation's answer. */
const recordsKey: Record<MdsOperation, string> = {
  '/vehicles': 'vehicles',
  '/vehicles/{device_id}': 'vehicles',
  '/vehicles/status': 'vehicles_status',
  '/vehicles/status/{device_id}': 'vehicles_status',
  '/trips': 'trips',
  '/telemetry': 'telemetry',
  '/events/historical': 'events',
  '/events/recent': 'events',
};

/**
 * The official schema's errors for an MDS answer (empty when valid). Records are checked under their own
 * mode (`modeOfDevice`), the envelope (version, links, last_updated, ttl) once per mode present.
 */
export function mdsSchemaErrors(
  operation: MdsOperation,
  body: Json,
  modeOfDevice: (deviceId: string) => MdsMode,
): unknown[] {
  const key = recordsKey[operation];
  const records = (body[key] ?? []) as Json[];
  const byMode = new Map<MdsMode, Json[]>();
  for (const record of records) {
    const mode = modeOfDevice(String(record.device_id));
    byMode.set(mode, [...(byMode.get(mode) ?? []), record]);
  }
  if (byMode.size === 0) byMode.set('micromobility', []);
  const errors: unknown[] = [];
  for (const [mode, own] of byMode) {
    const validate = validatorFor(operation, mode);
    // Single-record operations require exactly one record: check them as they were answered.
    const part = key in body && records.length === own.length ? body : { ...body, [key]: own };
    if (!validate(part)) errors.push(...(validate.errors ?? ['invalid']).map((error) => ({ mode, error })));
  }
  return errors;
}

/** The modes of the vendored schemas' event states, for the mapping's unit test. */
export function modeEventTypes(mode: MdsMode): Record<string, string[]> {
  const file = vendoredFiles().get(`models/modes/${mode}/event.yaml`)!;
  const out: Record<string, string[]> = {};
  for (const branch of file.oneOf as Json[]) {
    const properties = branch.properties as Json;
    const state = (properties.vehicle_state as Json).const as string;
    out[state] = ((properties.event_types as Json).items as Json).enum as string[];
  }
  return out;
}
