import type { ErrorCode } from '../domain/errors.js';

/** A long-running process kind: how its workflow ids start and what a call to a finished one answers. */
export interface ProcessKind {
  /** First segment of the workflow id, e.g. `rental` in `rental:{tenant}:{id}`. */
  workflowIdPrefix: string;
  /** Catalogue code answered when an update reaches a workflow that no longer runs. */
  notRunning: ErrorCode;
  /** What the process is about, for the message: "the rental is no longer running". */
  noun: string;
}
