// The form of every endpoint: one declaration carries the contract (schemas, statuses, errors), the
// security (interface, authentication, permission and the scope it is checked on) and the handler,
// whose inputs and outputs are typed from those schemas. The OpenAPI documents, the express routes and
// the access checks are all derived from declarations (api/kernel/openapi.ts, api/kernel/mount.ts).
import type { IncomingMessage } from 'node:http';
import type { Static, TObject, TSchema } from '@sinclair/typebox';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { ErrorCode } from '../../domain/errors.js';
import type { RateLimitClass } from '../../domain/rate-limits.js';
import type { Principal } from '../context.js';
import type { EventFields } from '../../db/events.js';
import type { Customer } from '../../db/entities/Customer.js';
import type { Event } from '../../db/entities/Event.js';
import type { ApiServices } from './services.js';

/**
 * Which document and authentication a route belongs to: the operator interface (`back`), the app
 * interface (`front`), the token endpoints (`auth`, in every document), the maintenance service
 * (`maintenance`: its own document, operators' `back` tokens) and the MDS provider interface (`mds`: its
 * own document, agencies' `mds` tokens; docs/mds.md).
 */
export type ApiInterface = 'back' | 'front' | 'auth' | 'maintenance' | 'mds';

/** The token scope an interface's routes require: the maintenance service is an operators' interface. */
export const scopeOfInterface = (
  apiInterface: 'back' | 'front' | 'maintenance' | 'mds',
): 'back' | 'front' | 'mds' => (apiInterface === 'maintenance' ? 'back' : apiInterface);

export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

/** One success response: its description, body schema (none for 204) and documented headers. */
export interface SuccessResponse {
  description: string;
  schema?: TSchema;
  /**
   * A file instead of JSON: the media types the body may come as (the handler answers a `FileBody` in
   * one of them, chosen per request); documented as binary content.
   */
  files?: readonly string[];
  headers?: Readonly<Record<string, { description: string; schema: TSchema }>>;
  /** The JSON body's media type when not `application/json` (the handler sets `Content-Type` to it). */
  mediaType?: string;
  /** OpenAPI links from this response to other operations (drive stateful tests and clients). */
  links?: Readonly<Record<string, ResponseLink>>;
}

/** 303 See Other sends the caller elsewhere (a pre-signed download): no body, a `Location` header. */
export type SuccessResponses = Readonly<Partial<Record<200 | 201 | 202 | 204 | 303, SuccessResponse>>>;

type Awaitable<T> = T | Promise<T>;

/** Paging of a list route: zero-based page, size and the offset they give. */
export interface PageRequest {
  page: number;
  size: number;
  offset: number;
}

/** Authorization scopes: a branch (operational permissions) or a business unit (finance permissions). */
export type AccessScope = { branchId: number } | { businessUnitId: number };

/** Who may call a route, declared once: the kernel checks it before the handler runs. */
export type Access<Ctx> =
  /** A permission on a branch; `branchOf` names what the branch comes from, for the documents. */
  | { permission: string; branchOf: string; branch: (ctx: Ctx) => Awaitable<number> }
  /** A permission on a business unit (finance). */
  | { permission: string; businessUnitOf: string; businessUnit: (ctx: Ctx) => Awaitable<number> }
  /** Any authenticated caller of the interface; the sentence says how the handler confines what it shows. */
  | { anyCaller: string }
  /**
   * A signed-in customer acting for themselves ("the current user"): the token must carry a customer
   * (an API client token alone answers 0001); the sentence says what the route does for them.
   */
  | { customer: string }
  /** No authentication at all; the sentence says why that is safe. */
  | { anonymous: string };

/** What a handler receives: the request's typed inputs and the per-request services. */
export interface RouteContext<P = unknown, Q = unknown, B = unknown, H = unknown> {
  readonly tenant: string;
  /** A fork confined to the tenant (the tenant filter is on; new entities get the tenant on flush). */
  readonly em: EntityManager;
  /** The verified caller; undefined only on routes that allow anonymous calls. */
  readonly principal: Principal | undefined;
  /** `principal.subject`, or `anonymous`: recorded on events as the acting subject. */
  readonly actor: string;
  readonly params: P;
  readonly query: Q;
  readonly body: B;
  /** The JSON body's bytes as received (signature checks of gateway webhooks); undefined without a body. */
  readonly rawBody: Buffer | undefined;
  /**
   * The request itself, for routes that read their body as a stream (`multipart/form-data` uploads: no
   * parser reads such a body before the handler, which enforces its own limits).
   */
  readonly request: IncomingMessage;
  readonly headers: H;
  readonly page: PageRequest;
  readonly traceId: string;
  /** The mounted base URL of the interface (e.g. `/v1/demo/back`), for Location headers. */
  readonly baseUrl: string;
  /** The application's long-lived clients (Temporal, token service, ...). */
  readonly services: ApiServices;
  /** Throws AUTH002 unless the caller holds the permission on the scope (B404/B405 for unknown scopes). */
  authorize(permission: string, scope: AccessScope): Promise<void>;
  /**
   * The signed-in customer of a `{ customer }` route (loaded once; AUTH005 when the account is gone,
   * AUTH222 when blocked). Throws 0001 for callers that are not customers.
   */
  customer(): Promise<Customer>;
  /** Whether the caller holds a permission or role, on a branch, a business unit, or anywhere. */
  holds(query: {
    permission?: string;
    roleName?: string;
    branchId?: number;
    businessUnitId?: number;
  }): Promise<boolean>;
  /** A request header the declaration does not type (e.g. `authorization` at the token endpoint). */
  header(name: string): string | undefined;
  /** Runs `load` once per request and key; later calls get the same promise (scope resolver, then handler). */
  once<T>(key: string, load: () => Promise<T>): Promise<T>;
  /** Appends an event row (tenant, time and acting subject filled in) to be flushed with the request's work. */
  recordEvent(fields: EventFields): Event;
}

/** The body of a file response: its bytes, media type (one of the declared `files`) and download name. */
export interface FileBody {
  contentType: string;
  fileName: string;
  data: Uint8Array;
}

type BodyOf<R> = R extends { files: readonly string[] }
  ? FileBody
  : R extends { schema: infer S extends TSchema }
    ? Static<S>
    : undefined;

/** What a handler returns: one of its declared success statuses with the matching body. */
export type Reply<R extends SuccessResponses> = {
  [K in keyof R & number]: {
    status: K;
    headers?: Record<string, string>;
    /** Total number of items of a paged list; the kernel sets the X-Total-* headers from it. */
    total?: number;
  } & (BodyOf<R[K]> extends undefined ? { body?: undefined } : { body: BodyOf<R[K]> });
}[keyof R & number];

type StaticOr<S, Fallback> = S extends TSchema ? Static<S> : Fallback;

export type ContextOf<P, Q, B, H> = RouteContext<
  StaticOr<P, Record<string, never>>,
  StaticOr<Q, Record<string, never>>,
  StaticOr<B, undefined>,
  StaticOr<H, Record<string, never>>
>;

/** One endpoint, declared once. */
export interface RouteDeclaration<
  P extends TObject | undefined = TObject | undefined,
  Q extends TObject | undefined = TObject | undefined,
  B extends TSchema | undefined = TSchema | undefined,
  H extends TObject | undefined = TObject | undefined,
  R extends SuccessResponses = SuccessResponses,
> {
  operationId: string;
  method: HttpMethod;
  /**
   * Path below the interface's base (`/v1/{tenant}/back`, `/v1/{tenant}/front`, `/v1/{tenant}/auth`,
   * `/v1/{tenant}/maintenance`, whose paths all start with the service's own `/api/…`).
   */
  path: string;
  interface: ApiInterface;
  summary: string;
  description?: string;
  tags: readonly string[];
  /** Path parameters other than `tenant`. */
  params?: P;
  query?: Q;
  /** Request headers the handler reads (documented as header parameters). */
  headers?: H;
  body?: B;
  /**
   * Content types the body may come in; JSON unless said otherwise. A `multipart/form-data` body is not
   * parsed before the handler: it streams it from `ctx.request` (file uploads).
   */
  bodyContentTypes?: readonly (
    'application/json' | 'application/x-www-form-urlencoded' | 'text/plain' | 'multipart/form-data'
  )[];
  /** Whether a body must be sent (default true when `body` is declared). */
  bodyRequired?: boolean;
  /**
   * The body is a third party's signed document (a gateway's webhook), checked over its raw bytes and
   * stored without NUL characters by the handler: the sentence says so, and NUL characters in it are not
   * refused with 0022 (their schema cannot rule them out at every depth).
   */
  signedBody?: string;
  /** Paged list: adds `page` and `size` to the query and the X-Total-* headers to the 200 response. */
  paged?: { defaultSize: number; maxSize?: number };
  /**
   * A rate-limit class (`'search'`): the kernel counts the caller's requests to every route of the class
   * per tenant and answers RL101 (429, `Retry-After`) past the limit the setting `rateLimits.<class>`
   * gives (api/kernel/rate-limits.ts; docs/observability.md). RL101 is added to the route's errors.
   */
  rateLimit?: RateLimitClass;
  /** Checked against the route's context, never used to infer it: access helpers can be shared among routes. */
  access: NoInfer<Access<ContextOf<P, Q, B, H>>>;
  /**
   * Whether a bearer token is required (default), optional (anonymous calls allowed; a token sent must be
   * valid) or not read at all. Routes with `anonymous` access default to `none`.
   */
  authentication?: 'required' | 'optional' | 'none';
  responses: R;
  /** Catalogue codes the handler or its workflows may answer with (standard request errors are added). */
  errors: readonly ErrorCode[];
  deprecated?: { replacement: string };
  handler(ctx: ContextOf<P, Q, B, H>): Promise<Reply<R>>;
}

/** Any declaration, as the kernel and the document builder see it. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyRoute = RouteDeclaration<any, any, any, any, any>;

/** A 200 answer; `total` for paged lists. */
export const ok = <B>(body: B, extra: { total?: number; headers?: Record<string, string> } = {}) => ({
  status: 200 as const,
  body,
  ...extra,
});

/** A 201 answer, usually with a Location header. */
export const created = <B>(body: B, headers: Record<string, string> = {}) => ({
  status: 201 as const,
  body,
  headers,
});

/** A 204 answer. */
export const noContent = () => ({ status: 204 as const });

/** A 303 See Other answer: the caller fetches `location` instead (a pre-signed download). */
export const seeOther = (location: string, headers: Record<string, string> = {}) => ({
  status: 303 as const,
  headers: { ...headers, Location: location },
});

/** Declares one endpoint; the generic parameters are inferred from the schemas, which type the handler. */
export function defineRoute<
  P extends TObject | undefined = undefined,
  Q extends TObject | undefined = undefined,
  B extends TSchema | undefined = undefined,
  H extends TObject | undefined = undefined,
  const R extends SuccessResponses = SuccessResponses,
>(declaration: RouteDeclaration<P, Q, B, H, R>): RouteDeclaration<P, Q, B, H, R> {
  return declaration;
}

/** The full OpenAPI path template of a route, e.g. `/v1/{tenant}/back/rentals/{rentalId}`. */
export function fullPath(route: Pick<AnyRoute, 'interface' | 'path'>): string {
  return `/v1/{tenant}/${route.interface}${route.path}`;
}

/** An OpenAPI response link: an operation and where its parameters come from. */
export type ResponseLink = { operationId: string; parameters: Record<string, string> };

/**
 * Links from an answer that carries an entity's `id` to operations on that entity: each operation gets the
 * path's tenant and the id as `idParameter`; `events` adds the entity's timeline (`entityEvents`).
 */
export function linksById(
  idParameter: string,
  operations: Readonly<Record<string, string>>,
  events?: { link: string; entityType: string },
): Record<string, ResponseLink> {
  const fromAnswer = { tenant: '$request.path.tenant', id: '$response.body#/id' };
  const links: Record<string, ResponseLink> = {};
  for (const [name, operationId] of Object.entries(operations))
    links[name] = { operationId, parameters: { tenant: fromAnswer.tenant, [idParameter]: fromAnswer.id } };
  if (events)
    links[events.link] = {
      operationId: 'entityEvents',
      parameters: { tenant: fromAnswer.tenant, entityType: events.entityType, entityId: fromAnswer.id },
    };
  return links;
}

/** How the kernel authenticates a route. */
export function authenticationOf(route: AnyRoute): 'required' | 'optional' | 'none' {
  return route.authentication ?? ('anonymous' in route.access ? 'none' : 'required');
}
