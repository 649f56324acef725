// Work an activity leaves running after it answered: an ended rental's bill, so the rider's END does not
// wait for it. It lives no longer than its worker process; the worker drains it before it closes the
// database, and a process that dies first leaves it to a sweep (workers/payment-starter.ts).

/** The work activities started without waiting for it, so the worker can wait for it when it stops. */
export class BackgroundWork {
  private readonly running = new Set<Promise<void>>();

  /** Runs `work` without the caller waiting for it; a failure goes to `onError`, never unhandled. */
  run(work: () => Promise<void>, onError: (error: unknown) => void): void {
    const settled: Promise<void> = work()
      .catch(onError)
      .finally(() => this.running.delete(settled));
    this.running.add(settled);
  }

  /** How much work is running now. */
  get size(): number {
    return this.running.size;
  }

  /**
   * Waits until everything started so far, and anything it started meanwhile, has settled, or `timeoutMs`
   * passed (work stuck behind a lock must not hold a stopping worker: the sweep recovers what it leaves).
   * Answers whether everything settled.
   */
  async drain(timeoutMs = 30_000): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), timeoutMs);
    });
    const settled = (async () => {
      while (this.running.size > 0) await Promise.allSettled([...this.running]);
      return true as const;
    })();
    try {
      return await Promise.race([settled, timedOut]);
    } finally {
      clearTimeout(timer);
    }
  }
}
