// Settings (and other cached rows) a suite writes through its own ORM reach the API process by a
// PostgreSQL notification: within milliseconds, but not before the suite's next request for certain. A
// suite that changes what the API has already read calls `apiReloaded` between the write and the request:
// `POST /settings-management/reload` as the seeded administrator (tenant-wide), which empties the API's
// own cache before it answers, as an operator does after changing rows by hand.
import { demoAdministratorClient } from '../../db/seed/access.js';
import type { HttpStack } from './http.js';

/** Empties the API's read cache, so its next request reads what the suite wrote by hand. */
export async function apiReloaded(stack: HttpStack): Promise<void> {
  const token = await stack.token(stack.backend.seed.tenant, demoAdministratorClient);
  const reply = await stack.call('POST', stack.back('/settings-management/reload'), { token });
  if (reply.status !== 204) throw new Error(`reload answered ${reply.status}: ${JSON.stringify(reply.body)}`);
}
