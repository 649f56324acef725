// Settings (and other cached rows) a suite writes through its own ORM reach the API process by a
// PostgreSQL notification: within milliseconds, but not before the suite's next request for certain. A
// suite that changes what the API has already read calls `apiReloaded` between the write and the request:
// `POST /settings-management/reload`, which empties the API's own cache before it answers, as an operator
// does after changing rows by hand.
import { randomBytes } from 'node:crypto';
import { ApiClient } from '../../db/entities/ApiClient.js';
import { Branch } from '../../db/entities/Branch.js';
import { Role } from '../../db/entities/Role.js';
import { RoleAssignment } from '../../db/entities/RoleAssignment.js';
import { tenantEm } from '../../db/orm.js';
import { hashSecret } from '../../platform/secrets.js';
import type { HttpStack } from './http.js';

/** Per stack, the token of an administrator on every top-level branch of the seeded tenant. */
const administrators = new WeakMap<HttpStack, Promise<string>>();

async function tenantAdministrator(stack: HttpStack): Promise<string> {
  const { tenant } = stack.backend.seed;
  const em = tenantEm(stack.backend.orm, tenant);
  const clientId = `reload-${randomBytes(4).toString('hex')}`;
  const role = await em.findOneOrFail(Role, { name: 'Administrator' });
  em.create(ApiClient, {
    clientId,
    name: clientId,
    secretHash: await hashSecret(`${clientId}-secret`),
    scopes: ['back'],
  });
  for (const root of await em.find(Branch, { parent: null }))
    em.create(RoleAssignment, { subjectType: 'API_CLIENT', subjectId: clientId, role, branch: root });
  await em.flush();
  return stack.token(tenant, { clientId, clientSecret: `${clientId}-secret` });
}

/** Empties the API's read cache, so its next request reads what the suite wrote by hand. */
export async function apiReloaded(stack: HttpStack): Promise<void> {
  let token = administrators.get(stack);
  if (!token) administrators.set(stack, (token = tenantAdministrator(stack)));
  const reply = await stack.call('POST', stack.back('/settings-management/reload'), { token: await token });
  if (reply.status !== 204) throw new Error(`reload answered ${reply.status}: ${JSON.stringify(reply.body)}`);
}
