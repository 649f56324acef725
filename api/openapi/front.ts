// OpenAPI 3.1 document of the user-facing app interface (`/v1/{tenant}/front`).
import {
  authenticatedErrors,
  errorBodySchema,
  errorResponses,
  securitySchemes,
  tenantParameter,
  tokenPath,
} from './common.js';

const base = '/v1/{tenant}/front';

const settingSimpleSchema = {
  type: 'object',
  required: ['key', 'area', 'branchIds', 'value'],
  properties: {
    key: { type: 'string' },
    area: { type: 'string', enum: ['APP', 'SHARED'] },
    branchIds: { type: 'array', items: { type: 'integer' } },
    value: { type: 'object' },
  },
  additionalProperties: false,
};

export const frontDocument = {
  openapi: '3.1.0',
  info: {
    title: 'fleetflow app API',
    version: '1.0.0',
    description:
      'User-facing interface for white-label apps. Tokens of scope `front` come from `POST /v1/{tenant}/auth/token`. Errors use the body `{errorCode, userMessage, httpStatus, traceId}`.',
  },
  servers: [{ url: '/' }],
  security: [{ bearerAuth: [] }],
  tags: [{ name: 'Authentication' }, { name: 'App events' }, { name: 'Settings' }],
  paths: {
    '/v1/{tenant}/auth/token': tokenPath,
    [`${base}/userevents`]: {
      post: {
        tags: ['App events'],
        operationId: 'postUserEvent',
        summary: 'Record one app interaction (type must start with APP_)',
        description:
          'Anonymous calls are accepted; with a valid token the event is linked to the caller. The optional `Device-Position` header ("lat;lng" or "lat lng", WGS84) is stored when valid and ignored otherwise.',
        security: [{}, { bearerAuth: [] }],
        parameters: [
          tenantParameter,
          {
            name: 'type',
            in: 'query',
            required: true,
            schema: { type: 'string', pattern: '^APP_[A-Z0-9_]{1,60}$' },
          },
          {
            name: 'Device-Position',
            in: 'header',
            required: false,
            schema: { type: 'string', maxLength: 64 },
          },
        ],
        requestBody: {
          required: false,
          content: { 'application/json': { schema: { type: 'object', maxProperties: 20 } } },
        },
        responses: { '204': { description: 'Recorded' }, ...authenticatedErrors(404) },
      },
    },
    [`${base}/settings`]: {
      get: {
        tags: ['Settings'],
        operationId: 'getAppSettings',
        summary: 'Effective APP and SHARED settings for the given keys',
        parameters: [
          tenantParameter,
          {
            name: 'keys',
            in: 'query',
            required: true,
            schema: {
              type: 'array',
              items: { type: 'string', minLength: 1, maxLength: 200 },
              minItems: 1,
              maxItems: 50,
            },
            style: 'form',
            explode: true,
          },
          {
            name: 'branchIds',
            in: 'query',
            schema: {
              type: 'array',
              items: { type: 'integer', minimum: 0, maximum: 2147483647 },
              maxItems: 50,
            },
            style: 'form',
            explode: true,
          },
        ],
        responses: {
          '200': {
            description: 'Settings found (unknown keys are left out)',
            content: {
              'application/json': {
                schema: { type: 'array', items: { $ref: '#/components/schemas/SettingSimple' } },
              },
            },
          },
          ...authenticatedErrors(),
        },
      },
    },
  },
  components: {
    securitySchemes,
    responses: errorResponses,
    schemas: { Error: errorBodySchema, SettingSimple: settingSimpleSchema },
  },
} as const;
