// The voucher state keeper's side effect: a tenant's vouchers brought up to an instant (db/vouchers.ts
// `refreshVoucherStates`: past validUntil → EXPIRED, due PENDING → ACTIVE with a Value voucher's credit
// written once to its owner's balance), in one transaction. Idempotent: a second call moves nothing.
import type { ActivityDeps } from './deps.js';
import { inTenantTransaction } from '../db/orm.js';
import { refreshVoucherStates } from '../db/vouchers.js';
import type { RefreshVoucherStatesInput, VoucherStatesResult } from '../workflows/voucher-states.messages.js';
import { asActivity } from './support.js';

/** The voucher state keeper's activities. */
export function createVoucherStateActivities(deps: Pick<ActivityDeps, 'orm'>) {
  return {
    /** Moves the tenant's vouchers to the states their dates give at `asOf`; answers how many moved. */
    async refreshTenantVoucherStates(input: RefreshVoucherStatesInput): Promise<VoucherStatesResult> {
      return asActivity(async () => ({
        moved: await inTenantTransaction(deps.orm, input.tenant, (tx) =>
          refreshVoucherStates(tx, 'all', new Date(input.asOf)),
        ),
      }));
    },
  };
}
