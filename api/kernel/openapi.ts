// Assembles the OpenAPI 3.1 documents from the route declarations: paths, parameters, bodies, every
// response (success schemas and headers, and the catalogue codes behind each error status), security,
// permissions and deprecations. Schemas registered with `component()` become shared components.
import type { TObject, TSchema } from '@sinclair/typebox';
import { catalogueEntry, type ErrorCode } from '../../domain/errors.js';
import { componentName, ErrorBody, pagingHeaderNames, pageQuery, TenantParam } from './schemas.js';
import { authenticationOf, fullPath, type AnyRoute, type ApiInterface } from './route.js';

type Json = Record<string, unknown>;

/**
 * Converts a TypeBox schema to plain JSON Schema, turning registered components into `$ref`s. In request
 * positions (`inline`) nested components are written out in full: express-openapi-validator cannot
 * resolve a `$ref` nested inside a request schema; a request body's top level may still be a `$ref`.
 */
function toJsonSchema(
  schema: unknown,
  components: Map<string, Json>,
  options: { inline?: boolean; isRoot?: boolean } = {},
): unknown {
  const inline = options.inline ?? false;
  if (Array.isArray(schema)) return schema.map((item) => toJsonSchema(item, components, { inline }));
  if (schema === null || typeof schema !== 'object') return schema;
  const name = options.isRoot ? undefined : componentName(schema);
  if (name !== undefined && !inline) {
    if (!components.has(name)) {
      components.set(name, {}); // placeholder first: recursive components terminate
      components.set(name, toJsonSchema(schema, components, { isRoot: true }) as Json);
    }
    return { $ref: `#/components/schemas/${name}` };
  }
  const plain: Json = {};
  for (const key of Object.keys(schema))
    plain[key] = toJsonSchema((schema as Json)[key], components, { inline });
  return plain;
}

/** A request body: a `$ref` to its component (written out without nested `$ref`s), or the schema itself. */
function requestBodySchema(schema: TSchema, components: Map<string, Json>): unknown {
  const name = componentName(schema);
  const inlined = toJsonSchema(schema, components, { inline: true, isRoot: true }) as Json;
  if (name === undefined) return inlined;
  components.set(name, inlined);
  return { $ref: `#/components/schemas/${name}` };
}

/** The standard errors every route of its kind can answer, next to the ones it declares. */
export function errorCodesOf(route: AnyRoute): ErrorCode[] {
  const codes: ErrorCode[] = ['0022', '0025'];
  const authentication = authenticationOf(route);
  if (route.body) codes.push('AUTH001', '0023', '0024');
  if (authentication !== 'none') codes.push('JWT006', 'AUTH005', '0001', '0005', 'AUTH002');
  if (authentication !== 'required') codes.push('AUTH051');
  if ('permission' in route.access) codes.push('AUTH002', 'branchOf' in route.access ? 'B404' : 'B405');
  if ('customer' in route.access) codes.push('AUTH222');
  if (route.rateLimit) codes.push('RL101');
  // A write can meet another request's transaction head-on (a deadlock the API retried in vain).
  if (route.method !== 'get') codes.push('0031');
  return [...new Set([...codes, ...route.errors])];
}

function errorResponses(route: AnyRoute): Record<string, Json> {
  const byStatus = new Map<number, string[]>();
  for (const code of errorCodesOf(route)) {
    const { httpStatus, meaning } = catalogueEntry(code);
    byStatus.set(httpStatus, [...(byStatus.get(httpStatus) ?? []), `\`${code}\` ${meaning}`]);
  }
  return Object.fromEntries(
    [...byStatus.entries()]
      .sort(([a], [b]) => a - b)
      .map(([status, lines]) => [
        String(status),
        {
          description: `Catalogue error:\n- ${lines.join('\n- ')}`,
          // A rate limit says when to come back (RFC 9110 10.2.3).
          ...(status === 429
            ? {
                headers: {
                  'Retry-After': {
                    description: 'Seconds to wait before the next attempt',
                    schema: { type: 'integer', minimum: 1 },
                  },
                },
              }
            : {}),
          content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
        },
      ]),
  );
}

function parametersOf(route: AnyRoute, components: Map<string, Json>): Json[] {
  const parameters: Json[] = [
    {
      name: 'tenant',
      in: 'path',
      required: true,
      schema: toJsonSchema(TenantParam, components, { inline: true }),
    },
  ];
  const add = (location: 'path' | 'query' | 'header', object: TObject | undefined) => {
    if (!object) return;
    const required = new Set(object.required ?? []);
    for (const [name, schema] of Object.entries(object.properties as Record<string, TSchema>)) {
      const { description, ...rest } = toJsonSchema(schema, components, { inline: true }) as Json;
      const parameter: Json = {
        name,
        in: location,
        required: location === 'path' || required.has(name),
        schema: rest,
      };
      if (description) parameter.description = description;
      if (rest.type === 'array') Object.assign(parameter, { style: 'form', explode: true });
      // Values are percent-decoded by the query parser; reserved characters (`sort=id,desc`, a `+`) are data.
      if (location === 'query') parameter.allowReserved = true;
      parameters.push(parameter);
    }
  };
  add('path', route.params);
  if (route.paged) {
    const paging = pageQuery(route.paged.defaultSize, route.paged.maxSize);
    add('query', { ...route.query, properties: { ...route.query?.properties, ...paging } } as TObject);
  } else add('query', route.query);
  add('header', route.headers);
  return parameters;
}

function accessDescription(route: AnyRoute): string {
  const access = route.access;
  if ('branchOf' in access)
    return `**Permission:** \`${access.permission}\` on the branch of ${access.branchOf}.`;
  if ('businessUnitOf' in access)
    return `**Permission:** \`${access.permission}\` on the business unit of ${access.businessUnitOf}.`;
  if ('anyCaller' in access) return `**Access:** any authenticated caller; ${access.anyCaller}`;
  if ('customer' in access)
    return `**Access:** the signed-in customer (a customer token; an API client token alone answers \`0001\`); ${access.customer}`;
  return `**Access:** anonymous; ${access.anonymous}`;
}

function operationOf(route: AnyRoute, components: Map<string, Json>): Json {
  const responses: Json = {};
  for (const [status, response] of Object.entries(route.responses as Record<string, Json>)) {
    const headers: Json = {};
    for (const [name, header] of Object.entries((response.headers ?? {}) as Record<string, Json>))
      headers[name] = { description: header.description, schema: toJsonSchema(header.schema, components) };
    if (route.paged && status === '200')
      for (const name of pagingHeaderNames) headers[name] = { schema: { type: 'integer' } };
    responses[status] = {
      description: response.description,
      ...(Object.keys(headers).length ? { headers } : {}),
      ...(response.files
        ? {
            content: Object.fromEntries(
              (response.files as string[]).map((type) => [
                type,
                { schema: { type: 'string', contentMediaType: type } },
              ]),
            ),
          }
        : response.schema
          ? {
              content: {
                [(response.mediaType as string | undefined) ?? 'application/json']: {
                  schema: toJsonSchema(response.schema, components),
                },
              },
            }
          : {}),
      ...(response.links ? { links: response.links } : {}),
    };
  }
  Object.assign(responses, errorResponses(route));
  const description = [
    route.description,
    accessDescription(route),
    route.rateLimit
      ? `**Rate limit:** class \`${route.rateLimit}\`, per caller and tenant (setting \`rateLimits.${route.rateLimit}\`); past it \`RL101\` (429) with \`Retry-After\`.`
      : undefined,
    route.deprecated ? `**Deprecated:** use \`${route.deprecated.replacement}\` instead.` : undefined,
  ]
    .filter(Boolean)
    .join('\n\n');
  const operation: Json = {
    operationId: route.operationId,
    summary: route.summary,
    description,
    tags: [...route.tags],
    parameters: parametersOf(route, components),
    responses,
  };
  if (route.body) {
    const schema = requestBodySchema(route.body, components);
    operation.requestBody = {
      required: route.bodyRequired ?? true,
      content: Object.fromEntries(
        (route.bodyContentTypes ?? ['application/json']).map((type) => [type, { schema }]),
      ),
    };
  }
  const authentication = authenticationOf(route);
  if (authentication === 'none') operation.security = [];
  if (authentication === 'optional') operation.security = [{}, { bearerAuth: [] }];
  if (route.deprecated) operation.deprecated = true;
  if ('permission' in route.access) {
    operation['x-permission'] = {
      permission: route.access.permission,
      scope: 'branchOf' in route.access ? 'BRANCH' : 'BUSINESS_UNIT',
    };
  }
  return operation;
}

export interface DocumentInfo {
  title: string;
  description: string;
}

/** The OpenAPI 3.1 document of one interface; `auth` routes appear in every document but the MDS one. */
export function buildDocument(
  apiInterface: Exclude<ApiInterface, 'auth'>,
  info: DocumentInfo,
  routes: readonly AnyRoute[],
) {
  const components = new Map<string, Json>();
  toJsonSchema(ErrorBody, components);
  const paths: Record<string, Json> = {};
  const tags = new Set<string>();
  for (const route of routes) {
    if (route.interface !== apiInterface && (route.interface !== 'auth' || apiInterface === 'mds')) continue;
    const path = fullPath(route);
    paths[path] ??= {};
    if (paths[path][route.method]) throw new Error(`${route.method.toUpperCase()} ${path} is declared twice`);
    paths[path][route.method] = operationOf(route, components);
    route.tags.forEach((tag) => tags.add(tag));
  }
  return {
    openapi: '3.1.0',
    info: { title: info.title, version: '1.0.0', description: info.description },
    servers: [{ url: '/' }],
    security: [{ bearerAuth: [] }],
    tags: [...tags].sort().map((name) => ({ name })),
    paths,
    components: {
      securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } },
      schemas: Object.fromEntries([...components.entries()].sort(([a], [b]) => a.localeCompare(b))),
    },
  };
}
