// Waiting in tests: poll until something holds (never a fixed sleep standing in for it), and ports.
//
// The default deadlines are generous on purpose: `npm test` runs several files at once, and a loaded machine is
// many times slower than an idle one. A deadline is there to end a test that will never pass, never to time
// anything: a test that must show that something is quick says so with an explicit bound, and why that bound.

import { createServer } from 'node:net';

/** The longest pause between two reads of a wait: what a wait adds to the time a test takes, at most. */
const MAX_POLL_INTERVAL_MS = 100;

/**
 * Reads until `ok` holds; the value that satisfied it. A read that throws counts as not yet. The reads start
 * `intervalMs` apart and spread out to MAX_POLL_INTERVAL_MS: many waits run at once when files run side by
 * side, and a read of a sandbox every 10 ms for a minute costs more CPU than what is waited for. The error
 * names what, and the last value or error.
 */
export async function until<T>(read: () => Promise<T> | T, ok: (value: T) => boolean, what: string, timeoutMs = 60_000, intervalMs = 10): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: { value: T } | { error: unknown } | undefined;
  let pause = intervalMs;
  for (;;) {
    try {
      const value = await read();
      if (ok(value)) return value;
      last = { value };
    } catch (error) {
      last = { error };
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; last seen: ${lastSeen(last)}`);
    await sleep(pause);
    pause = Math.min(pause * 1.5, Math.max(intervalMs, MAX_POLL_INTERVAL_MS));
  }
}

/** Described only when a wait fails: a list of pods read every few milliseconds is not worth a JSON copy each time. */
function lastSeen(last: { value: unknown } | { error: unknown } | undefined): string {
  if (!last) return 'nothing';
  if ('error' in last) return `an error: ${last.error instanceof Error ? last.error.message : String(last.error)}`;
  return JSON.stringify(last.value)?.slice(0, 600) ?? String(last.value);
}

/** Waits until `condition` holds, checked as `until` reads; resolves with the milliseconds it took. */
export async function waitFor(condition: () => boolean, what = 'a condition', timeoutMs = 30_000, intervalMs = 10): Promise<number> {
  const started = Date.now();
  await until(condition, Boolean, what, timeoutMs, intervalMs);
  return Date.now() - started;
}

/**
 * Waits for conditions checked at each event the code under test reports (`notify()`) rather than on a timer:
 * for a state that lasts only until the next event, which a timer could miss.
 */
export class EventWaiter {
  readonly #waiters = new Set<() => void>();

  notify(): void {
    for (const check of [...this.#waiters]) check();
  }

  /** Resolves at once if `condition` holds, else at the first notify() after which it does. */
  waitFor(condition: () => boolean, what: string, timeoutMs = 30_000): Promise<void> {
    if (condition()) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const check = (): void => {
        if (!condition()) return;
        this.#waiters.delete(check);
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        this.#waiters.delete(check);
        reject(new Error(`timed out waiting for ${what}`));
      }, timeoutMs);
      this.#waiters.add(check);
    });
  }
}

/** A pause that is itself the point (nothing is to happen meanwhile, a load's pacing), never a wait for something. */
export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

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
