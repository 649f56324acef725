// The little of pg-cursor and pg-copy-streams the exports use (their @types packages pull in @types/pg,
// which retypes the rest of the project's pg use).
declare module 'pg-cursor' {
  /** A server-side cursor (portal) read `rows` at a time. */
  export default class Cursor<Row = unknown[]> {
    constructor(text: string, values?: readonly unknown[], config?: { rowMode?: 'array' });
    read(rows: number): Promise<Row[]>;
    close(): Promise<void>;
  }
}

declare module 'pg-copy-streams' {
  import type { Readable } from 'node:stream';
  /** `COPY … TO STDOUT` as a readable stream of the server's bytes. */
  export function to(text: string): Readable & { rowCount?: number };
}
