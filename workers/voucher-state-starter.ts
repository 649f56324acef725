// Gives every tenant with benefit templates its `voucher-states:{tenant}` schedule (docs/benefits.md,
// "States"): created when missing (a new tenant, the demo seed, a reset Temporal server). Schedule ids are
// fixed, so creating one twice is harmless.
import { ScheduleAlreadyRunning, type Client } from '@temporalio/client';
import type { MikroORM } from '@mikro-orm/postgresql';
import { voucherStatesScheduleOptions } from '../workflows/voucher-states.messages.js';

/** Creates the missing schedules (all tenants with templates, or those listed); answers how many it created. */
export async function ensureVoucherStateSchedules(
  orm: MikroORM,
  temporal: { client: Client; taskQueue: string },
  options: { tenants?: readonly string[] } = {},
): Promise<number> {
  const tenants = options.tenants ? JSON.stringify(options.tenants) : null;
  const rows = await orm.em
    .fork()
    .getConnection()
    .execute<{ tenant_id: string }[]>(
      `select distinct tenant_id from voucherable
        where (?::jsonb is null or tenant_id in (select jsonb_array_elements_text(?::jsonb)))
        order by tenant_id limit 10000`,
      [tenants, tenants],
    );
  let created = 0;
  for (const { tenant_id: tenant } of rows) {
    try {
      await temporal.client.schedule.create(voucherStatesScheduleOptions(tenant, temporal.taskQueue));
      created += 1;
    } catch (error) {
      if (!(error instanceof ScheduleAlreadyRunning)) throw error;
    }
  }
  return created;
}

/** Runs `ensureVoucherStateSchedules` now and every `intervalMs`; answers a stop function. */
export function runVoucherStateStarter(
  orm: MikroORM,
  temporal: { client: Client; taskQueue: string },
  options: {
    intervalMs: number;
    log: (message: string, error?: unknown) => void;
    /** Only these tenants (WORKER_STARTER_TENANTS); all when absent. */
    tenants?: readonly string[];
  },
): () => void {
  let stopped = false;
  const tick = async () => {
    try {
      const created = await ensureVoucherStateSchedules(orm, temporal, { tenants: options.tenants });
      if (created) options.log(`created ${created} voucher state schedule(s)`);
    } catch (error) {
      if (!stopped) options.log('voucher state starter failed', error);
    }
  };
  void tick();
  const timer = setInterval(() => void tick(), options.intervalMs);
  timer.unref();
  return () => {
    stopped = true;
    clearInterval(timer);
  };
}
