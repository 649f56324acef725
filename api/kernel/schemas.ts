// Schema building blocks for route declarations (TypeBox: plain JSON Schema plus static types).
// Every value a client sends is bounded here: integers and numbers have both limits, strings a maximum
// length (or an enum, pattern or format), arrays a maximum size; tests/contract.test.ts checks it.
import {
  Type,
  type ObjectOptions,
  type SchemaOptions,
  type TSchema,
  type TString,
  type TUnion,
  type TNull,
} from '@sinclair/typebox';

const componentNames = new WeakMap<object, string>();
const componentsByName = new Map<string, object>();

/**
 * Names a schema as an OpenAPI component: the documents reference it as `#/components/schemas/{name}`.
 * A name given to two schemas fails at start (the documents would silently keep only one of them).
 */
export function component<T extends TSchema>(name: string, schema: T): T {
  const named = componentsByName.get(name);
  if (named !== undefined && named !== schema)
    throw new Error(`the OpenAPI component name ${name} is given to two different schemas`);
  componentsByName.set(name, schema);
  componentNames.set(schema, name);
  return schema;
}

/** The component name of a schema registered with `component`, if any. */
export function componentName(schema: object): string | undefined {
  return componentNames.get(schema);
}

/** PostgreSQL `integer` ids: 1 to 2^31-1. */
export const Id = (options: SchemaOptions = {}) =>
  Type.Integer({ format: 'int32', minimum: 1, maximum: 2147483647, ...options });

/** A bounded integer. */
export const Int = (minimum: number, maximum: number, options: SchemaOptions = {}) =>
  Type.Integer({ minimum, maximum, ...options });

/** Text without NUL characters (PostgreSQL cannot store them); the default pattern of `Str`. */
export const noNul = '^[^\\u0000]*$';

/** A bounded string without NUL characters; `maxLength` is mandatory so no field accepts megabytes. */
export const Str = (maxLength: number, options: SchemaOptions = {}) =>
  Type.String({ maxLength, pattern: noNul, ...options });

/**
 * A user auth id as tasks, routes and events record who acted: `client:<id>` or `operator:<id>` (the
 * acting subject of a token), or a crew name (seed-crew). It begins with a letter, is printable, has no
 * white space at either end and at most 200 characters; numbers (`-1`, `0`, 2^63) and `..` are malformed.
 */
export const UserAuthId = (options: SchemaOptions = {}) =>
  Type.String({
    minLength: 1,
    maxLength: 200,
    pattern: '^[A-Za-z](?:[^\\u0000-\\u001f\\u007f]{0,198}[^\\s\\u0000-\\u001f\\u007f])?$',
    ...options,
  });

/**
 * A map with keys of the given string schema. TypeBox writes string-keyed records as
 * `patternProperties`; without `additionalProperties: false` a key the pattern refuses (one with NUL, say)
 * would be accepted with any value, so every dictionary a client sends goes through this.
 */
export const Dictionary = <K extends TString, V extends TSchema>(
  key: K,
  value: V,
  options: ObjectOptions = {},
) => Type.Record(key, value, { additionalProperties: false, ...options });

/** A flat map of NUL-free scalars: free-form properties clients attach to records (UI settings, app hints). */
export const ScalarProperties = (maxProperties: number, options: ObjectOptions = {}) =>
  Dictionary(
    Str(100, { minLength: 1 }),
    Type.Union([Str(2000), Type.Number({ minimum: -1e15, maximum: 1e15 }), Type.Boolean(), Type.Null()]),
    { maxProperties, ...options },
  );

export const DateTime = (options: SchemaOptions = {}) =>
  Type.String({ format: 'date-time', maxLength: 40, ...options });

/**
 * A `DateTime()` value as an instant PostgreSQL can hold: any offset the format allows (±23:59, beyond
 * PostgreSQL's ±15:59) is resolved here, a leap second (`:60`) counts as the second before, and years
 * are clamped to 1900–9999, so every schema-valid date-time filters instead of failing.
 */
export function clampedInstant(value: string): Date {
  let ms = Date.parse(value);
  if (!Number.isFinite(ms)) ms = Date.parse(value.replace(/:60(?=(\.[0-9]+)?(Z|z|[+-]))/, ':59'));
  if (!Number.isFinite(ms)) ms = Date.UTC(1900, 0, 1);
  return new Date(Math.min(Math.max(ms, Date.UTC(1900, 0, 1)), Date.UTC(9999, 11, 31)));
}

/** `T | null`: the field is always present in responses, null when unknown. */
export const Nullable = <T extends TSchema>(schema: T): TUnion<[T, TNull]> =>
  Type.Union([schema, Type.Null()]);

/** A string enum from a readonly list of literals. */
export const StringEnum = <T extends readonly string[]>(values: T, options: SchemaOptions = {}) =>
  Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options });

/** The tenant path segment of every interface. */
export const TenantParam = Str(32, {
  pattern: '^[a-z0-9][a-z0-9-]{1,31}$',
  description: 'Tenant identifier (usually 8 characters; the demo tenant is `demo`).',
});

export const Position = component(
  'Position',
  Type.Object(
    {
      lat: Type.Number({ minimum: -90, maximum: 90 }),
      lng: Type.Number({ minimum: -180, maximum: 180 }),
    },
    { additionalProperties: false, description: 'WGS84 position.' },
  ),
);

export const ErrorBody = component(
  'Error',
  Type.Object(
    {
      errorCode: Type.String({ description: 'Catalogue code, e.g. R102 or AUTH005.' }),
      userMessage: Type.String(),
      httpStatus: Type.Integer(),
      traceId: Type.String(),
      failureReason: Type.Optional(
        Type.Object(
          { code: Type.Optional(Type.String()), description: Type.Optional(Type.String()) },
          {
            additionalProperties: false,
            description: "The vehicle's own reason when it refused or failed a command (V502).",
          },
        ),
      ),
    },
    { additionalProperties: false },
  ),
);

/** Zero-based page number and page size of paged lists (the X-Total-* headers describe the whole). */
export const pageQuery = (defaultSize: number, maxSize = 200) => ({
  page: Int(0, 1_000_000, { default: 0, description: 'Zero-based page number.' }),
  size: Int(1, maxSize, { default: defaultSize, description: 'Page size.' }),
});

/** The spec's paging headers. */
export const pagingHeaderNames = ['X-Total-Count', 'X-Total-Pages', 'X-Page-Number', 'X-Page-Size'] as const;
