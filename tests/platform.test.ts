// Platform rules: registration by domain, secrets, error mapping, and migrations against entities.
import fs from 'node:fs';
import path from 'node:path';
import { DeadlockException } from '@mikro-orm/core';
import { WorkflowNotFoundError } from '@temporalio/client';
import { toDomainError } from '../api/errors.js';
import { loadConfig, repoRoot } from '../platform/config.js';
import { buildPermissionCatalogue } from '../domain/permissions.js';
import { defineErrorCodes } from '../domain/errors.js';
import { errorCatalogueDocument, errorDocsPath } from '../scripts/error-docs.js';
import { Type } from '@sinclair/typebox';
import { buildDocument } from '../api/kernel/openapi.js';
import { defineRoute, ok, type AnyRoute } from '../api/kernel/route.js';
import { mountRoutes, type ApiServices } from '../api/kernel/mount.js';
import express from 'express';
import { component, Id } from '../api/kernel/schemas.js';
import { connectOrm } from '../composition/orm.js';
import { createActivities } from '../composition/worker.js';
import { startApi } from '../composition/api-server.js';
import { domains, errorCatalogue, permissionCatalogue, processKinds } from '../composition/registry.js';
import { defineDomain } from '../composition/domains/domain.js';

const noDeps = {} as Parameters<typeof createActivities>[0];

describe('registration by domain', () => {
  test('two activities with one name fail at start, naming both domains', () => {
    const first = defineDomain({ name: 'alpha', activities: () => ({ sendThing: async () => 1 }) });
    const second = defineDomain({ name: 'beta', activities: () => ({ sendThing: async () => 2 }) });
    expect(() => createActivities(noDeps, [first, second])).toThrow(/sendThing.*alpha.*beta/);
    expect(Object.keys(createActivities(noDeps, [first]))).toEqual(['sendThing']);
  });

  test('a permission declared by two domains fails; the catalogue joins every domain', () => {
    expect(() => buildPermissionCatalogue([{ operational: ['X_READ'] }, { finance: ['X_READ'] }])).toThrow(
      /X_READ/,
    );
    const catalogue = permissionCatalogue();
    expect(catalogue.operational).toContain('RENTAL_READ');
    expect(catalogue.finance).toContain('INVOICE_READ');
    expect(new Set(domains.map((domain) => domain.name)).size).toBe(domains.length);
  });
});

describe('document components', () => {
  test('a component name given to two schemas fails at start', () => {
    expect(() => component('Position', Type.Object({}))).toThrow(/Position/);
  });
});

describe('error codes live with their domains', () => {
  test('a code declared by two domains fails at start; the catalogue joins every domain', () => {
    expect(() =>
      defineErrorCodes('probe', {
        R201: { code: 'R201', meaning: 'twice', retryable: false, httpStatus: 409, source: 'project' },
      }),
    ).toThrow(/R201.*rentals.*probe/);
    const codes = errorCatalogue().map((entry) => entry.code);
    expect(new Set(codes).size).toBe(codes.length);
    expect(codes).toEqual(expect.arrayContaining(['0022', 'R201', 'B300', 'ODP104', 'J100']));
  });

  test('docs/errors.md is generated from the catalogue (npm run docs:errors)', async () => {
    expect(fs.readFileSync(errorDocsPath, 'utf8')).toBe(await errorCatalogueDocument());
  });
});

describe('a workflow that no longer runs is reported as its own entity', () => {
  test('rental workflows answer R201; unknown kinds answer 0030', () => {
    const rental = toDomainError(
      new WorkflowNotFoundError('gone', 'rental:demo:1000', undefined),
      processKinds(),
    );
    expect({ code: rental.code, message: rental.message }).toEqual({
      code: 'R201',
      message: 'the rental is no longer running; re-read its state',
    });
    const other = toDomainError(
      new WorkflowNotFoundError('gone', 'parking-reservation:demo:7', undefined),
      processKinds(),
    );
    expect({ code: other.code, status: other.httpStatus }).toEqual({ code: '0030', status: 409 });
  });
});

describe("a transaction another request met head-on is the client's to retry, not a fault", () => {
  test('a deadlock or a serialization failure answers 0031 (409), never 0099', () => {
    const deadlock = Object.assign(new Error('deadlock detected'), { code: '40P01' });
    for (const error of [
      new DeadlockException(deadlock),
      deadlock,
      Object.assign(new Error('could not serialize access'), { code: '40001' }),
    ]) {
      const mapped = toDomainError(error);
      expect({ code: mapped.code, status: mapped.httpStatus }).toEqual({ code: '0031', status: 409 });
    }
    expect(toDomainError(new Error('something else')).code).toBe('0099');
  });
});

describe('no secret ships in code', () => {
  test('without JWT_SECRET the configuration has none and the API refuses to start', async () => {
    const config = loadConfig({});
    expect(config.jwtSecret).toBeUndefined();
    const withUrls = { DATABASE_URL: 'postgres://x', MQTT_URL: 'mqtt://x', TEMPORAL_ADDRESS: 'x:1' };
    await expect(startApi(withUrls)).rejects.toThrow(/JWT_SECRET/);
    await expect(startApi({ ...withUrls, JWT_SECRET: 'short' })).rejects.toThrow(/at least 32/);
  });

  test('docker-compose requires JWT_SECRET instead of defaulting it', () => {
    const compose = fs.readFileSync(path.join(repoRoot, 'docker-compose.yml'), 'utf8');
    expect(compose).toMatch(/JWT_SECRET: \$\{JWT_SECRET:\?/);
    expect(compose).not.toMatch(/JWT_SECRET:-/);
  });
});

describe('the documents come from the declarations', () => {
  test('a deprecated route names its replacement; permissions are documented; a broken declaration fails at start', () => {
    const route = defineRoute({
      operationId: 'oldRentalList',
      method: 'get',
      path: '/rentals-old',
      interface: 'back',
      summary: 'Old list',
      tags: ['Rentals'],
      query: Type.Object({ branchId: Id() }),
      access: {
        permission: 'RENTAL_READ',
        branchOf: 'query parameter branchId',
        branch: (ctx) => ctx.query.branchId,
      },
      responses: { 200: { description: 'Rentals', schema: Type.Array(Type.Object({ id: Id() })) } },
      errors: ['R404'],
      deprecated: { replacement: 'GET /rentals' },
      handler: async () => ok([]),
    });
    const operation = buildDocument('back', { title: 't', description: 'd' }, [route]).paths[
      '/v1/{tenant}/back/rentals-old'
    ]!.get as Record<string, unknown>;
    expect(operation).toMatchObject({
      deprecated: true,
      'x-permission': { permission: 'RENTAL_READ', scope: 'BRANCH' },
      description: expect.stringContaining('use `GET /rentals` instead'),
    });
    expect(Object.keys(operation.responses as object)).toEqual(['200', '400', '401', '403', '404', '431']);
    expect(buildDocument('front', { title: 't', description: 'd' }, [route]).paths).toEqual({});

    const services = { permissions: permissionCatalogue() } as ApiServices;
    const withoutHandler = { ...route, handler: undefined } as unknown as AnyRoute;
    expect(() => mountRoutes(express(), [withoutHandler], services)).toThrow(/oldRentalList has no handler/);
    const undeclaredPermission = { ...route, access: { ...route.access, permission: 'RENTAL_TELEPORT' } };
    expect(() => mountRoutes(express(), [undeclaredPermission], services)).toThrow(/RENTAL_TELEPORT/);
    expect(() => mountRoutes(express(), [route, route], services)).toThrow(/declared twice/);
  });
});

describe('schema', () => {
  test('the migrations build exactly the schema the entities describe', async () => {
    const databaseUrl = process.env.DATABASE_URL;
    if (!databaseUrl) throw new Error('DATABASE_URL is not set: run the tests through jest');
    const orm = await connectOrm(databaseUrl, { pool: { min: 0, max: 1 } });
    try {
      const drift = await orm.schema.getUpdateSchemaSQL({ wrap: false, safe: false, dropTables: true });
      expect(drift.trim()).toBe('');
    } finally {
      await orm.close();
    }
  });
});
