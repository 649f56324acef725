// Shared by the lifecycle benchmarks: run lanes of create → START → END, summarise and print them.
import os from 'node:os';
import { cpuSnapshot, cpuSpent, machineBusySeconds, type CpuSnapshot } from './process-cpu.js';

export const lifecycleSteps = ['create', 'start', 'end'] as const;
export type LifecycleStep = (typeof lifecycleSteps)[number];

export interface StepLatency {
  p50: number;
  p95: number;
  max: number;
}

/** What one lifecycle benchmark measured. Latencies in milliseconds. */
export interface LifecycleBenchResult {
  lifecycles: number;
  concurrency: number;
  wallSeconds: number;
  /** Lifecycles per second. */
  throughput: number;
  steps: Record<LifecycleStep, StepLatency>;
  /** CPU seconds spent during the run by this process and by the servers it started. */
  cpu: CpuSnapshot;
  /**
   * Share of the machine's cores that processes outside this benchmark kept busy during the run: on a
   * shared box, the figures of a run with a high share are not comparable with one without.
   */
  foreignLoad: number;
}

/** One lifecycle's three steps; each resolves when its step is done. */
export interface LifecycleDriver {
  create(lane: number): Promise<string | number>;
  start(id: string | number): Promise<void>;
  end(id: string | number): Promise<void>;
}

export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}

/**
 * Runs `lifecycles` lifecycles on `concurrency` lanes; a lane starts its next lifecycle as soon as its
 * previous one has ended. Throughput is over the wall time of the whole run.
 */
export async function runLifecycles(
  driver: LifecycleDriver,
  lifecycles: number,
  concurrency: number,
): Promise<LifecycleBenchResult> {
  const samples: Record<LifecycleStep, number[]> = { create: [], start: [], end: [] };
  const timed = async <T>(step: LifecycleStep, run: () => Promise<T>): Promise<T> => {
    const started = performance.now();
    const result = await run();
    samples[step].push(performance.now() - started);
    return result;
  };
  let next = 0;
  const cpuBefore = cpuSnapshot();
  const busyBefore = machineBusySeconds();
  const wallStart = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async (_, lane) => {
      while (next < lifecycles) {
        next += 1;
        const id = await timed('create', () => driver.create(lane));
        await timed('start', () => driver.start(id));
        await timed('end', () => driver.end(id));
      }
    }),
  );
  const wallSeconds = (performance.now() - wallStart) / 1000;
  const cpu = cpuSpent(cpuBefore, cpuSnapshot());
  const foreignSeconds = machineBusySeconds() - busyBefore - sum(Object.values(cpu));
  const foreignLoad = Math.max(0, foreignSeconds) / (wallSeconds * os.availableParallelism());
  const summary = (values: number[]): StepLatency => ({
    p50: percentile(values, 50),
    p95: percentile(values, 95),
    max: Math.max(...values),
  });
  return {
    lifecycles,
    concurrency,
    wallSeconds,
    throughput: lifecycles / wallSeconds,
    steps: { create: summary(samples.create), start: summary(samples.start), end: summary(samples.end) },
    cpu,
    foreignLoad,
  };
}

const sum = (values: number[]) => values.reduce((total, value) => total + value, 0);
const cpuTotal = (result: LifecycleBenchResult) => sum(Object.values(result.cpu));

const ms = (value: number) => `${value.toFixed(1)} ms`.padStart(10);

/** The per-step table and the throughput line of one result. */
export function formatResult(title: string, result: LifecycleBenchResult, callsLabel: string): string {
  const lines = [`${title}: ${result.lifecycles} lifecycles, ${result.concurrency} concurrent`];
  lines.push(`  ${'step'.padEnd(7)}${'p50'.padStart(10)}${'p95'.padStart(10)}${'max'.padStart(10)}`);
  for (const step of lifecycleSteps) {
    const { p50, p95, max } = result.steps[step];
    lines.push(`  ${step.padEnd(7)}${ms(p50)}${ms(p95)}${ms(max)}`);
  }
  lines.push(
    `  throughput ${result.throughput.toFixed(1)} lifecycles/s (${(result.throughput * 3).toFixed(1)} ${callsLabel}/s) over ${result.wallSeconds.toFixed(1)} s`,
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
export function formatRatio(fleetflow: LifecycleBenchResult, baseline: LifecycleBenchResult): string {
  const ratio = (a: number, b: number) => `${(a / b).toFixed(2)}×`.padStart(10);
  const lines = ['fleetflow ÷ bare Temporal'];
  lines.push(`  ${'step'.padEnd(7)}${'p50'.padStart(10)}${'p95'.padStart(10)}`);
  for (const step of lifecycleSteps) {
    const f = fleetflow.steps[step];
    const b = baseline.steps[step];
    lines.push(`  ${step.padEnd(7)}${ratio(f.p50, b.p50)}${ratio(f.p95, b.p95)}`);
  }
  lines.push(
    `  throughput ${(fleetflow.throughput / baseline.throughput).toFixed(2)}× (${fleetflow.throughput.toFixed(1)} / ${baseline.throughput.toFixed(1)} lifecycles/s)`,
  );
  const cpuPerLifecycle = (result: LifecycleBenchResult) => cpuTotal(result) / result.lifecycles;
  lines.push(`  CPU per lifecycle ${(cpuPerLifecycle(fleetflow) / cpuPerLifecycle(baseline)).toFixed(2)}×`);
  return lines.join('\n');
}
