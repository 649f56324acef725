// CPU time of this process and of the servers it started (Temporal dev server, PostgreSQL), from
// /proc: which process a lifecycle's time goes to, and how busy the rest of the machine was meanwhile
// (on a shared 2-core box, a run next to other work is not comparable with one without). Linux only;
// elsewhere only this process is counted.
import { readdirSync, readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { Session } from 'node:inspector/promises';

export type CpuGroup = 'bench process' | 'Temporal server' | 'PostgreSQL' | 'other children';

/** CPU seconds (user + system) consumed so far, per group. */
export type CpuSnapshot = Record<CpuGroup, number>;

const CLOCK_TICKS_PER_SECOND = 100; // USER_HZ; `getconf CLK_TCK` is 100 on every Linux platform we run

interface ProcStat {
  pid: number;
  ppid: number;
  comm: string;
  /** utime + stime + cutime + cstime, in ticks: the process and its children already reaped. */
  ticks: number;
}

function readProcStats(): ProcStat[] {
  let entries: string[];
  try {
    entries = readdirSync('/proc').filter((name) => /^\d+$/.test(name));
  } catch {
    return [];
  }
  const stats: ProcStat[] = [];
  for (const pid of entries) {
    let text: string;
    try {
      text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    } catch {
      continue; // exited meanwhile
    }
    const close = text.lastIndexOf(')');
    const comm = text.slice(text.indexOf('(') + 1, close);
    const fields = text.slice(close + 2).split(' ');
    // fields[0] is the state (3rd field of stat); utime, stime, cutime, cstime are fields 14–17.
    const ticks = [11, 12, 13, 14].reduce((sum, index) => sum + Number(fields[index] ?? 0), 0);
    stats.push({ pid: Number(pid), ppid: Number(fields[1]), comm, ticks });
  }
  return stats;
}

function groupOf(comm: string): CpuGroup {
  if (comm.startsWith('temporal')) return 'Temporal server';
  if (comm.startsWith('postgres')) return 'PostgreSQL';
  return 'other children';
}

export function cpuSnapshot(): CpuSnapshot {
  const own = process.cpuUsage(); // every thread of this process, including the Temporal core's
  const snapshot: CpuSnapshot = {
    'bench process': (own.user + own.system) / 1e6,
    'Temporal server': 0,
    PostgreSQL: 0,
    'other children': 0,
  };
  const stats = readProcStats();
  const children = new Map<number, ProcStat[]>();
  for (const stat of stats) children.set(stat.ppid, [...(children.get(stat.ppid) ?? []), stat]);
  const pending = [...(children.get(process.pid) ?? [])];
  for (let stat = pending.pop(); stat; stat = pending.pop()) {
    snapshot[groupOf(stat.comm)] += stat.ticks / CLOCK_TICKS_PER_SECOND;
    pending.push(...(children.get(stat.pid) ?? []));
  }
  return snapshot;
}

/** This process's threads, by what they do (Linux thread names: `comm` of /proc/self/task/<tid>/stat). */
export type ThreadGroup = 'main' | 'workflow' | 'Temporal core' | 'V8 helpers' | 'other threads';

function threadGroupOf(comm: string): ThreadGroup {
  if (comm === 'MainThread' || comm === 'node') return 'main';
  if (comm === 'WorkerThread') return 'workflow'; // the SDK's workflow worker thread(s)
  if (comm.startsWith('tokio') || comm.startsWith('temporal')) return 'Temporal core';
  if (comm.startsWith('V8') || comm.startsWith('DelayedTask')) return 'V8 helpers';
  return 'other threads';
}

/** CPU seconds (user + system) of each of this process's live threads, by thread id, with its group. */
export type ThreadSnapshot = Map<string, { group: ThreadGroup; seconds: number }>;

/**
 * This process's live threads and the CPU each has spent so far: where the bench process's CPU goes
 * between the main thread (API, activities, simulator), the workflow sandbox's thread, the Temporal core's
 * Rust threads and V8's background threads (garbage collection, compilation). Empty outside Linux.
 */
export function threadSnapshot(): ThreadSnapshot {
  const snapshot: ThreadSnapshot = new Map();
  let tids: string[];
  try {
    tids = readdirSync('/proc/self/task');
  } catch {
    return snapshot;
  }
  for (const tid of tids) {
    let text: string;
    try {
      text = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
    } catch {
      continue; // ended meanwhile
    }
    const close = text.lastIndexOf(')');
    const comm = text.slice(text.indexOf('(') + 1, close);
    const fields = text.slice(close + 2).split(' ');
    const ticks = Number(fields[11] ?? 0) + Number(fields[12] ?? 0); // utime + stime
    snapshot.set(tid, { group: threadGroupOf(comm), seconds: ticks / CLOCK_TICKS_PER_SECOND });
  }
  return snapshot;
}

/**
 * CPU seconds per thread group between two snapshots, counting the threads alive at the second (a thread
 * that ended meanwhile is not counted; one that started counts from its start).
 */
export function threadSpent(before: ThreadSnapshot, after: ThreadSnapshot): Record<ThreadGroup, number> {
  const spent: Record<ThreadGroup, number> = {
    main: 0,
    workflow: 0,
    'Temporal core': 0,
    'V8 helpers': 0,
    'other threads': 0,
  };
  for (const [tid, thread] of after) spent[thread.group] += thread.seconds - (before.get(tid)?.seconds ?? 0);
  return spent;
}

/** CPU seconds all cores of the machine have been busy (steal included), from /proc/stat; NaN elsewhere. */
export function machineBusySeconds(): number {
  try {
    const fields = readFileSync('/proc/stat', 'utf8')
      .split('\n')[0]!
      .trim()
      .split(/\s+/)
      .slice(1)
      .map(Number);
    // user nice system idle iowait irq softirq steal (guest time is already part of user)
    const [user = 0, nice = 0, system = 0, , , irq = 0, softirq = 0, steal = 0] = fields;
    return (user + nice + system + irq + softirq + steal) / CLOCK_TICKS_PER_SECOND;
  } catch {
    return NaN;
  }
}

/** CPU seconds per group spent between two snapshots. */
export function cpuSpent(before: CpuSnapshot, after: CpuSnapshot): CpuSnapshot {
  const spent = { ...after };
  for (const group of Object.keys(spent) as CpuGroup[]) spent[group] = after[group] - before[group];
  return spent;
}

/**
 * Runs `run` under the V8 sampling profiler of this process's main thread and writes a .cpuprofile
 * (Chrome DevTools, speedscope) to `file`; without a file it just runs. Worker threads (the workflow
 * sandbox) and the Temporal core's Rust threads are not sampled.
 */
export async function profiledRun<T>(file: string | undefined, run: () => Promise<T>): Promise<T> {
  if (!file) return run();
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.start');
  try {
    return await run();
  } finally {
    const { profile } = await session.post('Profiler.stop');
    await writeFile(file, JSON.stringify(profile));
    session.disconnect();
  }
}
