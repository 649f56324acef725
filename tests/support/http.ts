// The HTTP harness every API test file shares: a test backend (real PostgreSQL, Temporal, broker,
// simulated fleet) behind the API process's startApi on a free port, validating every response against the
// OpenAPI documents, with small helpers to call it and to check catalogue errors.
import { startTestBackend, testLogLevel, type TestBackend } from './stack.js';
import { startApi } from '../../composition/api-server.js';
import type { Express } from 'express';

export interface Reply {
  status: number;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any
  headers: Headers;
}

export interface CallOptions {
  token?: string;
  body?: unknown;
  rawBody?: string;
  headers?: Record<string, string>;
}

export interface HttpStack {
  backend: TestBackend;
  /** The API's express application. */
  app: Express;
  baseUrl: string;
  /** The API process's `GET /metrics`, on its own port (API_METRICS_PORT). */
  metricsUrl: string;
  /** One request; the body is parsed when there is one. */
  call(method: string, path: string, options?: CallOptions): Promise<Reply>;
  /** A client-credentials token for one of a tenant's API clients. */
  token(tenant: string, client: { clientId: string; clientSecret: string }, scope?: string): Promise<string>;
  /** `/v1/{seeded tenant}/back{path}` */
  back(path: string): string;
  /** `/v1/{seeded tenant}/front{path}` */
  front(path: string): string;
  stop(): Promise<void>;
}

export const testJwtSecret = 'test-secret-for-the-api-suite-of-fleetflow';

/** Starts a test backend and the API in front of it. */
export async function startHttpStack(
  options: Parameters<typeof startTestBackend>[0] & { tokenTtlSeconds?: number } = {},
): Promise<HttpStack> {
  const backend = await startTestBackend(options);
  // The API process of `npm run api`, from the backend's environment plus what a deployment sets.
  const api = await startApi(
    {
      ...backend.processEnv,
      JWT_SECRET: testJwtSecret,
      TOKEN_TTL_SECONDS: String(options.tokenTtlSeconds ?? 600),
      API_PORT: '0',
      API_HOST: '127.0.0.1',
      API_VALIDATE_RESPONSES: 'true',
      LOG_LEVEL: testLogLevel,
    },
    backend.testEnv ? { client: backend.testEnv.client, connection: backend.testEnv.connection } : undefined,
  );
  const baseUrl = api.url;

  async function call(method: string, path: string, options: CallOptions = {}): Promise<Reply> {
    const headers: Record<string, string> = { ...options.headers };
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    if (options.body !== undefined || options.rawBody !== undefined)
      headers['content-type'] ??= 'application/json';
    const response = await fetch(`${baseUrl}${path}`, {
      method,
      headers,
      body: options.rawBody ?? (options.body === undefined ? undefined : JSON.stringify(options.body)),
    });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : undefined, headers: response.headers };
  }

  async function token(
    tenant: string,
    client: { clientId: string; clientSecret: string },
    scope?: string,
  ): Promise<string> {
    const reply = await call('POST', `/v1/${tenant}/auth/token`, {
      body: {
        grant_type: 'client_credentials',
        client_id: client.clientId,
        client_secret: client.clientSecret,
        ...(scope ? { scope } : {}),
      },
    });
    if (reply.status !== 200) throw new Error(`token for ${client.clientId}: ${JSON.stringify(reply.body)}`);
    return reply.body.access_token;
  }

  return {
    backend,
    app: api.app,
    baseUrl,
    metricsUrl: api.metricsUrl,
    call,
    token,
    back: (path) => `/v1/${backend.seed.tenant}/back${path}`,
    front: (path) => `/v1/${backend.seed.tenant}/front${path}`,
    async stop() {
      await api.close();
      await backend.stop();
    },
  };
}

/** Asserts a catalogue error body with this status and code. */
export function expectError(reply: Reply, status: number, code: string): void {
  expect({ status: reply.status, code: reply.body?.errorCode }).toEqual({ status, code });
  expect(reply.body).toEqual({
    errorCode: code,
    userMessage: expect.any(String),
    httpStatus: status,
    traceId: expect.stringMatching(/^[0-9a-f]{32}$/),
  });
}
