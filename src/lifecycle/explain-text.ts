// A lifecycle report (explainPod's) as text: what `podops inspect` prints and the dashboard's pod panel shows.

import type { PodReport } from './explain.ts';
import { formatDuration, millisFromNanos, nanosFromMillis, type Nanos } from './time.ts';

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
