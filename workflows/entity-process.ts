// The idiom of a long-lived entity's workflow (rental, booking), as Temporal's samples keep state: an
// object holds the entity's snapshot and its steps, the workflow function registers handlers that call
// into it and runs the timer loop. This base keeps what every such entity shares.
import { catalogueEntry } from '../domain/errors.js';
import { refusal } from './failures.js';

/**
 * A long-lived entity in its workflow: the snapshot its updates and status query answer, and one
 * state-changing step at a time (the step's name stays in the snapshot while it runs).
 */
export abstract class EntityProcess<Name extends string, Snapshot extends { operationInProgress?: Name }> {
  protected constructor(
    readonly snapshot: Snapshot,
    /** Refuses a second step while one runs: R202 for rentals, B313 for bookings. */
    private readonly busyCode: string,
  ) {}

  /** A copy of the snapshot: what the updates and the status query answer. */
  view(): Snapshot {
    return { ...this.snapshot };
  }

  /** Runs one state-changing step at a time; the validators reject anything else meanwhile. */
  async exclusively<T>(name: Name, step: () => Promise<T>): Promise<T> {
    this.snapshot.operationInProgress = name;
    try {
      return await step();
    } finally {
      this.snapshot.operationInProgress = undefined;
    }
  }

  /** Refuses a step while another one runs, naming the one in progress. */
  assertIdle(): void {
    if (this.snapshot.operationInProgress)
      throw refusal(
        this.busyCode,
        `${catalogueEntry(this.busyCode).meaning} (${this.snapshot.operationInProgress})`,
      );
  }
}
