// The run in words, as a terminal shows it: what the implementation offers, a line per scenario as it ends
// (with the failed step and what was observed, or why it was skipped), and a summary.

import { CAPABILITY_TITLES, type Capabilities } from './capabilities.ts';
import { observedLines } from './observe.ts';
import type { Report, ScenarioResult, ScenarioStatus } from './runner.ts';

const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)}s`;

export function headerText(server: string, image: string, timeoutMs: number, count: number, parallel: number): string {
  return `podops conformance: ${count} scenario${count === 1 ? '' : 's'} against ${server} (${parallel} at a time, ${seconds(timeoutMs)} each at most, pods of ${image})\n`;
}

export function capabilitiesText(capabilities: Capabilities): string {
  const entries = Object.entries(CAPABILITY_TITLES) as [keyof Capabilities, string][];
  const width = Math.max(...entries.map(([, title]) => title.length));
  return `\nImplementation:\n${entries.map(([key, title]) => `  ${title.padEnd(width)}  ${capabilities[key].summary}`).join('\n')}\n\n`;
}

const WORDS: Record<ScenarioStatus, string> = { passed: 'PASS', failed: 'FAIL', skipped: 'SKIP', interrupted: 'STOP' };

export function resultText(result: ScenarioResult): string {
  const time = result.status === 'passed' || result.status === 'failed' ? `  (${seconds(result.durationMs)})` : '';
  const lines = [`${WORDS[result.status]}  ${result.name}${time}  ${result.title}`];
  const detail = (label: string, text: string[]) => text.forEach((line, i) => lines.push(`      ${(i === 0 ? `${label}:` : '').padEnd(11)}${line}`));
  if (result.step) detail('step', [result.step]);
  if (result.message) detail('failure', [result.message]);
  if (result.observed) detail('observed', observedLines(result.observed));
  if (result.status === 'failed' && result.namespace) detail('namespace', [result.namespace]);
  if (result.reason) detail('reason', [result.reason]);
  return `${lines.join('\n')}\n`;
}

export const countOf = (report: Report, status: ScenarioStatus): number => report.results.filter((r) => r.status === status).length;

export function summaryText(report: Report): string {
  const counts = `${countOf(report, 'passed')} passed, ${countOf(report, 'failed')} failed, ${countOf(report, 'skipped')} skipped`;
  const stopped = report.interrupted ? `; interrupted, ${countOf(report, 'interrupted')} not finished` : '';
  const { created, left } = report.namespaces;
  const cleanup = left.length === 0 ? `${created} namespace${created === 1 ? '' : 's'} deleted` : `${left.length} of ${created} namespaces left behind:\n${left.map((l) => `  ${l.name}: ${l.reason}`).join('\n')}`;
  return `\n${counts}${stopped} of ${report.results.length} scenarios in ${seconds(report.durationMs)}; ${cleanup}\n`;
}
