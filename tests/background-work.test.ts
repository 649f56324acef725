// The work an activity leaves running after it answered (an ended rental's bill): the worker waits for it
// when it stops, a failure reaches its handler instead of going unhandled, and work stuck behind a lock
// does not hold the stop past its bound.
import { BackgroundWork } from '../activities/background-work.js';

test('drain waits for what runs, including work started meanwhile; failures go to their handler', async () => {
  const work = new BackgroundWork();
  const done: string[] = [];
  const failures: unknown[] = [];
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  work.run(async () => {
    await gate;
    done.push('first');
    work.run(async () => {
      await new Promise((resolve) => setTimeout(resolve, 10));
      done.push('second');
    }, failures.push.bind(failures));
  }, failures.push.bind(failures));
  work.run(async () => {
    throw new Error('the bill failed');
  }, failures.push.bind(failures));
  expect(work.size).toBe(2);
  const drained = work.drain();
  release();
  await expect(drained).resolves.toBe(true);
  expect(done).toEqual(['first', 'second']);
  expect(failures.map(String)).toEqual(['Error: the bill failed']);
  expect(work.size).toBe(0);
});

test('drain gives up after its bound on work that does not settle', async () => {
  const work = new BackgroundWork();
  work.run(
    () => new Promise<void>(() => undefined),
    () => undefined,
  );
  await expect(work.drain(20)).resolves.toBe(false);
  expect(work.size).toBe(1);
});
