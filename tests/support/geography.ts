// The set-up of the geography suites (tests/geography-*.test.ts): a session with a rival tenant and a
// client that may only read on the district branch, for the denials.
import { ApiClient } from '../../db/entities/ApiClient.js';
import { Branch } from '../../db/entities/Branch.js';
import { Role } from '../../db/entities/Role.js';
import { RoleAssignment } from '../../db/entities/RoleAssignment.js';
import { hashSecret } from '../../platform/secrets.js';
import type { CallOptions } from './http.js';
import { startSession, type Session } from './session.js';

export interface GeographySession extends Session {
  /** A client with only read permissions on the district branch (for denials). */
  readerToken: string;
}

/** Starts a session with the rival tenant "Rival Geo" and the geo reader client. */
export async function startGeographySession(): Promise<GeographySession> {
  const session = await startSession({ rival: { prefix: 'rivalgeo', name: 'Rival Geo' } });
  try {
    const em = session.em();
    const readerRole = em.create(Role, {
      name: 'Geo reader',
      permissions: ['BRANCH_READ', 'AREA_READ', 'STATION_READ', 'POI_READ'],
    });
    const client = em.create(ApiClient, {
      clientId: 'geo-reader',
      name: 'Geo reader',
      secretHash: await hashSecret('geo-reader-secret'),
      scopes: ['back'],
    });
    em.create(RoleAssignment, {
      role: readerRole,
      subjectType: 'API_CLIENT',
      subjectId: client.clientId,
      branch: em.getReference(Branch, session.seed.branchId),
    });
    await em.flush();
    const readerToken = await session.stack.token(session.seed.tenant, {
      clientId: 'geo-reader',
      clientSecret: 'geo-reader-secret',
    });
    return Object.assign(session, { readerToken });
  } catch (error) {
    await session.stop();
    throw error;
  }
}

/** Request options with a token and, when given, a body. */
export const as = (token: string, body?: unknown): CallOptions => ({
  token,
  ...(body === undefined ? {} : { body }),
});
