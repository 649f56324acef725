// Four costs express-openapi-validator (5.6.x, pinned) pays, removed without changing what it decides.
// Two on every request: its metadata middleware finds a request's operation by walking every path of the
// document in order, compiling each with path-to-regexp and testing it, until one matches: for a document
// of a few hundred paths that walk was the largest cost of a light request.
//   1. Compiling is a pure function of the path text and its flags: the compiled forms are remembered.
//   2. The walk only needs the paths that can match: those whose resource segment (the one after
//      `/v1/{tenant}/{interface}`) is the request's, plus any with a parameter there. The walk runs over
//      that subset, in the document's order, so the first match is the same one.
// And one when a validator starts (its first request): its schema preprocessor resolves every `$ref` of
// every operation through `ajv.getSchema`, which compiles the referenced schema only to hand back the
// schema object; a document of hundreds of operations spent 1.5-2 s of CPU per validator on it.
//   3. A local reference (`#/components/...`) is read from the document by its JSON pointer: the same
//      object ajv hands back. Any other reference, or one the pointer does not reach, goes to ajv as before.
// And one for each operation and response the first time it is validated: the schema it hands to ajv
// wraps the one body or response in the document's whole `paths` and `components`, and ajv walks all of
// it (every key, for `$id`s and anchors) before compiling. A suite's API spent two thirds of its CPU there
// (a profile of tests/fleet-vehicles.test.ts: 44 of 63 s in ajv's and json-schema-traverse's walk).
//   4. The wrapper goes to ajv with only the components its references reach (followed transitively) and
//      without `paths`: what the compiled validator resolves is the same objects at the same pointers.
//      When a reference has any other form (deeper pointer, `$id`, another document), the whole wrapper
//      goes to ajv as before.
import { createRequire } from 'node:module';
import type { RequestHandler } from 'express';

const require = createRequire(import.meta.url);

type PathToRegexp = (path: unknown, options?: Record<string, unknown>) => unknown;

/** The validator's view of its document (the fields the metadata middleware reads). */
interface OpenApiContextLike {
  expressRouteMap: Record<string, unknown>;
}

type ApplyOpenApiMetadata = (context: OpenApiContextLike, responseApiDoc: unknown) => RequestHandler;

/** Index of the resource segment: `['', 'v1', ':tenant', 'back', 'vehicles', …]`. */
const RESOURCE_SEGMENT = 4;

function resourceSegmentOf(path: string): string | undefined {
  return path.split('/', RESOURCE_SEGMENT + 1)[RESOURCE_SEGMENT]?.toLowerCase();
}

/** A segment of an express route that matches more than its own text. */
function isLiteral(segment: string | undefined): segment is string {
  return segment !== undefined && !/[:*()?+{}[\]\\]/.test(segment);
}

function rememberCompiledPaths(): void {
  const validatorRequire = createRequire(require.resolve('express-openapi-validator'));
  const pathToRegexpModule = validatorRequire('path-to-regexp') as { pathToRegexp: PathToRegexp };
  const compile = pathToRegexpModule.pathToRegexp;
  if ((compile as { remembering?: true }).remembering) return;
  // One map per flag combination, keyed by the path string itself: the validator passes the same path
  // strings on every request, so lookups reuse their hashes.
  const compiled = [0, 1, 2, 3].map(() => new Map<string, unknown>());
  const remembering: PathToRegexp = (path, options = {}) => {
    // The validator passes exactly { sensitive, strict }; anything else is compiled as asked.
    let onlyFlags = typeof path === 'string';
    for (const name in options) if (name !== 'sensitive' && name !== 'strict') onlyFlags = false;
    if (!onlyFlags) return compile(path, options);
    const byPath = compiled[(options.sensitive ? 1 : 0) + (options.strict ? 2 : 0)]!;
    let result = byPath.get(path as string);
    if (result === undefined) {
      result = compile(path, options);
      if (byPath.size < 10_000) byPath.set(path as string, result);
    }
    return result;
  };
  pathToRegexpModule.pathToRegexp = Object.assign(remembering, { remembering: true as const });
}

function narrowRouteLookup(): void {
  const metadataModule = require(
    require.resolve('express-openapi-validator/dist/middlewares/openapi.metadata.js'),
  ) as { applyOpenApiMetadata: ApplyOpenApiMetadata & { narrowing?: true } };
  const apply = metadataModule.applyOpenApiMetadata;
  if (apply.narrowing) return;
  const narrowing: ApplyOpenApiMetadata = (context, responseApiDoc) => {
    const routes = Object.keys(context.expressRouteMap);
    const segmentOf = new Map(routes.map((route) => [route, route.split('/')[RESOURCE_SEGMENT]]));
    const resources = new Set(
      [...segmentOf.values()].filter(isLiteral).map((segment) => segment.toLowerCase()),
    );
    /** The original middleware over the routes that can match a request for `resource`, in order. */
    const over = (resource: string | undefined): RequestHandler => {
      const subset: Record<string, unknown> = {};
      for (const route of routes) {
        const segment = segmentOf.get(route);
        if (!isLiteral(segment) || segment.toLowerCase() === resource)
          subset[route] = context.expressRouteMap[route];
      }
      // Everything else the middleware reads comes from the real context.
      const view = Object.create(context as object, {
        expressRouteMap: { value: subset, enumerable: true },
      }) as OpenApiContextLike;
      return apply(view, responseApiDoc);
    };
    const byResource = new Map([...resources].map((resource) => [resource, over(resource)]));
    const otherwise = over(undefined);
    return (req, res, next) => {
      // The validator matches `originalUrl` (its `useRequestUrl` is off).
      const path = req.originalUrl;
      const query = path.indexOf('?');
      const resource = resourceSegmentOf(query === -1 ? path : path.slice(0, query));
      return ((resource !== undefined && byResource.get(resource)) || otherwise)(req, res, next);
    };
  };
  metadataModule.applyOpenApiMetadata = Object.assign(narrowing, { narrowing: true as const });
}

/** The object a local JSON pointer (`#/a/b~1c`) names in `document`, or undefined. */
function atPointer(document: unknown, ref: string): unknown {
  let node = document;
  for (const raw of ref.slice(2).split('/')) {
    let key: string;
    try {
      key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    } catch {
      return undefined; // malformed escapes: left to ajv, as before
    }
    if (node === null || typeof node !== 'object' || !Object.hasOwn(node, key)) return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

interface SchemaPreprocessorLike {
  apiDoc: unknown;
  resolvedSchemaCache: Map<string, unknown>;
}

type ResolveSchema = (this: SchemaPreprocessorLike, schema: unknown) => unknown;

function resolveLocalReferencesDirectly(): void {
  const preprocessorModule = require(
    require.resolve('express-openapi-validator/dist/middlewares/parsers/schema.preprocessor.js'),
  ) as { SchemaPreprocessor: { prototype: { resolveSchema: ResolveSchema & { direct?: true } } } };
  const prototype = preprocessorModule.SchemaPreprocessor.prototype;
  const resolve = prototype.resolveSchema;
  if (resolve.direct) return;
  const direct: ResolveSchema = function (schema) {
    const ref = (schema as { $ref?: unknown } | null | undefined)?.$ref;
    if (typeof ref === 'string' && ref.startsWith('#/') && !this.resolvedSchemaCache.has(ref)) {
      const found = atPointer(this.apiDoc, ref);
      if (found !== undefined) {
        this.resolvedSchemaCache.set(ref, found);
        return found;
      }
    }
    return resolve.call(this, schema);
  };
  prototype.resolveSchema = Object.assign(direct, { direct: true as const });
}

/** A wrapper schema the validator compiles: one body, parameter set or response, and the document's parts. */
interface WrappedSchema {
  paths?: unknown;
  components?: Record<string, Record<string, unknown> | undefined>;
  [keyword: string]: unknown;
}

const componentReference = /^#\/components\/([^/]+)\/([^/]+)$/;
/** Keywords that name a schema other than by a `#/components/{kind}/{name}` pointer. */
const otherNaming = new Set(['$id', 'id', '$anchor', '$dynamicAnchor', '$dynamicRef', '$recursiveRef']);

/**
 * `wrapper` with `components` narrowed to what its references reach and without `paths`, or undefined
 * when a reference or naming keyword has another form (then ajv gets the whole wrapper).
 */
export function reachableOnly(wrapper: WrappedSchema): WrappedSchema | undefined {
  const { components, ...own } = wrapper;
  delete own.paths;
  if (!components || typeof components !== 'object') return undefined;
  const reached: Record<string, Record<string, unknown>> = {};
  const seen = new Set<object>();
  const pending: unknown[] = [own];
  while (pending.length > 0) {
    const node = pending.pop();
    if (node === null || typeof node !== 'object' || seen.has(node)) continue;
    seen.add(node);
    if (Array.isArray(node)) {
      pending.push(...(node as unknown[]));
      continue;
    }
    for (const [key, value] of Object.entries(node)) {
      if (otherNaming.has(key) && typeof value === 'string') return undefined;
      if (key !== '$ref' || typeof value !== 'string') {
        pending.push(value);
        continue;
      }
      const match = componentReference.exec(value);
      if (!match || /[~%]/.test(value)) return undefined;
      const [kind, name] = [match[1]!, match[2]!];
      const group = components[kind];
      if (!group || !Object.hasOwn(group, name)) return undefined;
      (reached[kind] ??= {})[name] = group[name];
      pending.push(group[name]);
    }
  }
  return { ...own, components: reached };
}

type UseAjvCache = (ajv: unknown, schema: object, ajvCacheKey: string) => unknown;

function compileReachableComponentsOnly(): void {
  const utilModule = require(require.resolve('express-openapi-validator/dist/middlewares/util.js')) as {
    useAjvCache: UseAjvCache & { reachable?: true };
  };
  const useAjvCache = utilModule.useAjvCache;
  if (useAjvCache.reachable) return;
  // Called only when the validator builds an operation's validators (it keeps them per route).
  const reachable: UseAjvCache = (ajv, schema, ajvCacheKey) =>
    useAjvCache(ajv, reachableOnly(schema as WrappedSchema) ?? schema, ajvCacheKey);
  utilModule.useAjvCache = Object.assign(reachable, { reachable: true as const });
}

/** Installs the speedups (idempotent); call before creating a validator. */
export function speedUpOpenApiValidator(): void {
  rememberCompiledPaths();
  narrowRouteLookup();
  resolveLocalReferencesDirectly();
  compileReachableComponentsOnly();
}
