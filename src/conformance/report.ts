// The run in words, as a terminal shows it: what the implementation offers, a line per scenario as it ends
// (with the failed step, what was observed and the known deviation that fails that step, the labels left
// behind, or why it was skipped), and a summary.

import { CAPABILITY_TITLES, type Capabilities } from './capabilities.ts';
import type { Leftover } from './context.ts';
import type { KnownDeviation } from './deviations.ts';
import { observedLines } from './observe.ts';
import type { Report, ScenarioResult, ScenarioStatus } from './runner.ts';

const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)}s`;

export interface RunShape {
  server: string;
  image: string;
  timeoutMs: number;
  count: number;
  parallel: number;
  /** The seed of a shuffled order. */
  seed?: number | undefined;
}

export function headerText({ server, image, timeoutMs, count, parallel, seed }: RunShape): string {
  const order = seed === undefined ? '' : `, shuffled with --seed ${seed}`;
  return `podops conformance: ${count} scenario${count === 1 ? '' : 's'} against ${server} (${Math.min(parallel, count)} at a time${order}, ${seconds(timeoutMs)} each at most, pods of ${image})\n`;
}

/** A known deviation in a line: whose, which, what. */
export const deviationText = (deviation: KnownDeviation): string => `${deviation.implementation}'s known deviation ${deviation.id}: ${deviation.summary}`;

export const leftoverText = (leftover: Leftover): string => `${leftover.pod} back in service (step: ${leftover.step}) still has ${leftover.labels.join(', ')}`;

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
  else if (result.leftovers) detail('steps', ['all passed, but labels of ended lifecycles were left behind']);
  if (result.message) detail('failure', [result.message]);
  if (result.observed) detail('observed', observedLines(result.observed));
  if (result.deviation) detail('known', [deviationText(result.deviation)]);
  for (const leftover of result.leftovers ?? []) {
    detail('leftover', [leftoverText(leftover)]);
    if (leftover.deviation) detail('known', [deviationText(leftover.deviation)]);
  }
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
