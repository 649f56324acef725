// Gives every recurring export its Temporal Schedule and every tenant with exports its retention
// schedule. The API creates them with the row; this starter covers rows written without them (the demo
// seed) and a Temporal server that lost them (a reset dev server). Schedule ids are fixed, so creating
// one twice is harmless.
import { ScheduleAlreadyRunning, type Client } from '@temporalio/client';
import type { MikroORM } from '@mikro-orm/postgresql';
import { exportRetentionScheduleOptions, exportScheduleOptions } from '../workflows/export.messages.js';

interface ExportRow {
  id: number;
  tenant_id: string;
  branch_ids: number[];
  cron: string | null;
  timezone: string | null;
  state: string;
}

/** Creates the missing schedules (all tenants, or those listed); answers how many it created. */
export async function ensureExportSchedules(
  orm: MikroORM,
  temporal: { client: Client; taskQueue: string },
  options: { tenants?: readonly string[] } = {},
): Promise<number> {
  const tenants = options.tenants ? JSON.stringify(options.tenants) : null;
  const rows = await orm.em
    .fork()
    .getConnection()
    .execute<ExportRow[]>(
      `select id, tenant_id, branch_ids, cron, timezone, state from data_export
        where deleted_at is null and (?::jsonb is null or tenant_id in (select jsonb_array_elements_text(?::jsonb))) order by id limit 10000`,
      [tenants, tenants],
    );
  let createdCount = 0;
  const create = async (scheduleOptions: Parameters<Client['schedule']['create']>[0]) => {
    try {
      await temporal.client.schedule.create(scheduleOptions);
      createdCount += 1;
    } catch (error) {
      if (!(error instanceof ScheduleAlreadyRunning)) throw error;
    }
  };
  for (const tenant of new Set(rows.map((row) => row.tenant_id)))
    await create(exportRetentionScheduleOptions(tenant, temporal.taskQueue));
  for (const row of rows)
    if (row.cron)
      await create(
        exportScheduleOptions(
          row.tenant_id,
          Number(row.id),
          {
            cron: row.cron,
            timezone: row.timezone ?? 'UTC',
            branchId: Number(row.branch_ids[0]),
            paused: row.state === 'PAUSED',
          },
          temporal.taskQueue,
        ),
      );
  return createdCount;
}

/** Runs `ensureExportSchedules` now and every `intervalMs`; answers a stop function. */
export function runExportScheduleStarter(
  orm: MikroORM,
  temporal: { client: Client; taskQueue: string },
  options: {
    intervalMs: number;
    log: (message: string, error?: unknown) => void;
    /** Only these tenants' exports (WORKER_STARTER_TENANTS); all when absent. */
    tenants?: readonly string[];
  },
): () => void {
  let stopped = false;
  const tick = async () => {
    try {
      const created = await ensureExportSchedules(orm, temporal, { tenants: options.tenants });
      if (created) options.log(`created ${created} export schedule(s)`);
    } catch (error) {
      if (!stopped) options.log('export schedule starter failed', error);
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
