// Helpers of the balance suites (operator and app): an API client with one grant, a list of expected
// catalogue errors, balances and ledger rows written through the operator's routes, and polling.
import { ApiClient } from '../../db/entities/ApiClient.js';
import { BusinessUnit } from '../../db/entities/BusinessUnit.js';
import { Branch } from '../../db/entities/Branch.js';
import { Role } from '../../db/entities/Role.js';
import { RoleAssignment } from '../../db/entities/RoleAssignment.js';
import { tenantEm } from '../../db/orm.js';
import { hashSecret } from '../../platform/secrets.js';
import { expectError, type Reply } from './http.js';
import type { Session } from './session.js';

/** One request and the status and catalogue code it must answer (with its body, when it has one). */
export type ErrorCase = [string, string, number, string, unknown?];

/** The helpers, bound to a started session (read lazily: call them inside tests and hooks). */
export function balanceKit(session: () => Session) {
  const stack = () => session().stack;
  const call = (...args: Parameters<Session['stack']['call']>) => stack().call(...args);
  const back = (path: string) => stack().back(path);
  const em = () => tenantEm(stack().backend.orm, session().seed.tenant);

  /** An API client of the seeded tenant holding one role on a branch or a business unit. */
  async function grantClient(
    clientId: string,
    grant: { role: string; branchId?: number; businessUnitId?: number },
  ) {
    const manager = em();
    const role = await manager.findOneOrFail(Role, { name: grant.role });
    manager.create(ApiClient, {
      clientId,
      name: clientId,
      secretHash: await hashSecret(`${clientId}-secret`),
      scopes: ['back'],
    });
    manager.create(RoleAssignment, {
      subjectType: 'API_CLIENT',
      subjectId: clientId,
      role,
      ...(grant.branchId ? { branch: manager.getReference(Branch, grant.branchId) } : {}),
      ...(grant.businessUnitId
        ? { businessUnit: manager.getReference(BusinessUnit, grant.businessUnitId) }
        : {}),
    });
    await manager.flush();
    return stack().token(session().seed.tenant, { clientId, clientSecret: `${clientId}-secret` });
  }

  /** Each request answers this status and catalogue code. */
  async function expectErrors(cases: ErrorCase[], token?: string) {
    for (const [method, path, status, code, body] of cases) {
      const reply = await call(method, path, { token, ...(body === undefined ? {} : { body }) });
      try {
        expectError(reply, status, code);
      } catch (error) {
        throw new Error(`${method} ${path} ${JSON.stringify(body)}: ${JSON.stringify(reply.body)}`, {
          cause: error,
        });
      }
    }
  }

  /** A balance created by the operator (201). */
  async function operatorBalance(body: Record<string, unknown>): Promise<Reply['body']> {
    const reply = await call('POST', back('/balances'), {
      token: session().operatorToken,
      body: { businessUnitId: session().seed.businessUnitId, ...body },
    });
    expect(reply.status).toBe(201);
    return reply.body;
  }

  /** Posts a manual ledger row (201). */
  async function post(
    balanceId: number,
    amount: string,
    description = 'customer care',
  ): Promise<Reply['body']> {
    const reply = await call('POST', back(`/balances/${balanceId}/updates`), {
      token: session().operatorToken,
      body: { amount, description },
    });
    expect(reply.status).toBe(201);
    return reply.body;
  }

  /** Polls until the check passes (workflows run in the background). */
  async function eventually<T>(
    read: () => Promise<T>,
    check: (value: T) => boolean,
    timeoutMs = 30_000,
  ): Promise<T> {
    const until = Date.now() + timeoutMs;
    for (;;) {
      const value = await read();
      if (check(value)) return value;
      if (Date.now() > until) throw new Error(`condition not met in time: ${JSON.stringify(value)}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }

  return { call, back, em, grantClient, expectErrors, operatorBalance, post, eventually };
}
