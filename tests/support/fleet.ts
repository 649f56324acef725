// Helpers of the fleet suites (tests/fleet-vehicles.test.ts, tests/fleet-commands.test.ts): waiting for
// what the broker and the ingestor do, and sending an operator command to one vehicle.
import type { HttpStack, Reply } from './http.js';

/** Resolves after `ms` milliseconds. */
export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `probe` every 50 ms until it answers a value; fails after `ms` (device round trips take a while). */
export async function until<T>(probe: () => Promise<T | undefined | false>, ms = 8000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await sleep(50);
  }
}

/** `POST /vehicles/execute-command` for one vehicle by id: the operator's way to reach a device. */
export function executeCommand(
  stack: HttpStack,
  token: string,
  vehicleId: number,
  body: Record<string, unknown>,
  process = 'SYNC',
  ret = 'DATA',
): Promise<Reply> {
  return stack.call(
    'POST',
    stack.back(`/vehicles/execute-command?process=${process}&return=${ret}&vehicleId=${vehicleId}`),
    {
      token,
      body,
    },
  );
}
