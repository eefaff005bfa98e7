// Protocol time: Unix nanoseconds written as decimal strings (Go's time.Now().UnixNano()).
// The pure core never reads a clock; drivers pass `now` in.

import { rfc3339 } from '../api/kube.ts';

export type Nanos = bigint;

export const NANOS_PER_MILLI = 1_000_000n;
export const NANOS_PER_SECOND = 1_000_000_000n;

export const nanosFromMillis = (ms: number): Nanos => BigInt(Math.trunc(ms)) * NANOS_PER_MILLI;

export const millisFromNanos = (n: Nanos): number => Number(n / NANOS_PER_MILLI);

/** A label value as a nanosecond timestamp, or undefined when it is not a plain decimal integer. */
export function parseNanos(value: string | undefined): Nanos | undefined {
  if (value === undefined || !/^\d{1,20}$/.test(value)) return undefined;
  return BigInt(value);
}

/** RFC 3339 with second precision, as metav1.Time serialises (`2024-06-04T12:58:05Z`). */
export const rfc3339FromNanos = (n: Nanos): string => rfc3339(millisFromNanos(n));

/** `1h2m3s`-style rendering of a non-negative duration, for humans. */
export function formatDuration(n: Nanos): string {
  if (n < 0n) n = 0n;
  let seconds = Number(n / NANOS_PER_SECOND);
  if (seconds === 0) return `${Number(n / NANOS_PER_MILLI)}ms`;
  const parts: string[] = [];
  for (const [unit, size] of [
    ['d', 86400],
    ['h', 3600],
    ['m', 60],
  ] as const) {
    if (seconds >= size) {
      parts.push(`${Math.floor(seconds / size)}${unit}`);
      seconds %= size;
    }
  }
  if (seconds > 0 || parts.length === 0) parts.push(`${seconds}s`);
  return parts.slice(0, 2).join('');
}
