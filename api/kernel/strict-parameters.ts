// Numbers in paths and query strings are read exactly as written: a plain decimal integer (or, for number
// parameters, a plain decimal fraction), never what JavaScript's number parsing makes of `0x1`, `+1`,
// ` 1`, `1e3`, `1.0` or `01`. The contract validator coerces parameters from text with that parsing, so
// this check runs first, on the raw text, for the route the request matched.
import type { TSchema } from '@sinclair/typebox';
import { DomainError } from '../../domain/errors.js';
import type { AnyRoute } from './route.js';
import { pageQuery } from './schemas.js';

const PLAIN_INTEGER = /^-?(?:0|[1-9][0-9]*)$/;
const PLAIN_NUMBER = /^-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?$/;

type NumericKind = 'integer' | 'number';

/** Whether a parameter's schema (or its array's items) is an integer or a number. */
function numericKind(schema: TSchema | undefined): NumericKind | undefined {
  if (!schema) return undefined;
  const type = (schema as { type?: unknown }).type;
  if (type === 'integer' || type === 'number') return type;
  if (type === 'array') return numericKind((schema as { items?: TSchema }).items);
  return undefined;
}

const propertiesOf = (schema: TSchema | undefined): Record<string, TSchema> =>
  ((schema as { properties?: Record<string, TSchema> } | undefined)?.properties ?? {}) as Record<
    string,
    TSchema
  >;

function assertPlain(kind: NumericKind, name: string, raw: string): void {
  if (!(kind === 'integer' ? PLAIN_INTEGER : PLAIN_NUMBER).test(raw))
    throw new DomainError(
      '0022',
      `${name} must be written as a plain decimal ${kind === 'integer' ? 'integer' : 'number'}`,
    );
}

/** The numeric parameters of a route, by where they are: path names with their segment index, query names. */
export interface NumericParameters {
  path: { name: string; segment: number; kind: NumericKind }[];
  query: Map<string, NumericKind>;
}

/** Reads a route's numeric parameters once, from its declaration and its full path template. */
export function numericParametersOf(route: AnyRoute, template: string): NumericParameters {
  const pathSchemas = propertiesOf(route.params);
  const path = template.split('/').flatMap((part, segment) => {
    const name = /^\{([^}]+)\}$/.exec(part)?.[1];
    const kind = name === undefined ? undefined : numericKind(pathSchemas[name]);
    return name !== undefined && kind ? [{ name, segment, kind }] : [];
  });
  const query = new Map<string, NumericKind>();
  // A paged route's `page` and `size` are query parameters the kernel adds (api/kernel/openapi.ts).
  const declared = {
    ...(route.paged ? pageQuery(route.paged.defaultSize, route.paged.maxSize) : {}),
    ...propertiesOf(route.query),
  };
  for (const [name, schema] of Object.entries(declared)) {
    const kind = numericKind(schema);
    if (kind) query.set(name, kind);
  }
  return { path, query };
}

/** Refuses (0022) a numeric path or query parameter not written as a plain decimal. */
export function assertPlainNumbers(
  parameters: NumericParameters,
  path: string,
  query: Record<string, unknown>,
): void {
  if (parameters.path.length > 0) {
    const segments = path.split('/');
    for (const { name, segment, kind } of parameters.path) {
      let raw: string;
      try {
        raw = decodeURIComponent(segments[segment] ?? '');
      } catch {
        throw new DomainError('0022', `${name} is not correctly percent-encoded`);
      }
      assertPlain(kind, name, raw);
    }
  }
  for (const [name, kind] of parameters.query) {
    const value = query[name];
    if (value === undefined) continue;
    for (const raw of Array.isArray(value) ? value : [value])
      if (typeof raw === 'string') assertPlain(kind, name, raw);
  }
}
