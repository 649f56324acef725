// The little of pg-copy-streams the exports use (its @types package pulls in @types/pg, which retypes
// the rest of the project's pg use).
declare module 'pg-copy-streams' {
  import type { Readable } from 'node:stream';
  /** `COPY … TO STDOUT` as a readable stream of the server's bytes; pg's client runs it (`client.query`). */
  export function to(text: string): Readable & {
    /** The rows the server reports in the COPY's CommandComplete. */
    rowCount?: number;
    /** pg calls it when the statement is over (ReadyForQuery). */
    handleReadyForQuery(): void;
  };
}
