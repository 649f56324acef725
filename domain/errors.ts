// The error catalogue's kernel (pure: no I/O, no Node built-ins; imported by Temporal workflow code too):
// the entry format, the registry every domain's table joins, DomainError, and the request-handling codes
// every route shares. Each domain declares its own codes beside its rules (domain/<domain>.errors.ts).
//
// Codes come from the spec's error catalogue (source 'spec') plus codes this project defines for
// failures the spec's tables do not show (source 'project'); see docs/errors.md. Meanings and the Retry
// column are the spec's. The spec gives no HTTP statuses, so they are assigned by this rule:
//   400 malformed or invalid request input (format, missing/contradictory fields, validation)
//   401 authentication failed: credentials, one-time codes or tokens missing/invalid/expired
//   403 authorization and access refused (scope, permissions, ownership, blocked/locked users)
//   404 a referenced entity does not exist (…404, U106, VA100, W101, …)
//   409 conflict with current state: "already", "exists", "in use", state transitions, in-progress work
//   413 payload too large; 405/415 route method / media type (project 00XX codes)
//   422 valid request refused by a business rule (eligibility, limits, location, unmet preconditions)
//   429 rate limited (RL100, AUTH225, RO102)
//   500 internal or processing failure ("failed", "internal", "error"), retryable per the spec
//   502 the vehicle failed or refused to communicate (R170, R173, R174, V502); 504 vehicle timeout (V504)
//   503 temporarily unavailable, retry later (0007, AUTH227, RO101); 410 retired integration (V410)

export interface CatalogueEntry {
  code: string;
  meaning: string;
  retryable: boolean;
  httpStatus: number;
  source: 'spec' | 'project';
  /** When the project answers the code (docs/errors.md); for project codes and spec codes used in a particular way. */
  when?: string;
}

/**
 * The tables of every domain, by domain name: each `domain/<domain>.errors.ts` adds its own through a
 * module augmentation, so `ErrorCode` knows every code and a domain name used twice fails to compile.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface ErrorTables {}

/** Every code of the catalogue (spec and project), from every domain's table. */
export type ErrorCode = { [D in keyof ErrorTables]: keyof ErrorTables[D] & string }[keyof ErrorTables];

/** One domain's entries: each entry's `code` equals its key (checked at compile time). */
type ErrorTable<T> = { readonly [K in keyof T]: CatalogueEntry & { readonly code: K } };

interface Registered {
  domain: string;
  entry: CatalogueEntry;
}

const registry = new Map<string, Registered>();
const registeredSubCodes = new Map<string, string>();

/**
 * Declares a domain's error codes and registers them in this process's catalogue (a code declared by
 * two tables fails here, at start). `subCodes` names the sub-codes the spec spells out (U130.2 …).
 */
export function defineErrorCodes<const T extends ErrorTable<T>>(
  domain: string,
  codes: T,
  subCodes: Readonly<Record<string, string>> = {},
): T {
  for (const entry of Object.values<CatalogueEntry>(codes)) {
    const earlier = registry.get(entry.code);
    if (earlier && earlier.domain !== domain)
      throw new Error(
        `error code ${entry.code} is declared by both the ${earlier.domain} and the ${domain} domain`,
      );
    registry.set(entry.code, { domain, entry: Object.freeze(entry) });
  }
  for (const [code, meaning] of Object.entries(subCodes)) registeredSubCodes.set(code, meaning);
  return Object.freeze(codes);
}

/** The catalogue as registered in this process, with the domain of each code, in registration order. */
export function registeredErrorCodes(): readonly Registered[] {
  return [...registry.values()];
}

/** Meanings of the sub-codes the spec spells out; other sub-codes only mark the failing endpoint/check. */
export function subCodeMeaning(code: string): string | undefined {
  return registeredSubCodes.get(code);
}

/** The request-handling codes every route shares (the kernel's own table). */
export const kernelErrors = defineErrorCodes(
  'kernel',
  // One line per code; keep the table layout.
  // prettier-ignore
  {
    // Generic request codes (00XX)
    '0001': { code: '0001', meaning: 'full authentication required (token absent or expired)', retryable: false, httpStatus: 401, source: 'spec' },
    '0005': { code: '0005', meaning: 'token lacks scope for this interface', retryable: false, httpStatus: 403, source: 'spec' },
    '0007': { code: '0007', meaning: 'authorization could not be established', retryable: true, httpStatus: 503, source: 'spec' },
    '0011': { code: '0011', meaning: 'generic request failure (covers two unrelated failures; details not shown in spec)', retryable: false, httpStatus: 400, source: 'spec' },
    '0012': { code: '0012', meaning: 'generic request failure (covers two unrelated failures; details not shown in spec)', retryable: false, httpStatus: 400, source: 'spec' },
    '0022': { code: '0022', meaning: 'request parameters or body failed validation', retryable: false, httpStatus: 400, source: 'spec' },
    // Project-defined: generic request handling (00XX)
    '0020': { code: '0020', meaning: 'unknown route', retryable: false, httpStatus: 404, source: 'project', when: 'no route matches the path' },
    '0021': { code: '0021', meaning: 'method not allowed on this route', retryable: false, httpStatus: 405, source: 'project', when: 'path exists, method does not' },
    '0023': { code: '0023', meaning: 'unsupported media type', retryable: false, httpStatus: 415, source: 'project', when: 'body not `application/json` where JSON is required' },
    '0024': { code: '0024', meaning: 'request body too large', retryable: false, httpStatus: 413, source: 'project', when: 'body exceeds the server\'s size limit' },
    '0025': { code: '0025', meaning: 'request header fields too large', retryable: false, httpStatus: 431, source: 'project', when: 'headers exceed Node\'s 16 KiB limit (answered before routing)' },
    '0026': { code: '0026', meaning: 'malformed HTTP request', retryable: false, httpStatus: 400, source: 'project', when: 'Node\'s HTTP parser rejects the request (answered before routing)' },
    '0030': { code: '0030', meaning: 'the process of this entity is no longer running; re-read its state', retryable: false, httpStatus: 409, source: 'project', when: 'an update reached a finished workflow of a kind without its own code (rentals answer `R201`)' },
    '0031': { code: '0031', meaning: 'a concurrent change to the same records conflicted; retry the request', retryable: true, httpStatus: 409, source: 'project', when: 'the database aborted the request\'s transaction (a deadlock or a serialization failure with another request) after the API\'s own retries' },
    '0099': { code: '0099', meaning: 'unexpected internal error', retryable: true, httpStatus: 500, source: 'project', when: 'unhandled exception; details only in logs under the traceId' },
  },
);

declare module './errors.js' {
  interface ErrorTables {
    kernel: typeof kernelErrors;
  }
}

/** File-access codes that append their sub-code without a separator (A103416 = A103 + 416). */
export const appendedSubCodeBases = ['A103', 'A105', 'A106', 'A107', 'A108'] as const;

/** A catalogue code, optionally with a dotted sub-code (U130.2, A100.511) or an appended file-access sub-code. */
export type ErrorCodeLike =
  ErrorCode | `${ErrorCode}.${number}` | `${(typeof appendedSubCodeBases)[number]}${number}`;

function isCatalogued(code: string): code is ErrorCode {
  return registry.has(code);
}

const dottedSubCode = /^([^.]+)\.\d+$/;
const appendedSubCode = /^(A10[35678])\d+$/;

/**
 * The catalogue code a (possibly suffixed) code belongs to, or undefined when unknown.
 * 'U130.2' → 'U130', 'A100.511' → 'A100', 'A103416' → 'A103'.
 */
export function baseCode(code: string): ErrorCode | undefined {
  if (isCatalogued(code)) return code;
  const base = dottedSubCode.exec(code)?.[1] ?? appendedSubCode.exec(code)?.[1];
  return base !== undefined && isCatalogued(base) ? base : undefined;
}

/** Catalogue entry for a code, falling back to the base code for sub-codes. Throws for unknown codes. */
export function catalogueEntry(code: string): CatalogueEntry {
  const base = baseCode(code);
  if (base === undefined)
    throw new Error(
      `Unknown error code: ${code} (not declared, or its domain's table is not imported in this process)`,
    );
  return registry.get(base)!.entry;
}

/** The error body of every failed API call. */
export interface ErrorBody {
  errorCode: string;
  userMessage: string;
  httpStatus: number;
  traceId: string;
  /** The vehicle's own reason when it refused or failed a command (V502). */
  failureReason?: { code?: string; description?: string };
}

/** Plain, serialisable form of a DomainError (e.g. for Temporal failure details). */
export interface DomainErrorData {
  code: string;
  message: string;
  httpStatus: number;
  retryable: boolean;
  details?: Record<string, unknown>;
}

function defaultMessage(code: string): string {
  const meaning = catalogueEntry(code).meaning;
  const sub = subCodeMeaning(code);
  return sub === undefined ? meaning : `${meaning}: ${sub}`;
}

/**
 * A failure with a catalogue code. Status and retryability come from the catalogue (base code for
 * sub-codes); `code` keeps the full code as given (e.g. 'U130.2'). Only plain data fields, so it can be
 * thrown from activities and API handlers alike.
 */
export class DomainError extends Error {
  readonly code: string;
  readonly httpStatus: number;
  readonly retryable: boolean;
  declare readonly details?: Record<string, unknown>;

  constructor(
    code: ErrorCodeLike,
    userMessage?: string,
    details?: Record<string, unknown>,
    options?: ErrorOptions,
  ) {
    super(userMessage ?? defaultMessage(code), options);
    const entry = catalogueEntry(code);
    this.name = 'DomainError';
    this.code = code;
    this.httpStatus = entry.httpStatus;
    this.retryable = entry.retryable;
    if (details !== undefined) this.details = details;
  }

  /** The API error body. */
  toBody(traceId: string): ErrorBody {
    const body: ErrorBody = {
      errorCode: this.code,
      userMessage: this.message,
      httpStatus: this.httpStatus,
      traceId,
    };
    const reason = this.details?.failureReason;
    if (reason && typeof reason === 'object') {
      const { code, description } = reason as Record<string, unknown>;
      body.failureReason = {
        ...(typeof code === 'string' ? { code } : {}),
        ...(typeof description === 'string' ? { description } : {}),
      };
    }
    return body;
  }

  toJSON(): DomainErrorData {
    const data: DomainErrorData = {
      code: this.code,
      message: this.message,
      httpStatus: this.httpStatus,
      retryable: this.retryable,
    };
    if (this.details !== undefined) data.details = this.details;
    return data;
  }

  /** Rebuilds an error from `toJSON()` output (status and retryability re-read from the catalogue). */
  static fromJSON(data: Pick<DomainErrorData, 'code' | 'message' | 'details'>): DomainError {
    return new DomainError(data.code as ErrorCodeLike, data.message, data.details);
  }
}

export function isDomainError(value: unknown): value is DomainError {
  return value instanceof DomainError;
}
