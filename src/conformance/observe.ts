// What a scenario saw, in the words of the report: a pod's labels, annotations, finalizers, conditions and
// containers, or the API server's answer to a request; and the failure of a step, which carries it.

import type { Pod } from '../api/kube.ts';
import { ApiError } from '../kube/client.ts';

/** The state a failed step saw, as the report shows it. */
export type Observed =
  | { kind: 'Pod'; name: string; phase?: string; labels: Record<string, string>; annotations: Record<string, string>; finalizers: string[]; conditions: string[]; containers: string[]; deleting: boolean }
  | { kind: 'Answer'; request: string; code?: number; message: string }
  | { kind: 'Object'; name: string; state: unknown };

/** A step's expectation that did not hold: which step, what was expected, and what was there instead. */
export class StepFailure extends Error {
  override name = 'StepFailure';
  readonly observed: Observed | undefined;
  constructor(message: string, observed?: Observed) {
    super(message);
    this.observed = observed;
  }
}

interface ContainerStatus {
  name: string;
  ready?: boolean;
  state?: { waiting?: { reason?: string }; running?: unknown; terminated?: { reason?: string; exitCode?: number } };
}

function containerLine(status: ContainerStatus): string {
  const { waiting, running, terminated } = status.state ?? {};
  const state = waiting ? `waiting ${waiting.reason ?? ''}`.trim() : running ? 'running' : terminated ? `terminated ${terminated.reason ?? ''} (exit ${terminated.exitCode})` : 'no state';
  return `${status.name}: ${state}${status.ready ? ', ready' : ''}`;
}

export function observedPod(pod: Pod): Observed {
  return {
    kind: 'Pod',
    name: pod.metadata.name ?? '',
    ...(pod.status?.phase && { phase: pod.status.phase }),
    labels: { ...pod.metadata.labels },
    annotations: { ...pod.metadata.annotations },
    finalizers: [...(pod.metadata.finalizers ?? [])],
    conditions: (pod.status?.conditions ?? []).map((c) => `${c.type}=${c.status}${c.message ? ` (${c.message})` : ''}`),
    containers: ((pod.status?.containerStatuses ?? []) as ContainerStatus[]).map(containerLine),
    deleting: pod.metadata.deletionTimestamp != null,
  };
}

/** The answer to a request: the API server's Status for an ApiError, else the error's message. */
export function observedAnswer(request: string, answer: unknown): Observed {
  if (answer instanceof ApiError) return { kind: 'Answer', request, code: answer.code, message: answer.status.message ?? answer.message };
  if (answer instanceof Error) return { kind: 'Answer', request, message: answer.message };
  return { kind: 'Answer', request, message: JSON.stringify(answer) };
}

/** Observed state as indented lines for the text report. */
export function observedLines(observed: Observed): string[] {
  if (observed.kind === 'Answer') return [`answer to ${observed.request}: ${observed.code === undefined ? '' : `${observed.code} `}${observed.message}`];
  if (observed.kind === 'Object') return [`${observed.name}: ${JSON.stringify(observed.state)}`];
  const entries = (map: Record<string, string>) => Object.entries(map).sort(([a], [b]) => a.localeCompare(b)).map(([k, v]) => `${k}=${v}`);
  return [
    `pod ${observed.name}${observed.phase ? ` (${observed.phase}${observed.deleting ? ', deleting' : ''})` : ''}`,
    `labels:      ${entries(observed.labels).join(', ') || '-'}`,
    ...(Object.keys(observed.annotations).length > 0 ? [`annotations: ${entries(observed.annotations).join(', ')}`] : []),
    `finalizers:  ${observed.finalizers.join(', ') || '-'}`,
    `conditions:  ${observed.conditions.join(', ') || '-'}`,
    ...(observed.containers.length > 0 ? [`containers:  ${observed.containers.join('; ')}`] : []),
  ];
}
