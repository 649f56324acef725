// Gives the platform its `event-partitions` schedule (docs/events.md, "Partitions"): created when missing
// (a new deployment, a reset Temporal server) and fired once then, so the partitions are checked at once
// rather than a day later. The schedule id is fixed, so creating it twice is harmless.
import { ScheduleAlreadyRunning, type Client } from '@temporalio/client';
import { eventPartitionsScheduleOptions } from '../workflows/event-partitions.messages.js';

/** Creates the schedule when it is missing and triggers its first run; answers whether it created it. */
export async function ensureEventPartitionSchedule(temporal: {
  client: Client;
  taskQueue: string;
}): Promise<boolean> {
  try {
    const handle = await temporal.client.schedule.create(eventPartitionsScheduleOptions(temporal.taskQueue));
    await handle.trigger();
    return true;
  } catch (error) {
    if (error instanceof ScheduleAlreadyRunning) return false;
    throw error;
  }
}

/** Runs `ensureEventPartitionSchedule` now and every `intervalMs`; answers a stop function. */
export function runEventPartitionStarter(
  temporal: { client: Client; taskQueue: string },
  options: { intervalMs: number; log: (message: string, error?: unknown) => void },
): () => void {
  let stopped = false;
  const tick = async () => {
    try {
      if (await ensureEventPartitionSchedule(temporal)) options.log('created the event-partitions schedule');
    } catch (error) {
      if (!stopped) options.log('event partition starter failed', error);
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
