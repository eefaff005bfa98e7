// Timestamps as the API serializes metav1.Time: RFC 3339 in UTC with whole seconds.

export type Clock = () => number;

export const systemClock: Clock = () => Date.now();

let cachedSecond = NaN;
let cachedText = '';

export function formatTimestamp(ms: number): string {
  const second = Math.floor(ms / 1000);
  if (second !== cachedSecond) {
    cachedSecond = second;
    cachedText = new Date(second * 1000).toISOString().replace('.000Z', 'Z');
  }
  return cachedText;
}

/** metav1.MicroTime, used by events.k8s.io eventTime and Lease renewTime. */
export function formatMicroTimestamp(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

export function parseTimestamp(value: unknown): number | undefined {
  if (typeof value !== 'string') return undefined;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? undefined : ms;
}
