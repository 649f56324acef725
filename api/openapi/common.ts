// Building blocks shared by the operator (back) and user (front) OpenAPI documents.
import { rentalOperationTypes, rentalStates } from '../../domain/rental.js';

export type Schema = Record<string, unknown>;

export const tenantParameter = {
  name: 'tenant',
  in: 'path',
  required: true,
  description: 'Tenant identifier (usually 8 characters; the demo tenant is `demo`).',
  schema: { type: 'string', pattern: '^[a-z0-9][a-z0-9-]{1,31}$' },
};

export const errorBodySchema: Schema = {
  type: 'object',
  required: ['errorCode', 'userMessage', 'httpStatus', 'traceId'],
  properties: {
    errorCode: { type: 'string', description: 'Catalogue code, e.g. R102 or AUTH005.' },
    userMessage: { type: 'string' },
    httpStatus: { type: 'integer' },
    traceId: { type: 'string' },
  },
  additionalProperties: false,
};

export const positionSchema: Schema = {
  type: 'object',
  required: ['lat', 'lng'],
  properties: {
    lat: { type: 'number', minimum: -90, maximum: 90 },
    lng: { type: 'number', minimum: -180, maximum: 180 },
  },
  additionalProperties: false,
};

export const tokenRequestSchema: Schema = {
  type: 'object',
  required: ['grant_type'],
  properties: {
    grant_type: { type: 'string', enum: ['client_credentials'] },
    client_id: { type: 'string', minLength: 1, maxLength: 100 },
    client_secret: { type: 'string', minLength: 1, maxLength: 200 },
    scope: { type: 'string', enum: ['back', 'front'], description: 'Interface the token is for.' },
  },
  additionalProperties: false,
};

export const tokenResponseSchema: Schema = {
  type: 'object',
  required: ['access_token', 'token_type', 'expires_in', 'scope'],
  properties: {
    access_token: { type: 'string' },
    token_type: { type: 'string', enum: ['Bearer'] },
    expires_in: { type: 'integer' },
    scope: { type: 'string', enum: ['back', 'front'] },
  },
  additionalProperties: false,
};

/** `POST /v1/{tenant}/auth/token`: OAuth2 client credentials, in both documents since both audiences use it. */
export const tokenPath = {
  post: {
    tags: ['Authentication'],
    operationId: 'issueToken',
    summary: 'Issue an access token (OAuth2 client credentials)',
    description:
      'Client credentials go in the body (form or JSON) or in HTTP Basic authentication. `scope` chooses the interface (`back` for the operator API, `front` for the app API); it defaults to the first scope the client holds.',
    security: [],
    parameters: [tenantParameter],
    requestBody: {
      required: true,
      content: {
        'application/x-www-form-urlencoded': { schema: tokenRequestSchema },
        'application/json': { schema: tokenRequestSchema },
      },
    },
    responses: {
      '200': {
        description: 'Token issued',
        content: { 'application/json': { schema: tokenResponseSchema } },
      },
      '400': { $ref: '#/components/responses/Error' },
      '401': { $ref: '#/components/responses/Error' },
      '404': { $ref: '#/components/responses/Error' },
    },
  },
};

export const errorResponses = {
  Error: {
    description: 'Catalogue error',
    content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
  },
};

export const securitySchemes = {
  bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
};

export const pagingParameters = [
  {
    name: 'page',
    in: 'query',
    description: 'Zero-based page number.',
    schema: { type: 'integer', minimum: 0, default: 0 },
  },
  {
    name: 'size',
    in: 'query',
    description: 'Page size.',
    schema: { type: 'integer', minimum: 1, maximum: 200, default: 20 },
  },
];

export const pagingHeaders = {
  'X-Total-Count': { schema: { type: 'integer' } },
  'X-Total-Pages': { schema: { type: 'integer' } },
  'X-Page-Number': { schema: { type: 'integer' } },
  'X-Page-Size': { schema: { type: 'integer' } },
};

/** Standard error responses of an authenticated operation. */
export function authenticatedErrors(...extra: number[]): Record<string, unknown> {
  const statuses = [400, 401, 403, ...extra];
  return Object.fromEntries(
    statuses.map((status) => [String(status), { $ref: '#/components/responses/Error' }]),
  );
}

export const rentalStateSchema: Schema = { type: 'string', enum: [...rentalStates] };
export const rentalOperationTypeSchema: Schema = { type: 'string', enum: [...rentalOperationTypes] };
