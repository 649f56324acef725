// Gives every recurring task its Temporal processes: the schedule of its time trigger and the usage
// workflow of its rental and kilometre triggers. The API creates them with the row; this starter covers the
// rows written without them (the demo seed) and a Temporal server that lost them (a reset dev server).
// Schedule and workflow ids are fixed per recurring task, so creating them twice is harmless. At the
// worker's start it also brings existing schedules' policies up to the current ones (a deploy that changed
// them reaches the schedules created before).
import {
  ScheduleAlreadyRunning,
  WorkflowExecutionAlreadyStartedError,
  type Client,
} from '@temporalio/client';
import { msToNumber } from '@temporalio/common';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Weekday } from '../domain/work.js';
import {
  RECURRING_TASK_USAGE_WORKFLOW_TYPE,
  recurringTaskSchedulePolicies,
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

/** Gives an existing schedule the current overlap and catch-up policies when it has others; true when it did. */
async function refreshSchedulePolicies(client: Client, scheduleId: string): Promise<boolean> {
  const handle = client.schedule.getHandle(scheduleId);
  const { policies } = await handle.describe();
  const wanted = recurringTaskSchedulePolicies;
  if (policies.overlap === wanted.overlap && policies.catchupWindow === msToNumber(wanted.catchupWindow))
    return false;
  await handle.update((previous) => ({ ...previous, policies: { ...previous.policies, ...wanted } }));
  return true;
}

/**
 * Creates the missing schedules and starts the missing usage workflows of the recurring tasks (all
 * tenants, or one); with `refreshPolicies`, also updates existing schedules whose policies are outdated.
 * Returns how many schedules it created or updated and usage workflows it started.
 */
export async function ensureRecurringTaskProcesses(
  orm: MikroORM,
  temporal: { client: Client; taskQueue: string },
  options: { tenant?: string; tenants?: readonly string[]; refreshPolicies?: boolean } = {},
): Promise<number> {
  const tenants = options.tenants ? JSON.stringify(options.tenants) : null;
  const rows = await orm.em
    .fork()
    .getConnection()
    .execute<RecurringTaskRow[]>(
      `select id, tenant_id, branch_id, days_of_week, time_of_day, timezone, every_rentals, every_km
       from recurring_task where (?::text is null or tenant_id = ?)
         and (?::jsonb is null or tenant_id in (select jsonb_array_elements_text(?::jsonb))) order by id limit 10000`,
      [options.tenant ?? null, options.tenant ?? null, tenants, tenants],
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
      const schedule = recurringTaskScheduleOptions(row.tenant_id, row.id, timing, temporal.taskQueue);
      try {
        await temporal.client.schedule.create(schedule);
        done++;
      } catch (error) {
        if (!(error instanceof ScheduleAlreadyRunning)) throw error;
        if (options.refreshPolicies && (await refreshSchedulePolicies(temporal.client, schedule.scheduleId)))
          done++;
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
  options: {
    intervalMs: number;
    /** Only these tenants' recurring tasks (undefined: all). */
    tenants?: readonly string[];
    log: (message: string, error?: unknown) => void;
  },
): () => void {
  let running = false;
  let first = true;
  const tick = async () => {
    if (running) return;
    running = true;
    try {
      // The first pass (at the worker's start) also updates the policies of the existing schedules.
      const done = await ensureRecurringTaskProcesses(orm, temporal, {
        refreshPolicies: first,
        tenants: options.tenants,
      });
      first = false;
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
