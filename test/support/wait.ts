// Waiting in tests: poll until something holds (never a fixed sleep standing in for it), and ports.

import { createServer } from 'node:net';

/** Reads until `ok` holds, every 10 ms; the value that satisfied it. The error names what and the last value. */
export async function until<T>(read: () => Promise<T> | T, ok: (value: T) => boolean, what: string, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: T | undefined;
  for (;;) {
    try {
      last = await read();
      if (ok(last)) return last;
    } catch {
      // not there yet
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; last seen: ${JSON.stringify(last)?.slice(0, 600)}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** A pause that is itself the point (nothing is to happen meanwhile, a load's pacing), never a wait for something. */
export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits until `condition` holds; resolves with the milliseconds it took. */
export async function waitFor(condition: () => boolean, what = 'a condition', timeoutMs = 5000): Promise<number> {
  const started = Date.now();
  await until(condition, Boolean, what, timeoutMs);
  return Date.now() - started;
}

/** A port nothing listens on right now (bound, read, released). */
export const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
