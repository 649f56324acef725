// The express-openapi-validator speedups (api/kernel/validator-speedups.ts) change what it costs, never
// what it decides: a request or response that breaks a schema reached through nested component references
// is still refused, and the schema ajv compiles holds only the components those references reach.
import express from 'express';
import type { AddressInfo } from 'node:net';
import * as OpenApiValidator from 'express-openapi-validator';
import type { OpenAPIV3 } from 'express-openapi-validator/dist/framework/types.js';
import { reachableOnly, speedUpOpenApiValidator } from '../api/kernel/validator-speedups.js';

const components = {
  schemas: {
    Vehicle: {
      type: 'object',
      required: ['id', 'position'],
      additionalProperties: false,
      properties: { id: { type: 'integer' }, position: { $ref: '#/components/schemas/Position' } },
    },
    Position: {
      type: 'object',
      required: ['lat'],
      properties: { lat: { type: 'number', minimum: -90, maximum: 90 } },
    },
    Unrelated: { type: 'object', properties: { x: { $ref: '#/components/schemas/AlsoUnrelated' } } },
    AlsoUnrelated: { type: 'string' },
  },
} satisfies OpenAPIV3.ComponentsObject;

test('the compiled wrapper keeps only the components its references reach, transitively, and no paths', () => {
  const wrapper = {
    paths: { '/a': {} },
    components,
    type: 'object',
    properties: { response: { type: 'array', items: { $ref: '#/components/schemas/Vehicle' } } },
  };
  const slim = reachableOnly(wrapper)!;
  expect(slim.paths).toBeUndefined();
  expect(Object.keys(slim.components!.schemas!).sort()).toEqual(['Position', 'Vehicle']);
  expect(slim.components!.schemas!.Vehicle).toBe(components.schemas.Vehicle);
  expect(slim.properties).toBe(wrapper.properties);
  // Another form of reference: the whole wrapper, as before.
  const deep = { components, properties: { a: { $ref: '#/components/schemas/Vehicle/properties/id' } } };
  expect(reachableOnly(deep)).toBeUndefined();
  expect(reachableOnly({ components, properties: { a: { $ref: 'other.json#/x' } } })).toBeUndefined();
  expect(
    reachableOnly({ components, properties: { a: { $ref: '#/components/schemas/Missing' } } }),
  ).toBeUndefined();
  expect(reachableOnly({ components, $id: 'https://example.com/s' })).toBeUndefined();
});

/** The body the test route takes and answers (the Vehicle component). */
interface Vehicle {
  id: number;
  position: { lat: number };
}

test('requests and responses that break a nested component are still refused', async () => {
  speedUpOpenApiValidator();
  const document = {
    openapi: '3.0.3',
    info: { title: 'speedups', version: '1' },
    paths: {
      '/v1/{tenant}/back/vehicles': {
        parameters: [{ name: 'tenant', in: 'path', required: true, schema: { type: 'string' } }],
        post: {
          requestBody: {
            required: true,
            content: { 'application/json': { schema: { $ref: '#/components/schemas/Vehicle' } } },
          },
          responses: {
            '200': {
              description: 'the vehicle',
              content: { 'application/json': { schema: { $ref: '#/components/schemas/Vehicle' } } },
            },
          },
        },
      },
    },
    components,
  } satisfies OpenAPIV3.DocumentV3;
  const app = express();
  app.use(express.json());
  app.use(
    OpenApiValidator.middleware({
      apiSpec: structuredClone(document),
      validateRequests: true,
      validateResponses: true,
    }),
  );
  // Answers the body back, or with a position out of range when asked to.
  app.post<'/v1/:tenant/back/vehicles', { tenant: string }, unknown, Vehicle>(
    '/v1/:tenant/back/vehicles',
    (req, res) => {
      const body = req.body;
      res.json(body.id === 13 ? { ...body, position: { lat: 1000 } } : body);
    },
  );
  const answerError: express.ErrorRequestHandler = (
    error: { status?: number; message?: string },
    _req,
    res,
    _next,
  ) => {
    res.status(error.status ?? 500).json({ message: String(error.message) });
  };
  app.use(answerError);
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/t/back/vehicles`;
  const post = (body: unknown) =>
    fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  try {
    expect((await post({ id: 1, position: { lat: 52.5 } })).status).toBe(200);
    const badRequest = await post({ id: 1, position: { lat: 91 } });
    expect(badRequest.status).toBe(400);
    expect(((await badRequest.json()) as { message: string }).message).toContain('position/lat');
    const badResponse = await post({ id: 13, position: { lat: 0 } });
    expect(badResponse.status).toBe(500);
    expect(((await badResponse.json()) as { message: string }).message).toContain('position/lat');
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
});
