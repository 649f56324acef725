// The recorded workflow histories: one JSON file per workflow path, tests/histories/<workflow>-<path>.json,
// written by tests/replay/record-histories.ts and replayed by tests/replay.test.ts against the current
// workflow bundle. A file holds the workflow id (histories carry none; workflow code may read it) and
// the history in Temporal's JSON form (the Temporal UI's and `temporal workflow show -o json`'s).
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { WorkflowHandle } from '@temporalio/client';
import type { History } from '@temporalio/common/lib/proto-utils.js';

/** protobufjs's proto3 JSON mapping (`protobufjs/ext/protojson`), on the message types of `@temporalio/proto`. */
interface ProtoJson {
  toJson(type: unknown, message: unknown): Record<string, unknown>;
  fromJson(type: unknown, json: unknown, options?: { ignoreUnknownFields?: boolean }): unknown;
}

// The SDK's historyToJSON and historyFromJSON (@temporalio/common/lib/proto-utils) fail here with "type must
// be a Type": npm gives @temporalio/common and @temporalio/proto each their own protobufjs 8 (grpc's
// protobufjs 7 holds the top level), and protojson checks the type against its own copy's class. So the
// mapping is loaded from the copy @temporalio/proto's generated types are built on.
const requireFromProto = createRequire(createRequire(import.meta.url).resolve('@temporalio/proto'));
const protoJson = requireFromProto('protobufjs/ext/protojson') as ProtoJson;
const { patchProtobufRoot } = requireFromProto('@temporalio/proto/lib/patch-protobuf-root') as {
  patchProtobufRoot(root: unknown): { lookupType(name: string): unknown };
};
const historyType = patchProtobufRoot(requireFromProto('@temporalio/proto')).lookupType(
  'temporal.api.history.v1.History',
);

/** A fetched history in Temporal's JSON form (what the Temporal UI downloads, `temporal workflow show -o json`). */
export function historyToJson(history: History): HistoryFile['history'] {
  return protoJson.toJson(
    historyType,
    (historyType as { fromObject(o: unknown): unknown }).fromObject(history),
  ) as HistoryFile['history'];
}

/** A history in Temporal's JSON form as the message `Worker.runReplayHistory` replays. */
export function historyFromJson(json: HistoryFile['history']): History {
  return protoJson.fromJson(historyType, json, { ignoreUnknownFields: true }) as History;
}

/** Where the recorded histories live. */
export const historiesDirectory = fileURLToPath(new URL('../histories/', import.meta.url));

/** One recorded history as it is stored. */
export interface HistoryFile {
  workflowId: string;
  /** Temporal's JSON form of `temporal.api.history.v1.History`. */
  history: { events: Array<Record<string, unknown>> };
}

/** A stored history with what the replay test reports. */
export interface RecordedHistory extends HistoryFile {
  /** File name without `.json`: `<workflow>-<path>`. */
  name: string;
  /** The workflow type the history's first event started. */
  workflowType: string;
}

/**
 * Stores a workflow's history as `tests/histories/<name>.json` once the workflow closed (waiting up to
 * 15 s of wall time: the caller skips the workflow's timers first), so the replay test replays it.
 */
export async function recordHistory(name: string, handle: WorkflowHandle): Promise<void> {
  const deadline = Date.now() + 15_000;
  while ((await handle.describe()).status.name === 'RUNNING') {
    if (Date.now() > deadline) throw new Error(`${handle.workflowId} still runs: record it once it closed`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const file: HistoryFile = {
    workflowId: handle.workflowId,
    history: historyToJson(await handle.fetchHistory()),
  };
  fs.mkdirSync(historiesDirectory, { recursive: true });
  fs.writeFileSync(path.join(historiesDirectory, `${name}.json`), `${JSON.stringify(file, null, 2)}\n`);
}

/** Every stored history, by file name. */
export function recordedHistories(): RecordedHistory[] {
  if (!fs.existsSync(historiesDirectory)) return [];
  return fs
    .readdirSync(historiesDirectory)
    .filter((file) => file.endsWith('.json'))
    .sort()
    .map((file) => {
      const stored = JSON.parse(fs.readFileSync(path.join(historiesDirectory, file), 'utf8')) as HistoryFile;
      const started = stored.history.events[0]?.workflowExecutionStartedEventAttributes as
        { workflowType?: { name?: string } } | undefined;
      const workflowType = started?.workflowType?.name;
      if (!workflowType) throw new Error(`${file} does not start with a WorkflowExecutionStarted event`);
      return { ...stored, name: file.slice(0, -'.json'.length), workflowType };
    });
}
