// The whole stack as `npm start` runs it (scripts/start.ts: embedded PostgreSQL, MQTT broker, Temporal dev
// server, mail catcher, versitygw, the worker, the API and the simulator), started as a child process on
// free ports over a fresh data directory, and the small HTTP client the journeys suite talks to it with.
// Nothing here touches the database or Temporal: the suite sees what a client of the API sees.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, test } from '@jest/globals';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/** Environment that would point the stack at other infrastructure (the jest parent may have set it). */
const foreignInfrastructure = [
  'DATABASE_URL',
  'MQTT_URL',
  'TEMPORAL_ADDRESS',
  'SMTP_URL',
  'S3_ENDPOINT',
  'S3_ACCESS_KEY_ID',
  'S3_SECRET_ACCESS_KEY',
  'TEMPORAL_TEST_SERVER_PATH',
  'FLEETFLOW_WORKFLOW_BUNDLE',
  'JWT_SECRET',
  // Also what would move the processes' data, mail or SMS elsewhere, or send them traces.
  'MAIL_OUTBOX_DIR',
  'SMS_OUTBOX_DIR',
  'S3_PUBLIC_ENDPOINT',
  'PUBLIC_BASE_URL',
  'OTEL_EXPORTER_OTLP_ENDPOINT',
  'WORKER_STARTER_TENANTS',
  'TEMPORAL_TASK_QUEUE',
  'NODE_OPTIONS',
];

/** The ports scripts/start.ts reads (platform/config.ts `loadConfig`, workers/observability.ts). */
const portVariables = [
  'API_PORT',
  'EMBEDDED_POSTGRES_PORT',
  'EMBEDDED_MQTT_PORT',
  'TEMPORAL_DEV_SERVER_PORT',
  'TEMPORAL_UI_PORT',
  'EMBEDDED_SMTP_PORT',
  'EMBEDDED_S3_PORT',
  'WORKER_METRICS_PORT',
  'API_METRICS_PORT',
] as const;

const MAX_OUTPUT_LINES = 2000;

export interface StartedStack {
  baseUrl: string;
  /** Every API process's base URL, replica 1 first (one unless started with `replicas`). */
  baseUrls: string[];
  dataDir: string;
  mailDir: string;
  /** The child's pid (it leads its own process group). */
  pid: number;
  /** The last `lines` lines the stack printed (stdout and stderr interleaved). */
  output(lines?: number): string;
  /** The pids of the stack's running processes of one script (`composition/worker-main.ts`, …), oldest first. */
  processesOf(script: string): Promise<number[]>;
  /** SIGINT to the group (start.ts stops its children), SIGKILL after the grace period; removes the data. */
  stop(graceMs?: number): Promise<void>;
}

/**
 * Where `freePorts` picks: below Linux's ephemeral range (32768–60999), from which the OS gives both port 0
 * listeners and every outgoing connection its local port. A port picked there could be taken by any
 * connection before the stack's server binds it (a run saw PostgreSQL refused its port that way).
 */
const PICKED_PORTS = { from: 20_000, to: 32_767 } as const;

/** Listens on `port` (exclusively) and resolves the server, or undefined when the port is busy. */
function hold(port: number): Promise<net.Server | undefined> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(undefined));
    server.listen({ port, host: '0.0.0.0', exclusive: true }, () => resolve(server));
  });
}

/** `count` distinct free TCP ports outside the ephemeral range: each held until all are picked, then closed. */
export async function freePorts(count: number): Promise<number[]> {
  const servers: net.Server[] = [];
  try {
    while (servers.length < count) {
      const span = PICKED_PORTS.to - PICKED_PORTS.from + 1;
      const server = await hold(PICKED_PORTS.from + Math.floor(Math.random() * span));
      if (server) servers.push(server);
    }
    return servers.map((server) => (server.address() as net.AddressInfo).port);
  } finally {
    await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  }
}

/** A process as /proc shows it: its parent and its start time (which tells a reused pid apart). */
async function processStat(pid: number): Promise<{ ppid: number; startTime: string } | undefined> {
  const stat = await fs.readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
  if (!stat) return undefined;
  // pid (comm) state ppid … starttime (field 22): comm may hold spaces, so count after the last ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { ppid: Number(fields[1]), startTime: fields[19]! };
}

/** Every live descendant of `pid` with its start time, so a forced stop reaches detached grandchildren. */
async function descendantsOf(pid: number): Promise<Array<{ pid: number; startTime: string }>> {
  const children = new Map<number, Array<{ pid: number; startTime: string }>>();
  for (const entry of await fs.readdir('/proc').catch(() => [] as string[])) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await processStat(Number(entry));
    if (stat)
      children.set(stat.ppid, [
        ...(children.get(stat.ppid) ?? []),
        { pid: Number(entry), startTime: stat.startTime },
      ]);
  }
  const found: Array<{ pid: number; startTime: string }> = [];
  const queue = [pid];
  while (queue.length)
    for (const child of children.get(queue.shift()!) ?? []) {
      found.push(child);
      queue.push(child.pid);
    }
  return found;
}

function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch {
    // already gone
  }
}

/**
 * Starts `node --import tsx scripts/start.ts` (what `npm start` runs) on free ports over a fresh data
 * directory and resolves once it printed "fleetflow is running" and its worker polls the task queue
 * (the banner is printed once the API is ready; the worker may still be bundling its workflows then).
 */
export async function startStack(
  options: {
    timeoutMs?: number;
    env?: Record<string, string>;
    /** API and worker processes each (`--replicas=N`, scripts/stack-topology.ts); one by default. */
    replicas?: number;
  } = {},
  attempt = 1,
): Promise<StartedStack> {
  const timeoutMs = options.timeoutMs ?? 5 * 60_000;
  const replicas = options.replicas ?? 1;
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'fleetflow-journeys-'));
  // mkdtemp makes it 0700; run as root, embedded PostgreSQL runs as the "postgres" user, who must enter it.
  await fs.chmod(dataDir, 0o755);
  const ports = await freePorts(portVariables.length);
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of foreignInfrastructure) delete env[name];
  portVariables.forEach((name, index) => (env[name] = String(ports[index])));
  Object.assign(env, { FLEETFLOW_DATA_DIR: dataDir, ...options.env });
  let apiPorts = [Number(env.API_PORT)];
  if (replicas > 1) {
    // Each replica's API, API metrics and worker metrics port, free ones (scripts/stack-topology.ts).
    const more = await freePorts(3 * replicas);
    apiPorts = more.slice(0, replicas);
    Object.assign(env, {
      API_PORTS: apiPorts.join(','),
      API_METRICS_PORTS: more.slice(replicas, 2 * replicas).join(','),
      WORKER_METRICS_PORTS: more.slice(2 * replicas).join(','),
    });
  }

  const lines: string[] = [];
  let partial = { stdout: '', stderr: '' };
  const args = ['--import', 'tsx', 'scripts/start.ts', ...(replicas > 1 ? [`--replicas=${replicas}`] : [])];
  const child: ChildProcess = spawn(process.execPath, args, {
    cwd: repoRoot,
    env,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const pid = child.pid!;
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, sig) => resolve({ code, signal: sig })),
  );
  let gone = false;
  void exited.then(() => (gone = true));
  let listeners: Array<() => void> = [];
  const collect = (stream: 'stdout' | 'stderr') => (chunk: Buffer) => {
    const text = partial[stream] + chunk.toString('utf8');
    const complete = text.split('\n');
    partial = { ...partial, [stream]: complete.pop() ?? '' };
    lines.push(...complete);
    if (lines.length > MAX_OUTPUT_LINES) lines.splice(0, lines.length - MAX_OUTPUT_LINES);
    for (const listener of listeners) listener();
  };
  child.stdout!.on('data', collect('stdout'));
  child.stderr!.on('data', collect('stderr'));
  const output = (count = 200) =>
    [...lines, partial.stdout, partial.stderr].filter(Boolean).slice(-count).join('\n');

  let stopping: Promise<void> | undefined;
  const stop = (graceMs = 60_000): Promise<void> => {
    stopping ??= (async () => {
      const family = gone ? [] : await descendantsOf(pid);
      if (!gone) signal(-pid, 'SIGINT');
      const forced = await Promise.race([
        exited.then(() => false),
        new Promise<boolean>((resolve) => setTimeout(() => resolve(true), graceMs).unref()),
      ]);
      if (forced) signal(-pid, 'SIGKILL');
      // Children start.ts spawned detached lead their own groups: kill those that outlived it, by pid (and
      // only the very processes seen before: same pid and start time).
      for (const member of family)
        if ((await processStat(member.pid))?.startTime === member.startTime) signal(member.pid, 'SIGKILL');
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 5_000).unref())]);
      await fs.rm(dataDir, { recursive: true, force: true }).catch(() => undefined);
    })();
    return stopping;
  };

  const seen = (marker: string) => lines.filter((line) => line.includes(marker)).length;
  const ready = () => seen('fleetflow is running') > 0 && seen('worker polling its task queue') >= replicas;
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`the stack did not start within ${timeoutMs / 1000} s`)),
        timeoutMs,
      );
      const check = () => {
        if (!ready()) return;
        clearTimeout(timer);
        resolve();
      };
      listeners.push(check);
      void exited.then((exit) => {
        clearTimeout(timer);
        reject(
          new Error(`the stack exited before it was running (code ${exit.code}, signal ${exit.signal})`),
        );
      });
    });
  } catch (error) {
    await stop(15_000);
    // Another process took one of the picked ports before the stack bound it: again, on other ports.
    if (attempt < 3 && /already in use|EADDRINUSE/i.test(output())) return startStack(options, attempt + 1);
    console.error(`${(error as Error).message}; its last output:\n${output()}`);
    throw error;
  } finally {
    listeners = [];
  }
  const processesOf = async (script: string) => {
    const found: Array<{ pid: number; startTime: string }> = [];
    for (const member of await descendantsOf(pid)) {
      const command = await fs.readFile(`/proc/${member.pid}/cmdline`, 'utf8').catch(() => '');
      if (command.split('\0').includes(script)) found.push(member);
    }
    return found.sort((a, b) => Number(a.startTime) - Number(b.startTime)).map((member) => member.pid);
  };
  const baseUrls = apiPorts.map((port) => `http://127.0.0.1:${port}`);
  return {
    baseUrl: baseUrls[0]!,
    baseUrls,
    dataDir,
    mailDir: path.join(dataDir, 'mail'),
    pid,
    output,
    processesOf,
    stop,
  };
}

// --- HTTP ---------------------------------------------------------------------------------------------

export interface Reply {
  status: number;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any
  text: string;
  headers: Headers;
}

export interface CallOptions {
  token?: string;
  /** JSON body. */
  body?: unknown;
  /** application/x-www-form-urlencoded body. */
  form?: Record<string, string>;
  headers?: Record<string, string>;
  /** `manual` to see a redirect instead of following it. */
  redirect?: 'follow' | 'manual' | 'error';
}

/** The API of a started stack for one tenant, over fetch only. */
export class Api {
  constructor(
    readonly baseUrl: string,
    readonly tenant: string,
  ) {}

  back = (path: string) => `/v1/${this.tenant}/back${path}`;
  front = (path: string) => `/v1/${this.tenant}/front${path}`;
  auth = (path: string) => `/v1/${this.tenant}/auth${path}`;

  async call(method: string, path: string, options: CallOptions = {}): Promise<Reply> {
    const headers: Record<string, string> = { ...options.headers };
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    let body: string | undefined;
    if (options.form) {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      body = new URLSearchParams(options.form).toString();
    } else if (options.body !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(options.body);
    }
    const url = /^https?:/.test(path) ? path : `${this.baseUrl}${path}`;
    const response = await fetch(url, { method, headers, body, redirect: options.redirect ?? 'follow' });
    const text = await response.text();
    let parsed: unknown = undefined;
    if (text && (response.headers.get('content-type') ?? '').includes('json')) {
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = undefined;
      }
    }
    return { status: response.status, body: parsed, text, headers: response.headers };
  }

  /** A client-credentials token (docs/api.md "Tokens"). */
  async clientToken(client: { clientId: string; clientSecret: string }, scope: string): Promise<string> {
    const reply = await this.call('POST', this.auth('/token'), {
      form: {
        grant_type: 'client_credentials',
        client_id: client.clientId,
        client_secret: client.clientSecret,
        scope,
      },
    });
    expectStatus(reply, 200);
    return reply.body.access_token as string;
  }

  /** A customer's access token from an e-mail and password sign-in. */
  async signIn(email: string, password: string): Promise<string> {
    const reply = await this.call('POST', this.auth('/customer/sign-in'), { body: { email, password } });
    expectStatus(reply, 200);
    return reply.body.access_token as string;
  }
}

/** The status, with the answer in the failure message when it differs. */
export function expectStatus(reply: Reply, status: number): void {
  expect({
    status: reply.status,
    answer: reply.status === status ? undefined : reply.text.slice(0, 2000),
  }).toEqual({
    status,
    answer: undefined,
  });
}

/** A catalogue error body `{errorCode, userMessage, httpStatus, traceId}` with this status and code. */
export function expectCatalogueError(reply: Reply, status: number, code: string): void {
  expect({ status: reply.status, code: reply.body?.errorCode, text: reply.text.slice(0, 600) }).toEqual({
    status,
    code,
    text: expect.any(String),
  });
  expect(reply.body).toEqual({
    errorCode: code,
    userMessage: expect.any(String),
    httpStatus: status,
    traceId: expect.stringMatching(/^[0-9a-f]{32}$/),
  });
}

/** Polls `probe` until it answers something other than undefined; fails with `what` at the deadline. */
export async function poll<T>(
  what: string,
  probe: () => Promise<T | undefined>,
  { timeoutMs = 120_000, intervalMs = 500 }: { timeoutMs?: number; intervalMs?: number } = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline)
      throw new Error(
        `${what}: not within ${timeoutMs / 1000} s${last ? ` (last error: ${String(last)})` : ''}`,
      );
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/**
 * Waits until the scooters `codes` of a branch are online and available (the simulator brings the fleet
 * online over MQTT after the stack started); answers every listed vehicle's id by its code.
 */
export async function fleetReady(
  api: Api,
  token: string,
  branchId: number,
  codes: readonly string[],
  options?: { timeoutMs?: number; intervalMs?: number },
): Promise<Record<string, number>> {
  const ids: Record<string, number> = {};
  await poll(
    'the scooters online and available',
    async () => {
      const vehicles: Array<{ id: number; code: string; available: boolean }> =
        (await api.call('GET', api.back(`/vehicles?branchId=${branchId}&size=50`), { token })).body ?? [];
      for (const vehicle of vehicles) ids[vehicle.code] = vehicle.id;
      const used = vehicles.filter((vehicle) => codes.includes(vehicle.code));
      return used.length === codes.length && used.every((vehicle) => vehicle.available) ? true : undefined;
    },
    options,
  );
  return ids;
}

/**
 * A test against a started stack that prints the stack's last output when it fails: what the processes
 * logged says why. `stack` is read when the test runs (the suite starts it in beforeAll).
 */
export function stackTest(
  stack: () => StartedStack | undefined,
  name: string,
  body: () => Promise<void>,
  timeoutMs: number,
): void {
  test(
    name,
    async () => {
      try {
        await body();
      } catch (error) {
        console.error(`"${name}" failed; the stack's last output:\n${stack()?.output(200)}`);
        throw error;
      }
    },
    timeoutMs,
  );
}

/** Runs a suite's set-up against a started stack; when it fails, prints the stack's last output first. */
export async function settingUp(stack: StartedStack, work: () => Promise<void>): Promise<void> {
  try {
    await work();
  } catch (error) {
    console.error(`set-up failed; the stack's last output:\n${stack.output(200)}`);
    throw error;
  }
}

/**
 * The seeded tenant's branches by code, and the customers of `customersOf` (a branch code: `berlin`), as
 * the operator lists them: what the suites over the started stack name their calls by.
 */
export async function demoDirectory(
  api: Api,
  token: string,
  customersOf: string,
): Promise<{ branches: Record<string, number>; customers: Array<{ id: number; email: string }> }> {
  const branchList = await api.call('GET', api.back('/branches?size=200'), { token });
  expectStatus(branchList, 200);
  const branches: Record<string, number> = {};
  for (const branch of branchList.body) branches[branch.code] = branch.id;
  const customerList = await api.call(
    'GET',
    api.back(`/customers?branchId=${branches[customersOf]}&size=50`),
    { token },
  );
  expectStatus(customerList, 200);
  return { branches, customers: customerList.body };
}

// --- mail ---------------------------------------------------------------------------------------------

/**
 * The six-digit code of the newest message to `to` with `subject` in the mail catcher's directory
 * (`<dataDir>/mail/*.eml`), polled until it arrives.
 */
export async function mailedCode(
  mailDir: string,
  to: string,
  subject: string,
  timeoutMs = 60_000,
): Promise<string> {
  return poll(
    `a mail "${subject}" to ${to}`,
    async () => {
      const files = (await fs.readdir(mailDir).catch(() => [] as string[])).filter((name) =>
        name.endsWith('.eml'),
      );
      for (const file of files.sort().reverse()) {
        const raw = await fs.readFile(path.join(mailDir, file), 'utf8');
        const headers = raw.slice(0, raw.search(/\r?\n\r?\n/));
        if (!new RegExp(`^To:.*${to.replace(/[.+]/g, '\\$&')}`, 'im').test(headers)) continue;
        if (!headers.includes(subject)) continue;
        // The code stands on a line of its own in the text part (as tests/support/customers.ts reads it).
        const code = /^\s*(\d{6})\s*$/m.exec(raw.slice(headers.length))?.[1];
        if (code) return code;
      }
      return undefined;
    },
    { timeoutMs },
  );
}
