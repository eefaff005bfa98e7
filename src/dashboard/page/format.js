// Times as the page prints them: clock times of this browser, and durations the way `podops status` writes them.

/** The phases of a lifecycle, in protocol order, then the pod's phase once none is left. */
export const PHASES = ['PreCheck', 'Preparing', 'Operating', 'PostCheck', 'Completing', 'ServiceAvailable'];

/** @type {[unit: string, seconds: number][]} */
const UNITS = [
  ['d', 86_400],
  ['h', 3_600],
  ['m', 60],
];

/** `2m5s`, `1h3m`, `850ms`: at most two units. */
export function duration(ms) {
  if (!(ms > 0)) return '0s';
  let seconds = Math.floor(ms / 1000);
  if (seconds === 0) return `${Math.floor(ms)}ms`;
  let text = '';
  let units = 0;
  for (const [unit, size] of UNITS) {
    if (seconds < size || units === 2) continue;
    text += `${Math.floor(seconds / size)}${unit}`;
    seconds %= size;
    units++;
  }
  return units < 2 && (seconds > 0 || units === 0) ? `${text}${seconds}s` : text;
}

/** One formatter for every time on the page: making one per call (toLocaleTimeString does) is slow. */
const timeOfDay = new Intl.DateTimeFormat([], { hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23' });

/** `14:03:27`, local time. */
export const clock = (ms) => timeOfDay.format(ms);
