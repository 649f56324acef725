// OpenAPI 3.1 document of the operator interface (`/v1/{tenant}/back`): the contract the validator enforces.
// Component schemas are inlined where nested: express-openapi-validator cannot resolve a $ref inside a referenced request schema.
import {
  authenticatedErrors,
  errorBodySchema,
  errorResponses,
  pagingHeaders,
  pagingParameters,
  positionSchema,
  rentalOperationTypeSchema,
  rentalStateSchema,
  securitySchemes,
  tenantParameter,
  tokenPath,
} from './common.js';
import { allPermissions } from '../../domain/permissions.js';

const base = '/v1/{tenant}/back';
const id = { type: 'integer', format: 'int64', minimum: 1, maximum: 2147483647 };
const rentalIdParameter = { name: 'rentalId', in: 'path', required: true, schema: id };
const dateTime = { type: 'string', format: 'date-time' };
const nullable = (schema: Record<string, unknown>) => ({ oneOf: [schema, { type: 'null' }] });

const rentalSchema = {
  type: 'object',
  required: ['id', 'state', 'branchId', 'vehicle', 'user', 'reservedAt', 'createdAt', 'updatedAt'],
  properties: {
    id,
    state: rentalStateSchema,
    activeMode: nullable({ type: 'string', enum: ['DRIVING', 'PARKING'] }),
    branchId: id,
    vehicle: {
      type: 'object',
      required: ['id', 'code', 'categoryId'],
      properties: {
        id,
        code: { type: 'string' },
        categoryId: id,
        licensePlate: nullable({ type: 'string' }),
      },
    },
    user: {
      type: 'object',
      required: ['id', 'firstName', 'lastName', 'email'],
      properties: {
        id,
        firstName: { type: 'string' },
        lastName: { type: 'string' },
        email: { type: 'string' },
      },
    },
    createdBy: nullable({ type: 'string' }),
    reservedAt: dateTime,
    reservationExpiresAt: nullable(dateTime),
    startedAt: nullable(dateTime),
    endedAt: nullable(dateTime),
    startPosition: nullable(positionSchema),
    endPosition: nullable(positionSchema),
    distanceKm: nullable({ type: 'number' }),
    workflowId: { type: 'string', description: 'Id of the rental workflow in the Temporal UI.' },
    createdAt: dateTime,
    updatedAt: dateTime,
  },
  additionalProperties: false,
};

const adminAddRentalSchema = {
  type: 'object',
  description:
    'Normal rental creation plus operator context: the operator creates a rental for a customer. Give exactly one of vehicleId and vehicleCode.',
  required: ['guserId'],
  properties: {
    guserId: { ...id, description: 'Customer the rental is for.' },
    vehicleId: id,
    vehicleCode: { type: 'string', minLength: 1, maxLength: 64 },
    branchId: { ...id, description: "Optional; must be the vehicle's branch when given." },
    startImmediately: {
      type: 'boolean',
      default: false,
      description: 'Create an ACTIVE rental (unlocks the vehicle).',
    },
  },
  oneOf: [{ required: ['vehicleId'] }, { required: ['vehicleCode'] }],
  additionalProperties: false,
};

const rentalOperationSchema = {
  type: 'object',
  required: ['operationType'],
  properties: {
    operationType: rentalOperationTypeSchema,
    adminOverride: {
      type: 'boolean',
      default: false,
      description: 'Administrative override of failed end requirements.',
    },
    userPosition: positionSchema,
  },
  additionalProperties: false,
};

const eventSchema = {
  type: 'object',
  required: ['id', 'type', 'createdAt'],
  properties: {
    id: { type: 'integer', format: 'int64' },
    type: { type: 'string' },
    createdAt: dateTime,
    branchId: nullable(id),
    vehicleId: nullable(id),
    rentalId: nullable(id),
    guserId: nullable(id),
    adminGuser: nullable({ type: 'string' }),
    position: nullable(positionSchema),
    description: nullable({ type: 'string' }),
    payload: nullable({ type: 'object' }),
  },
  additionalProperties: false,
};

const rentalResponse = (description: string) => ({
  description,
  content: { 'application/json': { schema: { $ref: '#/components/schemas/Rental' } } },
});

export const backDocument = {
  openapi: '3.1.0',
  info: {
    title: 'fleetflow operator API',
    version: '1.0.0',
    description:
      'Operator interface of the fleetflow shared-mobility platform. Every call needs a bearer token of scope `back` issued by `POST /v1/{tenant}/auth/token`; permissions come from role assignments on branches (operational) and business units (finance). Errors use the body `{errorCode, userMessage, httpStatus, traceId}`.',
  },
  servers: [{ url: '/' }],
  security: [{ bearerAuth: [] }],
  tags: [{ name: 'Authentication' }, { name: 'Rentals' }, { name: 'Events' }, { name: 'Roles' }],
  paths: {
    '/v1/{tenant}/auth/token': tokenPath,
    [`${base}/rentals`]: {
      get: {
        tags: ['Rentals'],
        operationId: 'listRentals',
        summary: 'Rentals of a branch, newest first',
        parameters: [
          tenantParameter,
          { name: 'branchId', in: 'query', required: true, schema: id },
          { name: 'includeChildBranches', in: 'query', schema: { type: 'boolean', default: false } },
          {
            name: 'state',
            in: 'query',
            description: 'Repeatable.',
            schema: { type: 'array', items: rentalStateSchema },
            style: 'form',
            explode: true,
          },
          { name: 'vehicleId', in: 'query', schema: id },
          { name: 'guserId', in: 'query', schema: id },
          {
            name: 'sort',
            in: 'query',
            schema: {
              type: 'string',
              pattern: '^(id|createdAt|reservedAt|state)(,(asc|desc|ASC|DESC))?$',
              default: 'createdAt,desc',
            },
          },
          ...pagingParameters,
        ],
        responses: {
          '200': {
            description: 'One page of rentals',
            headers: pagingHeaders,
            content: {
              'application/json': {
                schema: { type: 'array', items: { $ref: '#/components/schemas/Rental' } },
              },
            },
          },
          ...authenticatedErrors(404),
        },
      },
      post: {
        tags: ['Rentals'],
        operationId: 'adminAddRental',
        summary: 'Create a rental for a customer (starts the rental workflow in RESERVATION)',
        parameters: [tenantParameter],
        requestBody: {
          required: true,
          content: { 'application/json': { schema: { $ref: '#/components/schemas/AdminAddRental' } } },
        },
        responses: { '201': rentalResponse('Rental created'), ...authenticatedErrors(404, 409, 502, 504) },
      },
    },
    [`${base}/rentals/{rentalId}`]: {
      get: {
        tags: ['Rentals'],
        operationId: 'getRental',
        parameters: [tenantParameter, rentalIdParameter],
        responses: { '200': rentalResponse('The rental'), ...authenticatedErrors(404) },
      },
      delete: {
        tags: ['Rentals'],
        operationId: 'cancelReservation',
        summary: 'Cancel a rental in RESERVATION',
        parameters: [tenantParameter, rentalIdParameter],
        responses: { '200': rentalResponse('The cancelled rental'), ...authenticatedErrors(404, 409) },
      },
    },
    [`${base}/rentals/{rentalId}/operation`]: {
      post: {
        tags: ['Rentals'],
        operationId: 'rentalOperation',
        summary: 'Run START, END, PARK, DRIVE, RENEW_RESERVATION or OPEN_TAILBOX',
        parameters: [tenantParameter, rentalIdParameter],
        requestBody: {
          required: true,
          content: { 'application/json': { schema: { $ref: '#/components/schemas/RentalOperation' } } },
        },
        responses: {
          '200': rentalResponse('The rental after the operation'),
          ...authenticatedErrors(404, 409, 502, 504),
        },
      },
    },
    [`${base}/{entityType}/{entityId}/events`]: {
      get: {
        tags: ['Events'],
        operationId: 'entityEvents',
        summary: "An entity's event timeline, oldest first",
        parameters: [
          tenantParameter,
          {
            name: 'entityType',
            in: 'path',
            required: true,
            schema: { type: 'string', enum: ['RENTALS', 'VEHICLES'] },
          },
          { name: 'entityId', in: 'path', required: true, schema: id },
          ...pagingParameters,
        ],
        responses: {
          '200': {
            description: 'Events',
            headers: pagingHeaders,
            content: {
              'application/json': {
                schema: { type: 'array', items: { $ref: '#/components/schemas/Event' } },
              },
            },
          },
          ...authenticatedErrors(404),
        },
      },
    },
    [`${base}/roles/assignments/exists`]: {
      get: {
        tags: ['Roles'],
        operationId: 'roleAssignmentExists',
        summary: 'Does the caller hold a permission (or a role), optionally on a branch or business unit',
        description: 'A pre-check only: the action endpoint stays authoritative.',
        parameters: [
          tenantParameter,
          { name: 'permission', in: 'query', schema: { type: 'string', enum: [...allPermissions] } },
          { name: 'roleName', in: 'query', schema: { type: 'string', minLength: 1, maxLength: 100 } },
          { name: 'branchId', in: 'query', schema: id },
          { name: 'businessUnitId', in: 'query', schema: id },
        ],
        responses: {
          '200': {
            description: 'Whether the caller holds it',
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  required: ['exists'],
                  properties: { exists: { type: 'boolean' } },
                  additionalProperties: false,
                },
              },
            },
          },
          ...authenticatedErrors(404),
        },
      },
    },
  },
  components: {
    securitySchemes,
    responses: errorResponses,
    schemas: {
      Error: errorBodySchema,
      Position: positionSchema,
      RentalState: rentalStateSchema,
      RentalOperationType: rentalOperationTypeSchema,
      Rental: rentalSchema,
      AdminAddRental: adminAddRentalSchema,
      RentalOperation: rentalOperationSchema,
      Event: eventSchema,
    },
  },
} as const;
