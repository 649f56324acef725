// Gives every recurring task its Temporal processes: the schedule of its time trigger and the usage
// workflow of its rental and kilometre triggers. The API creates them with the row; this starter covers the
// rows written without them (the demo seed) and a Temporal server that lost them (a reset dev server).
// Schedule and workflow ids are fixed per recurring task, so creating them twice is harmless.
import {
  ScheduleAlreadyRunning,
  WorkflowExecutionAlreadyStartedError,
  type Client,
} from '@temporalio/client';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Weekday } from '../domain/work.js';
import {
  RECURRING_TASK_USAGE_WORKFLOW_TYPE,
  recurringTaskScheduleOptions,
  recurringTaskUsageStartOptions,
} from '../workflows/work.messages.js';

interface RecurringTaskRow {
  id: number;
  tenant_id: string;
  branch_id: number;
  days_of_week: Weekday[] | null;
  time_of_day: string | null;
  timezone: string | null;
  every_rentals: number | null;
  every_km: number | null;
}

/**
 * Creates the missing schedules and starts the missing usage workflows of the recurring tasks (all
 * tenants, or one); returns how many it created or started.
 */
export async function ensureRecurringTaskProcesses(
  orm: MikroORM,
  temporal: { client: Client; taskQueue: string },
  options: { tenant?: string } = {},
): Promise<number> {
  const rows = await orm.em
    .fork()
    .getConnection()
    .execute<RecurringTaskRow[]>(
      `select id, tenant_id, branch_id, days_of_week, time_of_day, timezone, every_rentals, every_km
       from recurring_task where (?::text is null or tenant_id = ?) order by id limit 10000`,
      [options.tenant ?? null, options.tenant ?? null],
    );
  let done = 0;
  for (const row of rows) {
    if (row.days_of_week?.length && row.time_of_day && row.timezone) {
      const timing = {
        branchId: row.branch_id,
        daysOfWeek: row.days_of_week,
        timeOfDay: row.time_of_day,
        timezone: row.timezone,
      };
      try {
        await temporal.client.schedule.create(
          recurringTaskScheduleOptions(row.tenant_id, row.id, timing, temporal.taskQueue),
        );
        done++;
      } catch (error) {
        if (!(error instanceof ScheduleAlreadyRunning)) throw error;
      }
    }
    if (row.every_rentals || row.every_km) {
      try {
        await temporal.client.workflow.start(
          RECURRING_TASK_USAGE_WORKFLOW_TYPE,
          recurringTaskUsageStartOptions(row.tenant_id, row.id, row.branch_id, temporal.taskQueue),
        );
        done++;
      } catch (error) {
        if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
      }
    }
  }
  return done;
}

/** Runs the starter now and every `intervalMs`; returns a stop function. Failures are logged, not thrown. */
export function runRecurringTaskStarter(
  orm: MikroORM,
  temporal: { client: Client; taskQueue: string },
  options: { intervalMs: number; log: (message: string, error?: unknown) => void },
): () => void {
  let running = false;
  const tick = async () => {
    if (running) return;
    running = true;
    try {
      const done = await ensureRecurringTaskProcesses(orm, temporal);
      if (done > 0) options.log(`created or started ${done} recurring task schedule(s) or workflow(s)`);
    } catch (error) {
      options.log("ensuring the recurring tasks' schedules and workflows failed", error);
    } finally {
      running = false;
    }
  };
  void tick();
  const timer = setInterval(() => void tick(), options.intervalMs);
  return () => clearInterval(timer);
}
