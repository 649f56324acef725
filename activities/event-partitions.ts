// The event partition keeper's side effect: creating the monthly partitions of the event table
// (db/event-partitions.ts), idempotently; a lock it cannot take in time fails the attempt, which retries.
import type { ActivityDeps } from './deps.js';
import { ensureEventPartitions } from '../db/event-partitions.js';
import { eventPartitionsAhead } from '../domain/events.js';
import type {
  EnsureEventPartitionsInput,
  EventPartitionsResult,
} from '../workflows/event-partitions.messages.js';

/** The events domain's activities. */
export function createEventPartitionActivities(deps: Pick<ActivityDeps, 'orm'>) {
  return {
    /** Creates the partitions of the months from `asOf`'s to `monthsAhead` months later that are missing. */
    async ensureEventPartitionsAhead(input: EnsureEventPartitionsInput): Promise<EventPartitionsResult> {
      const partitions = eventPartitionsAhead(new Date(input.asOf), input.monthsAhead);
      const result = await ensureEventPartitions(deps.orm.em.fork(), partitions);
      return { ...result, horizon: partitions[partitions.length - 1]!.to.toISOString() };
    },
  };
}
