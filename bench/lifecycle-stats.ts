// Shared by the lifecycle benchmarks: run lanes of create → START → PARK → DRIVE → END for a fixed time,
// summarise and print them.
import os from 'node:os';
import { cpuSnapshot, cpuSpent, machineBusySeconds, type CpuSnapshot } from './process-cpu.js';

/** The steps of one rental lifecycle, in order: creation, then one operation each. */
export const lifecycleSteps = ['create', 'START', 'PARK', 'DRIVE', 'END'] as const;
export type LifecycleStep = (typeof lifecycleSteps)[number];
export type LifecycleOperation = Exclude<LifecycleStep, 'create'>;

export interface StepLatency {
  p50: number;
  p99: number;
  max: number;
}

/** What one lifecycle benchmark measured. Latencies in milliseconds. */
export interface LifecycleBenchResult {
  /** Lifecycles completed (a lifecycle still running at the deadline is finished but counts too). */
  lifecycles: number;
  concurrency: number;
  wallSeconds: number;
  /** Lifecycles per second. */
  throughput: number;
  steps: Record<LifecycleStep, StepLatency>;
  /** Every step's latency, for merging runs (`mergeResults`). */
  samples: Record<LifecycleStep, number[]>;
  /** CPU seconds spent during the run by this process and by the servers it started. */
  cpu: CpuSnapshot;
  /**
   * Share of the machine's cores that processes outside this benchmark kept busy during the run: on a
   * shared box, the figures of a run with a high share are not comparable with one without.
   */
  foreignLoad: number;
}

/** One lifecycle's steps; each resolves when its step is done. */
export interface LifecycleDriver {
  create(lane: number): Promise<string | number>;
  operate(id: string | number, operation: LifecycleOperation, lane: number): Promise<void>;
}

export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}

/**
 * Runs lifecycles on `concurrency` lanes for `durationMs`; a lane starts its next lifecycle as soon as
 * its previous one has ended, and starts none after the deadline. Throughput is completed lifecycles
 * over the wall time until the last one ended.
 */
export async function runLifecycles(
  driver: LifecycleDriver,
  durationMs: number,
  concurrency: number,
): Promise<LifecycleBenchResult> {
  const samples = Object.fromEntries(lifecycleSteps.map((step) => [step, [] as number[]])) as Record<
    LifecycleStep,
    number[]
  >;
  const timed = async <T>(step: LifecycleStep, run: () => Promise<T>): Promise<T> => {
    const started = performance.now();
    const result = await run();
    samples[step].push(performance.now() - started);
    return result;
  };
  let completed = 0;
  const cpuBefore = cpuSnapshot();
  const busyBefore = machineBusySeconds();
  const wallStart = performance.now();
  const deadline = wallStart + durationMs;
  await Promise.all(
    Array.from({ length: concurrency }, async (_, lane) => {
      while (performance.now() < deadline) {
        const id = await timed('create', () => driver.create(lane));
        for (const operation of lifecycleSteps.slice(1) as LifecycleOperation[])
          await timed(operation, () => driver.operate(id, operation, lane));
        completed += 1;
      }
    }),
  );
  const wallSeconds = (performance.now() - wallStart) / 1000;
  const cpu = cpuSpent(cpuBefore, cpuSnapshot());
  const foreignSeconds = machineBusySeconds() - busyBefore - sum(Object.values(cpu));
  const foreignLoad = Math.max(0, foreignSeconds) / (wallSeconds * os.availableParallelism());
  return summarise({ lifecycles: completed, concurrency, wallSeconds, samples, cpu, foreignLoad });
}

function summarise(run: Omit<LifecycleBenchResult, 'throughput' | 'steps'>): LifecycleBenchResult {
  const summary = (values: number[]): StepLatency => ({
    p50: percentile(values, 50),
    p99: percentile(values, 99),
    max: Math.max(...values),
  });
  return {
    ...run,
    throughput: run.lifecycles / run.wallSeconds,
    steps: Object.fromEntries(lifecycleSteps.map((step) => [step, summary(run.samples[step])])) as Record<
      LifecycleStep,
      StepLatency
    >,
  };
}

/**
 * Several runs of one side as one: lifecycles, wall time and CPU add up, latencies are pooled. The bench
 * alternates short runs of both sides, so that both see the same drift of a shared machine.
 */
export function mergeResults(runs: readonly LifecycleBenchResult[]): LifecycleBenchResult {
  const wallSeconds = sum(runs.map((run) => run.wallSeconds));
  const cpu = { ...runs[0]!.cpu };
  for (const run of runs.slice(1))
    for (const group of Object.keys(cpu) as (keyof typeof cpu)[]) cpu[group] += run.cpu[group];
  return summarise({
    lifecycles: sum(runs.map((run) => run.lifecycles)),
    concurrency: runs[0]!.concurrency,
    wallSeconds,
    samples: Object.fromEntries(
      lifecycleSteps.map((step) => [step, runs.flatMap((run) => run.samples[step])]),
    ) as Record<LifecycleStep, number[]>,
    cpu,
    foreignLoad: sum(runs.map((run) => run.foreignLoad * run.wallSeconds)) / wallSeconds,
  });
}

const sum = (values: number[]) => values.reduce((total, value) => total + value, 0);
const cpuTotal = (result: LifecycleBenchResult) => sum(Object.values(result.cpu));

const ms = (value: number) => `${value.toFixed(1)} ms`.padStart(10);

/** The per-step table and the throughput line of one result. */
export function formatResult(title: string, result: LifecycleBenchResult, callsLabel: string): string {
  const lines = [`${title}: ${result.lifecycles} lifecycles, ${result.concurrency} concurrent`];
  lines.push(`  ${'step'.padEnd(7)}${'p50'.padStart(10)}${'p99'.padStart(10)}${'max'.padStart(10)}`);
  for (const step of lifecycleSteps) {
    const { p50, p99, max } = result.steps[step];
    lines.push(`  ${step.padEnd(7)}${ms(p50)}${ms(p99)}${ms(max)}`);
  }
  lines.push(
    `  throughput ${result.throughput.toFixed(1)} lifecycles/s (${(result.throughput * lifecycleSteps.length).toFixed(1)} ${callsLabel}/s) over ${result.wallSeconds.toFixed(1)} s`,
  );
  const perLifecycle = (seconds: number) => `${((seconds * 1000) / result.lifecycles).toFixed(0)} ms`;
  const groups = Object.entries(result.cpu).filter(
    ([, seconds]) => (seconds * 1000) / result.lifecycles >= 0.5,
  );
  lines.push(
    `  CPU per lifecycle ${perLifecycle(cpuTotal(result))}: ` +
      groups.map(([group, seconds]) => `${group} ${perLifecycle(seconds)}`).join(', '),
  );
  if (!Number.isNaN(result.foreignLoad))
    lines.push(
      `  other processes on the machine meanwhile: ${(result.foreignLoad * 100).toFixed(0)}% of its CPU`,
    );
  return lines.join('\n');
}

/** fleetflow ÷ baseline: throughput (below 1 = slower) and per-step latency (above 1 = slower). */
export function formatRatio(
  fleetflow: LifecycleBenchResult,
  baseline: LifecycleBenchResult,
  title = 'fleetflow ÷ bare Temporal',
): string {
  const ratio = (a: number, b: number) => `${(a / b).toFixed(2)}×`.padStart(10);
  const lines = [title];
  lines.push(`  ${'step'.padEnd(7)}${'p50'.padStart(10)}${'p99'.padStart(10)}`);
  for (const step of lifecycleSteps) {
    const f = fleetflow.steps[step];
    const b = baseline.steps[step];
    lines.push(`  ${step.padEnd(7)}${ratio(f.p50, b.p50)}${ratio(f.p99, b.p99)}`);
  }
  lines.push(
    `  throughput ${(fleetflow.throughput / baseline.throughput).toFixed(2)}× (${fleetflow.throughput.toFixed(1)} / ${baseline.throughput.toFixed(1)} lifecycles/s)`,
  );
  const cpuPerLifecycle = (result: LifecycleBenchResult) => cpuTotal(result) / result.lifecycles;
  lines.push(`  CPU per lifecycle ${(cpuPerLifecycle(fleetflow) / cpuPerLifecycle(baseline)).toFixed(2)}×`);
  return lines.join('\n');
}
