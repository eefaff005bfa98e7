// `podops inspect [FILE|-]`: what each lifecycle of a pod is doing and waiting for, read off its labels.

import type { Pod } from '../../api/kube.ts';
import { explainPod } from '../../lifecycle/explain.ts';
import { UsageError, optionsHelp, parseCommandArgs, type Command } from '../command.ts';
import { parseObjects, readSource } from '../input.ts';
import { formatPodReport } from '../../lifecycle/explain-text.ts';
import { reportJson } from '../pod-report-text.ts';

const usage = `Usage: podops inspect [FILE|-] [-o text|json]

Prints each PodOpsLifecycle of a pod: its ID, operation type, phase, timeline, and what it waits for.
Reads a Pod (or a List of pods) as JSON or YAML from FILE, or from stdin with "-" (the default):

  kubectl get pod web-0 -o json | podops inspect -
  kubectl get pods -l kusionstack.io/control=true -o yaml | podops inspect

Options:
${optionsHelp([['-o, --output FORMAT', 'text (default) or json']])}`;

const isStringMap = (value: unknown): boolean =>
  value === undefined || (typeof value === 'object' && value !== null && !Array.isArray(value) && Object.values(value).every((v) => typeof v === 'string'));

/** Checks the fields the report reads, naming the first thing that is wrong. */
export function asPod(object: unknown, where: string): Pod {
  if (typeof object !== 'object' || object === null || Array.isArray(object)) throw new UsageError(`${where}: expected a Pod object, got ${Array.isArray(object) ? 'an array' : typeof object}`);
  const candidate = object as { kind?: unknown; metadata?: unknown; status?: { conditions?: unknown } };
  if (candidate.kind !== undefined && candidate.kind !== 'Pod') throw new UsageError(`${where}: expected a Pod, got kind ${JSON.stringify(candidate.kind)}`);
  const metadata = candidate.metadata as Record<string, unknown> | undefined;
  if (typeof metadata !== 'object' || metadata === null) throw new UsageError(`${where}: not a Pod: metadata is missing`);
  for (const field of ['labels', 'annotations'] as const) {
    if (!isStringMap(metadata[field])) throw new UsageError(`${where}: metadata.${field} must map strings to strings`);
  }
  const finalizers = metadata.finalizers;
  if (finalizers !== undefined && !(Array.isArray(finalizers) && finalizers.every((f) => typeof f === 'string'))) {
    throw new UsageError(`${where}: metadata.finalizers must be a list of strings`);
  }
  const conditions = candidate.status?.conditions;
  if (conditions !== undefined && !(Array.isArray(conditions) && conditions.every((c) => typeof c?.type === 'string' && typeof c?.status === 'string'))) {
    throw new UsageError(`${where}: status.conditions must be a list of {type, status} objects`);
  }
  return object as Pod;
}

export const inspectCommand: Command = {
  usage,
  async run(args, io) {
    const parsed = parseCommandArgs({ args, allowPositionals: true, options: { output: { type: 'string', short: 'o', default: 'text' } } });
    const { values, positionals } = parsed;
    if (positionals.length > 1) throw new UsageError(`expected at most one FILE, got ${positionals.length}`);
    if (values.output !== 'text' && values.output !== 'json') throw new UsageError(`unknown output format "${values.output}": use text or json`);
    const source = positionals[0] ?? '-';
    const name = source === '-' ? 'stdin' : source;
    const objects = parseObjects(await readSource(source, io), name);
    if (objects.length === 0) throw new UsageError(`${name} holds no objects`);
    const reports = objects.map((object, i) => explainPod(asPod(object, objects.length > 1 ? `${name} item ${i}` : name)));
    io.stdout.write(values.output === 'json' ? reportJson(reports) : reports.map((r) => formatPodReport(r, io.now())).join('\n'));
    return 0;
  },
};
