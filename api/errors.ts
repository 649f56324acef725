import type { ErrorRequestHandler, RequestHandler } from 'express';
import { DeadlockException } from '@mikro-orm/core';
import { randomUUID } from 'node:crypto';
import { isSpanContextValid, trace } from '@opentelemetry/api';
import { ApplicationFailure, WorkflowUpdateFailedError, WorkflowNotFoundError } from '@temporalio/client';
import { DomainError, baseCode, isDomainError, type ErrorCodeLike } from '../domain/errors.js';
import type { ProcessKind } from '../workflows/process-kind.js';
import { errorCodesOf } from './kernel/openapi.js';

/**
 * A new W3C trace id: 32 lower-case hex digits. A random UUID without its dashes (122 random bits) comes
 * from Node's pre-generated entropy pool; `randomBytes(16)` asked OpenSSL on every request.
 */
export function newTraceId(): string {
  return randomUUID().replaceAll('-', '');
}

/**
 * Gives each request a trace id echoed in `X-Trace-Id` and error bodies: the request span's when tracing
 * is on (platform/telemetry.ts), else from W3C `traceparent` when present, else a new one.
 */
export const assignTraceId: RequestHandler = (req, res, next) => {
  const span = trace.getActiveSpan()?.spanContext();
  const traceparent = req.header('traceparent');
  const fromParent = traceparent?.match(/^[\da-f]{2}-([\da-f]{32})-[\da-f]{16}-[\da-f]{2}$/)?.[1];
  req.context = {
    traceId: span && isSpanContextValid(span) ? span.traceId : (fromParent ?? newTraceId()),
  };
  res.setHeader('X-Trace-Id', req.context.traceId);
  next();
};

/** Status codes express-openapi-validator and body parsers raise, mapped to catalogue codes. */
const statusCodes: Record<number, string> = {
  400: '0022',
  404: '0020',
  405: '0021',
  413: '0024',
  415: '0023',
};

interface HttpishError {
  status?: number;
  statusCode?: number;
  type?: string;
  message?: string;
  errors?: Array<{ path?: string; message?: string }>;
}

/** The ApplicationFailure a workflow update or start failed with, if it carries a catalogue code. */
function workflowFailureCode(error: unknown): DomainError | undefined {
  let cause: unknown = error instanceof WorkflowUpdateFailedError ? error.cause : error;
  for (let depth = 0; cause && depth < 5; depth += 1) {
    if (cause instanceof ApplicationFailure && cause.type && baseCode(cause.type)) {
      const details = (cause.details?.[0] ?? undefined) as Record<string, unknown> | undefined;
      return new DomainError(cause.type as ErrorCodeLike, cause.message, details);
    }
    cause = (cause as { cause?: unknown }).cause;
  }
  return undefined;
}

/**
 * Whether PostgreSQL aborted the transaction because another one met it head-on: a deadlock (40P01) or a
 * serialization failure (40001). Nothing of the aborted transaction was written.
 */
export function isTransactionConflict(error: unknown): boolean {
  if (error instanceof DeadlockException) return true;
  const code = (error as { code?: unknown } | undefined)?.code;
  return code === '40P01' || code === '40001';
}

/** Everything a client can cause becomes a catalogue error; only real faults become 0099 (and are logged). */
export function toDomainError(error: unknown, processes: readonly ProcessKind[] = []): DomainError {
  if (isDomainError(error)) return error;
  const fromWorkflow = workflowFailureCode(error);
  if (fromWorkflow) return fromWorkflow;
  if (error instanceof WorkflowNotFoundError) {
    // The entity's process has finished since the caller read it: answer with that process's own code.
    const prefix = error.workflowId?.split(':')[0];
    const kind = processes.find((process) => process.workflowIdPrefix === prefix);
    return kind
      ? new DomainError(kind.notRunning, `the ${kind.noun} is no longer running; re-read its state`)
      : new DomainError('0030', `process ${error.workflowId ?? ''} is no longer running; re-read its state`);
  }
  if (isTransactionConflict(error))
    return new DomainError('0031', 'a concurrent change to the same records conflicted; retry the request');
  const httpish = error as HttpishError;
  const status = httpish?.status ?? httpish?.statusCode;
  if (httpish?.type === 'entity.parse.failed') return new DomainError('AUTH001');
  if (status && statusCodes[status]) {
    const detail = httpish.errors?.map(validationDetail).join('; ');
    return new DomainError(statusCodes[status] as ErrorCodeLike, detail || httpish.message);
  }
  return new DomainError('0099', 'unexpected internal error; quote the traceId when reporting it');
}

export interface ErrorHandlerOptions {
  /** Where unexpected faults (0099) go, with the error that caused them. */
  log?: (message: string, fault: unknown, traceId: string) => void;
  /** Long-running process kinds, to name the entity when its workflow no longer runs. */
  processes?: readonly ProcessKind[];
  /** Answer an error code the serving route does not declare as a fault (tests keep the documents honest). */
  strictErrorCodes?: boolean;
}

/**
 * One validation finding as the user reads it: where, then what. The validator points a missing property's
 * path at the property itself, so its "must have required property 'x'" would name it twice.
 */
function validationDetail(item: { path?: string; message?: string }): string {
  const path = item.path ?? '';
  const message = item.message ?? '';
  const missing = /^must have required property '([^']+)'$/.exec(message)?.[1];
  if (missing !== undefined && path.endsWith(`/${missing}`)) return `${path} is required`;
  return `${path} ${message}`.trim();
}

/** The single error handler: maps validator, workflow and domain errors to `{errorCode, userMessage, httpStatus, traceId}`. */
export function errorHandler({
  log = console.error,
  processes = [],
  strictErrorCodes = false,
}: ErrorHandlerOptions = {}): ErrorRequestHandler {
  return (error, req, res, _next) => {
    let domainError = toDomainError(error, processes);
    const traceId = req.context?.traceId ?? newTraceId();
    const route = res.locals.route;
    if (strictErrorCodes && route && domainError.code !== '0099') {
      const declared = errorCodesOf(route) as string[];
      if (!declared.includes(baseCode(domainError.code) ?? domainError.code)) {
        log(
          `${route.operationId} answered ${domainError.code}, which its declaration does not list`,
          error,
          traceId,
        );
        domainError = new DomainError(
          '0099',
          `undeclared error code ${domainError.code} from ${route.operationId}`,
        );
      }
    }
    if (domainError.code === '0099') log(`${req.method} ${req.originalUrl} failed`, error, traceId);
    if (res.headersSent) return;
    if (domainError.code === '0021') res.setHeader('Allow', allowedMethods(error));
    // A rate limit (RL101, RL100) says when to come back, as its details do.
    const retryAfter = domainError.details?.retryAfterSeconds;
    if (domainError.httpStatus === 429 && typeof retryAfter === 'number' && retryAfter > 0)
      res.setHeader('Retry-After', String(Math.ceil(retryAfter)));
    res.status(domainError.httpStatus).json(domainError.toBody(traceId));
  };
}

/** The Allow header of a 405: the validator's methods, with HEAD wherever GET is (HEAD answers as GET). */
function allowedMethods(error: unknown): string {
  const methods = ((error as { headers?: { Allow?: string } }).headers?.Allow ?? '')
    .split(',')
    .map((method) => method.trim().toUpperCase())
    .filter(Boolean);
  if (methods.includes('GET') && !methods.includes('HEAD')) methods.push('HEAD');
  return methods.join(', ');
}

/** Any path no router claims. */
export const unknownRoute: RequestHandler = (req, _res, next) => {
  next(new DomainError('0020', `no route for ${req.method} ${req.path}`));
};
