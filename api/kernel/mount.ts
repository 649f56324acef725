// Turns route declarations into express routes: authentication before validation, contract validation
// by express-openapi-validator, the declared access check, the handler with its typed context, and the
// reply (status, headers, paging headers). Every route of the API is mounted here, case-sensitively.
import { Router, type default as express } from 'express';
import type { Request, RequestHandler, Response } from 'express';
import type { OpenApiRequestMetadata } from 'express-openapi-validator/dist/framework/types.js';
import type { MikroORM } from '@mikro-orm/postgresql';
import { Customer } from '../../db/entities/Customer.js';
import { Tenant } from '../../db/entities/Tenant.js';
import { tenantEm } from '../../db/orm.js';
import { recordEvent } from '../../db/events.js';
import { DomainError } from '../../domain/errors.js';
import { RequestAuthorizer } from '../authorization.js';
import { authenticateRequest, type TokenService } from '../auth.js';
import type { Principal } from '../context.js';
import {
  authenticationOf,
  fullPath,
  scopeOfInterface,
  type AnyRoute,
  type FileBody,
  type PageRequest,
  type RouteContext,
} from './route.js';
import type { ApiServices } from './services.js';
import { assertPlainNumbers, numericParametersOf, type NumericParameters } from './strict-parameters.js';

/** What handlers may use beyond their request: the application's long-lived clients. */
export type { ApiServices };

declare module 'express-serve-static-core' {
  interface Request {
    /** Set by express-openapi-validator when it matched the request to an operation (path parameters coerced). */
    openapi?: OpenApiRequestMetadata;
  }
  interface Locals {
    /** The declaration serving the request, once matched (metrics, error-code checks). */
    route?: AnyRoute;
    /** Its OpenAPI path template, e.g. `/v1/{tenant}/back/rentals/{rentalId}`. */
    routeTemplate?: string;
  }
}

/** Index of the resource segment in a path: `['', 'v1', tenant, 'back', 'vehicles', …]`. */
const RESOURCE_SEGMENT = 4;

interface CompiledRoute {
  /** Its numeric path and query parameters, checked on the raw text (strict-parameters.ts). */
  numbers: NumericParameters;
  route: AnyRoute;
  pattern: RegExp;
  template: string;
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^$()|[\]\\]/g, '\\$&');

function compile(route: AnyRoute): CompiledRoute {
  const template = fullPath(route);
  const numbers = numericParametersOf(route, template);
  const pattern = new RegExp(
    `^${template
      .split(/(\{[^}]+\})/)
      .map((part) => (part.startsWith('{') ? '[^/]+' : escapeRegExp(part)))
      .join('')}$`,
  );
  return { route, pattern, template, numbers };
}

/** Finds the declaration of a request (case-sensitive, no trailing slash), and whether the path exists at all. */
export class RouteTable {
  /** Routes by their resource segment (`vehicles` of `/v1/{tenant}/back/vehicles/…`), in declaration order. */
  private readonly byResource = new Map<string, CompiledRoute[]>();
  /** Routes whose resource segment is a parameter, or that have none: candidates for any path. */
  private readonly anyResource: CompiledRoute[] = [];

  constructor(routes: readonly AnyRoute[]) {
    // In the order the routes are mounted (fixed segments before parameters), so the route found is the
    // one express serves: `/bookings/available-categories`, not `/bookings/{bookingId}`.
    const compiled = [...routes]
      .sort((a, b) => {
        const [left, right] = [specificityKey(a), specificityKey(b)];
        return left < right ? -1 : left > right ? 1 : 0;
      })
      .map(compile);
    for (const entry of compiled) {
      const resource = entry.template.split('/')[RESOURCE_SEGMENT];
      if (resource === undefined || resource.includes('{')) this.anyResource.push(entry);
    }
    // Each bucket keeps declaration order, the parameter routes included, so the first match is unchanged.
    for (const entry of compiled) {
      const resource = entry.template.split('/')[RESOURCE_SEGMENT];
      if (resource === undefined || resource.includes('{') || this.byResource.has(resource)) continue;
      this.byResource.set(
        resource,
        compiled.filter((candidate) => {
          const own = candidate.template.split('/')[RESOURCE_SEGMENT];
          return own === resource || own === undefined || own.includes('{');
        }),
      );
    }
  }

  match(method: string, path: string): { exact?: CompiledRoute; pathKnown: boolean; pathAnonymous: boolean } {
    // Patterns are case-sensitive and anchored: a route can only match a path with its resource segment.
    const candidates =
      this.byResource.get(path.split('/', RESOURCE_SEGMENT + 1)[RESOURCE_SEGMENT] ?? '') ?? this.anyResource;
    const onPath = candidates.filter((entry) => entry.pattern.test(path));
    // The most specific path template the request matches decides, as in OpenAPI: `DELETE /rentals/export`
    // is a method the `/rentals/export` path lacks (405), not a DELETE of rental "export".
    const template = onPath[0]?.template;
    const exact = onPath.find(
      (entry) => entry.template === template && entry.route.method === method.toLowerCase(),
    );
    // A path every method of which is served without a token (a gateway's webhook endpoint).
    const pathAnonymous =
      onPath.length > 0 &&
      onPath.every((entry) => entry.template !== template || authenticationOf(entry.route) === 'none');
    return { exact, pathKnown: onPath.length > 0, pathAnonymous };
  }
}

const interfacePrefix = /^\/v1\/([^/]+)\/(back|front|maintenance|mds)(?:\/|$)/;

/**
 * Authentication of `/v1/{tenant}/back`, `/front` and `/maintenance` (operators' `back` tokens), before the
 * contract validator so that callers without a valid token learn nothing about the API. Routes that allow
 * anonymous calls say so in their declaration.
 */
export function authenticationMiddleware(table: RouteTable, tokens: TokenService): RequestHandler {
  return async (req, res, next) => {
    const prefix = interfacePrefix.exec(req.path);
    const { exact, pathAnonymous } = table.match(req.method, req.path);
    if (exact) res.locals.routeTemplate = exact.template;
    // A method an anonymous path lacks is answered 405 by the validator: without a token to check, a
    // 401 would tell the caller less than the documents do.
    const mode = exact ? authenticationOf(exact.route) : pathAnonymous ? 'none' : 'required';
    if (prefix && mode !== 'none') {
      let tenant: string;
      try {
        tenant = decodeURIComponent(prefix[1]!);
      } catch {
        throw new DomainError('0022', 'the tenant in the path is not correctly percent-encoded');
      }
      const scope = scopeOfInterface(prefix[2] as 'back' | 'front' | 'maintenance' | 'mds');
      const principal = await authenticateRequest(tokens, req, scope, tenant, mode);
      if (principal) req.context.principal = principal;
    }
    // Every declared route's numbers, the sign-in and signing routes outside the interfaces included.
    if (exact) assertPlainNumbers(exact.numbers, req.path, req.query);
    next();
  };
}

/** Whether any string or key in a parsed input contains NUL (PostgreSQL text cannot); iterative, any depth. */
function hasNul(input: unknown): boolean {
  const pending: unknown[] = [input];
  while (pending.length) {
    const value = pending.pop();
    if (typeof value === 'string') {
      if (value.includes('\u0000')) return true;
    } else if (Array.isArray(value)) {
      for (const item of value) pending.push(item);
    } else if (value && typeof value === 'object') {
      for (const [key, item] of Object.entries(value)) {
        if (key.includes('\u0000')) return true;
        pending.push(item);
      }
    }
  }
  return false;
}

/** Anonymous routes check the path's tenant (tokens already name a real one); known tenants are remembered. */
async function assertTenantExists(orm: MikroORM, tenant: string, knownTenants: Set<string>): Promise<void> {
  if (knownTenants.has(tenant)) return;
  const found = await orm.em.fork().count(Tenant, { id: tenant }, { filters: false });
  if (!found) throw new DomainError('AUTH051', `tenant "${tenant}" does not exist`);
  knownTenants.add(tenant);
}

function context(route: AnyRoute, req: Request, services: ApiServices): RouteContext {
  const tenant = String(req.openapi?.pathParams?.tenant ?? '');
  const em = tenantEm(services.orm, tenant);
  const principal: Principal | undefined = req.context.principal;
  let authorizer: RequestAuthorizer | undefined;
  const authorizerOf = () => {
    if (!principal) throw new DomainError('JWT006');
    authorizer ??= new RequestAuthorizer(em, principal, services.permissions);
    return authorizer;
  };
  const memo = new Map<string, Promise<unknown>>();
  const once = <T>(key: string, load: () => Promise<T>): Promise<T> => {
    if (!memo.has(key)) memo.set(key, load());
    return memo.get(key) as Promise<T>;
  };
  const query = (req.query ?? {}) as Record<string, unknown>;
  const page: PageRequest = route.paged
    ? (() => {
        const number = Number(query.page ?? 0);
        const size = Number(query.size ?? route.paged.defaultSize);
        return { page: number, size, offset: number * size };
      })()
    : { page: 0, size: 0, offset: 0 };
  const headers: Record<string, string | undefined> = {};
  for (const name of Object.keys(route.headers?.properties ?? {})) headers[name] = req.header(name);
  const actor = principal?.subject ?? 'anonymous';
  const pathParams = { ...(req.openapi?.pathParams ?? {}) } as Record<string, unknown>;
  delete pathParams.tenant;
  return {
    tenant,
    em,
    principal,
    actor,
    params: pathParams,
    query,
    body: req.body,
    rawBody: req.context.rawBody,
    request: req,
    headers,
    page,
    traceId: req.context.traceId,
    baseUrl: `/v1/${tenant}/${route.interface}`,
    services,
    authorize: (permission, scope) => authorizerOf().authorize(permission, scope),
    header: (name) => req.header(name),
    holds: (question) => authorizerOf().holds(question),
    once,
    customer: () =>
      once('kernel:customer', async () => {
        if (principal?.subjectType !== 'CUSTOMER')
          throw new DomainError('0001', 'sign in as a customer: this endpoint acts for the current user');
        const customer = await em.findOne(Customer, Number(principal.subjectId));
        if (!customer) throw new DomainError('AUTH005', 'the customer of this token no longer exists');
        if (customer.isBlocked) throw new DomainError('AUTH222');
        return customer;
      }),
    recordEvent: (fields) => recordEvent(em, { adminSubject: actor, ...fields }),
  };
}

async function enforceAccess(route: AnyRoute, ctx: RouteContext): Promise<void> {
  const access = route.access;
  if ('branchOf' in access) await ctx.authorize(access.permission, { branchId: await access.branch(ctx) });
  else if ('businessUnitOf' in access)
    await ctx.authorize(access.permission, { businessUnitId: await access.businessUnit(ctx) });
  else if ('customer' in access) await ctx.customer();
}

function send(
  route: AnyRoute,
  res: Response,
  reply: { status: number; headers?: Record<string, string>; total?: number; body?: unknown },
  page: PageRequest,
): void {
  res.status(reply.status);
  for (const [name, value] of Object.entries(reply.headers ?? {})) res.setHeader(name, value);
  if (route.paged) {
    if (reply.total === undefined) throw new Error(`${route.operationId} is paged but returned no total`);
    res.setHeader('X-Total-Count', String(reply.total));
    res.setHeader('X-Total-Pages', String(Math.ceil(reply.total / page.size)));
    res.setHeader('X-Page-Number', String(page.page));
    res.setHeader('X-Page-Size', String(page.size));
  }
  const declared = (route.responses as Record<number, { files?: readonly string[] } | undefined>)[
    reply.status
  ];
  if (declared?.files) {
    // A file: its bytes as they are, under one of the declared media types, offered as a download.
    const file = reply.body as FileBody;
    if (!declared.files.includes(file.contentType.split(';')[0]!.trim()))
      throw new Error(`${route.operationId} answered ${file.contentType}, which it does not declare`);
    res.setHeader('Content-Type', file.contentType);
    res.setHeader(
      'Content-Disposition',
      `attachment; filename="${file.fileName.replace(/[^A-Za-z0-9._-]/g, '_')}"`,
    );
    res.end(Buffer.from(file.data));
  } else if (reply.body === undefined) res.end();
  else res.json(reply.body);
}

/** The express handler of one declaration. */
function routeHandler(route: AnyRoute, services: ApiServices, knownTenants: Set<string>): RequestHandler {
  return async (req, res) => {
    // Only requests the contract validator matched to this very operation reach a handler.
    if (req.openapi?.schema?.operationId !== route.operationId)
      throw new DomainError('0020', `no route for ${req.method} ${req.path}`);
    res.locals.route = route;
    if ((!route.signedBody && hasNul(req.body)) || hasNul(req.query) || hasNul(req.openapi?.pathParams))
      throw new DomainError('0022', 'text must not contain NUL characters');
    const ctx = context(route, req, services);
    if (!ctx.principal) await assertTenantExists(services.orm, ctx.tenant, knownTenants);
    // Counted before the access check: a caller probing branches it may not read spends its searches too.
    if (route.rateLimit)
      await services.rateLimits.consume(ctx.em, route.rateLimit, {
        tenant: ctx.tenant,
        subject: ctx.principal?.subject ?? `address:${req.ip ?? 'unknown'}`,
      });
    await enforceAccess(route, ctx);
    const reply = await route.handler(ctx);
    if (route.method !== 'get') await ctx.em.flush();
    send(route, res, reply, ctx.page);
  };
}

/**
 * Express matches routes in registration order: a fixed segment must be registered before a path
 * parameter in the same place (`/rentals/requirements` before `/rentals/{rentalId}`), whichever domain
 * declares it. The key sorts paths segment by segment with every parameter after every fixed segment.
 */
export function specificityKey(route: AnyRoute): string {
  return fullPath(route)
    .split('/')
    .map((segment) => (segment.startsWith('{') ? '\uffff' : segment))
    .join('\u0000');
}

/** Mounts every declaration on the app; a declaration without a handler fails here, at start. */
export function mountRoutes(app: express.Express, routes: readonly AnyRoute[], services: ApiServices): void {
  const operationIds = new Set<string>();
  const knownTenants = new Set<string>();
  const ordered = [...routes].sort((a, b) => {
    const [left, right] = [specificityKey(a), specificityKey(b)];
    return left < right ? -1 : left > right ? 1 : 0;
  });
  for (const route of ordered) {
    if (typeof route.handler !== 'function') throw new Error(`route ${route.operationId} has no handler`);
    if (operationIds.has(route.operationId))
      throw new Error(`operationId ${route.operationId} is declared twice`);
    operationIds.add(route.operationId);
    if ('permission' in route.access && !services.permissions.all.includes(route.access.permission))
      throw new Error(
        `route ${route.operationId} requires ${route.access.permission}, which no domain declares`,
      );
  }
  // One router per resource segment (`vehicles` of `/v1/{tenant}/back/vehicles/…`) instead of every route
  // on the app: express walks its routes in order testing each path, so a request now walks only the
  // routes of its resource (and those with a parameter there), in the same order, with the same result.
  const resourceOf = (route: AnyRoute) => {
    const segment = fullPath(route).split('/')[RESOURCE_SEGMENT];
    return segment === undefined || segment.includes('{') ? undefined : segment;
  };
  const handlers = new Map(ordered.map((route) => [route, routeHandler(route, services, knownTenants)]));
  const routerOf = (resource: string | undefined) => {
    // The app's own matching settings (case-sensitive, strict) do not reach routers made separately.
    const router = Router({ caseSensitive: true, strict: true });
    for (const route of ordered) {
      const own = resourceOf(route);
      if (own === undefined || own === resource)
        router[route.method](fullPath(route).replace(/\{([^}]+)\}/g, ':$1'), handlers.get(route)!);
    }
    return router;
  };
  const byResource = new Map(
    [...new Set(ordered.map(resourceOf))]
      .filter((resource) => resource !== undefined)
      .map((resource) => [resource, routerOf(resource)]),
  );
  const anyResource = routerOf(undefined);
  const dispatch: RequestHandler = (req, res, next) => {
    const resource = req.path.split('/', RESOURCE_SEGMENT + 1)[RESOURCE_SEGMENT];
    (byResource.get(resource ?? '') ?? anyResource)(req, res, next);
  };
  // The routers stay reachable for whoever lists what the app serves (the contract test).
  app.use(Object.assign(dispatch, { routers: [...byResource.values(), anyResource] }));
}
