// Demo and test data of the access domain: roles granting every domain's permissions, the demo operator
// API client (fleet operations on the city, finance on the business unit), the demo administrator client
// (Administrator on every root branch and the business unit) and the demo app client.
import type { EntityManager } from '@mikro-orm/postgresql';
import { ApiClient } from '../entities/ApiClient.js';
import { Role } from '../entities/Role.js';
import { RoleAssignment } from '../entities/RoleAssignment.js';
import { hashSecret } from '../../platform/secrets.js';
import { fromBoard, type DomainSeed, type SeedBoard } from './board.js';

/** Demo credentials printed by `npm start` and the README; only for the local demo tenant. */
export const demoOperatorClient = { clientId: 'demo-operator', clientSecret: 'demo-operator-secret' };
export const demoAppClient = { clientId: 'demo-app', clientSecret: 'demo-app-secret' };
export const demoAdministratorClient = { clientId: 'demo-admin', clientSecret: 'demo-admin-secret' };

/** Permissions only the seeded Administrator role grants: role administration and bookings out of bounds. */
const administratorsOnly = ['BOOKING_IGNORE_TIME_CONSTRAINTS', 'ROLE_MANAGE', 'BUSINESS_UNIT_ROLE_MANAGE'];

/** Roles Fleet operations, Finance and Administrator; the operator client holds the first two, the administrator client the third. */
export const accessSeed: DomainSeed = {
  async rows(tx: EntityManager, board: SeedBoard) {
    const tenant = fromBoard(board, 'tenant');
    const { permissions } = board;
    const operations = tx.create(Role, {
      tenant,
      name: 'Fleet operations',
      // Bookings inside the lead time and the advance limit, and granting roles, stay an administrator's.
      permissions: permissions.operational.filter((name) => !administratorsOnly.includes(name)),
    });
    const finance = tx.create(Role, {
      tenant,
      name: 'Finance',
      permissions: permissions.finance.filter((name) => !administratorsOnly.includes(name)),
    });
    const administrator = tx.create(Role, {
      tenant,
      name: 'Administrator',
      permissions: [...permissions.all],
    });
    const operator = tx.create(ApiClient, {
      tenant,
      clientId: demoOperatorClient.clientId,
      name: 'Demo operator dashboard',
      secretHash: await hashSecret(demoOperatorClient.clientSecret),
      scopes: ['back'],
    });
    tx.create(ApiClient, {
      tenant,
      clientId: demoAppClient.clientId,
      name: 'Demo white-label app',
      secretHash: await hashSecret(demoAppClient.clientSecret),
      scopes: ['front'],
    });
    tx.create(RoleAssignment, {
      tenant,
      role: operations,
      subjectType: 'API_CLIENT',
      subjectId: operator.clientId,
      branch: fromBoard(board, 'city'),
    });
    tx.create(RoleAssignment, {
      tenant,
      role: finance,
      subjectType: 'API_CLIENT',
      subjectId: operator.clientId,
      businessUnit: fromBoard(board, 'businessUnit'),
    });
    // What only an administrator does: tenant-wide settings (every root branch), roles, bookings out of
    // bounds. The operator dashboard's client stays a fleet operator's.
    const admin = tx.create(ApiClient, {
      tenant,
      clientId: demoAdministratorClient.clientId,
      name: 'Demo administrator console',
      secretHash: await hashSecret(demoAdministratorClient.clientSecret),
      scopes: ['back'],
    });
    for (const branch of [fromBoard(board, 'city'), fromBoard(board, 'sibling')])
      tx.create(RoleAssignment, {
        tenant,
        role: administrator,
        subjectType: 'API_CLIENT',
        subjectId: admin.clientId,
        branch,
      });
    tx.create(RoleAssignment, {
      tenant,
      role: administrator,
      subjectType: 'API_CLIENT',
      subjectId: admin.clientId,
      businessUnit: fromBoard(board, 'businessUnit'),
    });
  },
};
