import { Router } from 'express';

export type ReadinessCheck = () => Promise<void>;

async function withTimeout(check: ReadinessCheck, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      check(),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** Liveness (the process answers) and readiness (database, broker and Temporal answer) for orchestrators. */
export function healthRouter(checks: Record<string, ReadinessCheck>): Router {
  const router = Router();
  router.get('/health/live', (_req, res) => {
    res.json({ status: 'UP' });
  });
  router.get('/health/ready', async (_req, res) => {
    const results = await Promise.all(
      Object.entries(checks).map(async ([name, check]) => {
        try {
          await withTimeout(check, 2000);
          return [name, { status: 'UP' }] as const;
        } catch (error) {
          return [name, { status: 'DOWN', error: (error as Error).message }] as const;
        }
      }),
    );
    const up = results.every(([, result]) => result.status === 'UP');
    res.status(up ? 200 : 503).json({ status: up ? 'UP' : 'DOWN', checks: Object.fromEntries(results) });
  });
  return router;
}
