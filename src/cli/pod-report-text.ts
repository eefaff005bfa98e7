// Text and JSON renderings of a lifecycle report, shared by `podops inspect` and `podops status`.

import type { PodReport } from '../lifecycle/explain.ts';
import { formatDuration, millisFromNanos, nanosFromMillis, type Nanos } from '../lifecycle/time.ts';

const iso = (n: Nanos): string => new Date(millisFromNanos(n)).toISOString();

export function formatPodReport(report: PodReport, nowMs: number): string {
  const now = nanosFromMillis(nowMs);
  const lines = [`Pod ${report.namespace ?? '<no namespace>'}/${report.name ?? '<no name>'}`];
  if (!report.controlled) {
    lines.push(...report.waitingFor.map((w) => `  ${w}`));
    return `${lines.join('\n')}\n`;
  }
  let phase = `  phase: ${report.phase ?? 'unknown'}`;
  if (report.phase === 'ServiceAvailable' && report.serviceAvailableSince !== undefined) {
    phase += ` since ${iso(report.serviceAvailableSince)} (${formatDuration(now - report.serviceAvailableSince)})`;
  }
  lines.push(phase);
  for (const lifecycle of report.lifecycles) {
    const since = lifecycle.since === undefined ? '' : ` for ${formatDuration(now - lifecycle.since)}`;
    lines.push(`  lifecycle ${lifecycle.id} (type ${lifecycle.type ?? 'unknown'}): ${lifecycle.phase}${since}`);
    const width = Math.max(0, ...lifecycle.timeline.map((e) => e.event.length));
    for (const entry of lifecycle.timeline) lines.push(`    ${iso(entry.at)}  ${entry.event.padEnd(width)}`.trimEnd());
    lines.push(...lifecycle.waitingFor.map((w) => `    ${w}`));
  }
  lines.push(...report.waitingFor.map((w) => `  ${w}`));
  lines.push(...report.problems.map((p) => `  problem: ${p}`));
  return `${lines.join('\n')}\n`;
}

/** JSON with nanosecond timestamps as decimal strings (the protocol's own format). */
export const reportJson = (report: unknown): string =>
  `${JSON.stringify(report, (_key, value: unknown) => (typeof value === 'bigint' ? value.toString() : value), 2)}\n`;
