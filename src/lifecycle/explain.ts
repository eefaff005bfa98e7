// A human report of a pod's lifecycles: phase, timeline, and what each lifecycle is waiting for.
// Used by `podops inspect` and `podops status`; it never throws on bad input, it reports it.

import type { Pod } from '../api/kube.ts';
import {
  CONTROL_LABEL,
  SERVICE_AVAILABLE_LABEL,
  SERVICE_READY_GATE,
  STAY_OFFLINE_LABEL,
  TRANSITION_DETAIL_ANNOTATION_PREFIX,
} from '../api/protocol.ts';
import { lifecyclePhase, lifecycleTimeline, phaseSince, podPhase, type LifecyclePhase, type PodPhase, type TimelineEntry } from './phase.ts';
import { InvalidLabelError, parseLifecycles, type Lifecycle, type PodLifecycles } from './parse.ts';
import {
  InvalidAnnotationError,
  hasServiceReadyGate,
  isControlled,
  isDeleting,
  isPodReady,
  missingExpectedFinalizers,
  protectionFinalizers,
  serviceReadyCondition,
} from './pod.ts';
import { parseNanos, type Nanos } from './time.ts';
import { validatePod } from './validate.ts';

export interface LifecycleReport {
  id: string;
  type: string | undefined;
  phase: LifecyclePhase;
  since: Nanos | undefined;
  timeline: TimelineEntry[];
  waitingFor: string[];
}

export interface PodReport {
  namespace: string | undefined;
  name: string | undefined;
  controlled: boolean;
  phase: PodPhase | undefined;
  serviceAvailableSince: Nanos | undefined;
  lifecycles: LifecycleReport[];
  /** What the pod as a whole waits for (no lifecycle left, not yet service-available). */
  waitingFor: string[];
  /** Protocol violations: what the validating webhook would reject, malformed labels or annotations. */
  problems: string[];
}

/**
 * Everything a pod waits for, in one list: each lifecycle's waits, then the pod's, then its protocol problems.
 * `podops status` prints it, the dashboard shows it: the same words in both.
 */
export const podWaits = (report: PodReport): string[] => [
  ...report.lifecycles.flatMap((l) => l.waitingFor),
  ...report.waitingFor,
  ...report.problems.map((p) => `problem: ${p}`),
];

interface TransitionDetail {
  rule: string;
  stage: string | undefined;
  passed: boolean;
  rejections: string[];
}

export function explainPod(pod: Pod): PodReport {
  const report: PodReport = {
    namespace: pod.metadata.namespace,
    name: pod.metadata.name,
    controlled: isControlled(pod),
    phase: undefined,
    serviceAvailableSince: parseNanos(pod.metadata.labels?.[SERVICE_AVAILABLE_LABEL]),
    lifecycles: [],
    waitingFor: [],
    problems: [],
  };
  if (!report.controlled) {
    report.waitingFor.push(`not controlled by PodOpsLifecycle: label ${CONTROL_LABEL}=true is missing`);
    return report;
  }
  report.problems.push(...validatePod(pod));
  let lifecycles: PodLifecycles;
  try {
    lifecycles = parseLifecycles(pod.metadata.labels);
  } catch (err) {
    if (err instanceof InvalidLabelError) return report;
    throw err;
  }
  report.phase = podPhase(lifecycles, pod.metadata.labels);
  const missing = safeMissingExpectedFinalizers(pod);
  const details = transitionDetails(pod, report.problems);
  const all = [...lifecycles.byId.values()].sort((a, b) => (a.id < b.id ? -1 : 1));
  for (const lifecycle of all) {
    report.lifecycles.push({
      id: lifecycle.id,
      type: lifecycle.type,
      phase: lifecyclePhase(lifecycle),
      since: phaseSince(lifecycle),
      timeline: lifecycleTimeline(lifecycle, pod.metadata.labels),
      waitingFor: lifecycleWaits(pod, lifecycle, all, missing, details),
    });
  }
  if (isDeleting(pod)) report.waitingFor.push('the pod is being deleted');
  if (all.length === 0 && report.phase !== 'ServiceAvailable') report.waitingFor.push(...serviceAvailableWaits(pod, missing));
  return report;
}

function safeMissingExpectedFinalizers(pod: Pod): [string, string][] {
  try {
    return missingExpectedFinalizers(pod);
  } catch (err) {
    if (err instanceof InvalidAnnotationError) return [];
    throw err;
  }
}

const missingText = (missing: [string, string][]): string =>
  `waiting for expected finalizers: ${missing.map(([key, finalizer]) => `${finalizer} (${key})`).join(', ')}`;

function serviceAvailableWaits(pod: Pod, missing: [string, string][]): string[] {
  if (pod.metadata.labels?.[STAY_OFFLINE_LABEL] !== undefined) {
    return [`label ${STAY_OFFLINE_LABEL} keeps the pod out of service`];
  }
  const waits: string[] = [];
  if (hasServiceReadyGate(pod) && serviceReadyCondition(pod)?.status !== 'True') {
    waits.push(`waiting for the lifecycle controller to set ${SERVICE_READY_GATE} to True`);
  }
  if (!isPodReady(pod)) waits.push('waiting for the pod to become Ready');
  if (missing.length > 0) waits.push(missingText(missing));
  if (waits.length === 0) waits.push(`waiting for the lifecycle controller to add ${SERVICE_AVAILABLE_LABEL}`);
  return waits;
}

function lifecycleWaits(
  pod: Pod,
  lifecycle: Lifecycle,
  all: readonly Lifecycle[],
  missing: [string, string][],
  details: TransitionDetail[],
): string[] {
  const { labels } = lifecycle;
  const others = (test: (l: Lifecycle) => boolean): string[] => all.filter((l) => l !== lifecycle && test(l)).map((l) => l.id);
  switch (lifecyclePhase(lifecycle)) {
    case 'PreCheck':
      return transitionWaits('PreCheck', details);
    case 'Preparing': {
      const waits: string[] = [];
      const condition = serviceReadyCondition(pod);
      if (condition && condition.status !== 'False') {
        waits.push(`waiting for the lifecycle controller to set ${SERVICE_READY_GATE} to False`);
      }
      const finalizers = protectionFinalizers(pod);
      if (condition && finalizers.length > 0) waits.push(`waiting for protection finalizers: ${finalizers.join(', ')}`);
      if (waits.length === 0) waits.push('ready to operate: waiting for the next write of the pod to move it to operate');
      return waits;
    }
    case 'Operating': {
      if (labels.operating !== undefined) return [`waiting for the operation controller to operate and finish (${lifecycle.type ?? 'unknown type'})`];
      const busy = others((l) => l.labels.operating !== undefined);
      return busy.length > 0 ? [`waiting for lifecycles still operating: ${busy.join(', ')}`] : ['waiting for the next write of the pod to mark it operated'];
    }
    case 'PostCheck': {
      if (labels['post-check'] !== undefined) return transitionWaits('PostCheck', details);
      const behind = others((l) => l.labels.operated === undefined);
      return behind.length > 0 ? [`waiting for lifecycles to finish operating: ${behind.join(', ')}`] : ['waiting for the next write of the pod'];
    }
    case 'Completing': {
      const waits: string[] = [];
      const behind = others((l) => l.labels.completing === undefined);
      if (behind.length > 0) waits.push(`waiting for lifecycles to reach Completing: ${behind.join(', ')}`);
      if (serviceReadyCondition(pod)?.status !== 'True' && hasServiceReadyGate(pod)) {
        waits.push(`waiting for the lifecycle controller to set ${SERVICE_READY_GATE} to True`);
      }
      if (!isPodReady(pod)) waits.push('waiting for the pod to become Ready');
      if (missing.length > 0) waits.push(missingText(missing));
      if (waits.length === 0) waits.push('waiting for the next write of the pod to clean up the lifecycle labels');
      return waits;
    }
  }
}

function transitionWaits(stage: string, details: TransitionDetail[]): string[] {
  const rejected = details.filter((d) => d.stage === stage && !d.passed);
  if (rejected.length === 0) return [`waiting for PodTransitionRules to pass stage ${stage}`];
  return rejected.map((d) => `blocked by PodTransitionRule ${d.rule}: ${d.rejections.join('; ') || 'not passed'}`);
}

/** The detail annotations the PodTransitionRule controller mirrors onto the pod. */
function transitionDetails(pod: Pod, problems: string[]): TransitionDetail[] {
  const details: TransitionDetail[] = [];
  for (const [key, raw] of Object.entries(pod.metadata.annotations ?? {})) {
    if (!key.startsWith(`${TRANSITION_DETAIL_ANNOTATION_PREFIX}/`)) continue;
    const rule = key.slice(TRANSITION_DETAIL_ANNOTATION_PREFIX.length + 1);
    try {
      const parsed = JSON.parse(raw) as { stage?: unknown; passed?: unknown; rejectInfo?: unknown };
      const rejectInfo = Array.isArray(parsed.rejectInfo) ? (parsed.rejectInfo as { ruleName?: unknown; reason?: unknown }[]) : [];
      details.push({
        rule,
        stage: typeof parsed.stage === 'string' ? parsed.stage : undefined,
        passed: parsed.passed === true,
        rejections: rejectInfo.map((r) => `${String(r.ruleName ?? '?')}: ${String(r.reason ?? '')}`),
      });
    } catch (err) {
      problems.push(`invalid annotation ${key}: ${(err as Error).message}`);
    }
  }
  return details.sort((a, b) => (a.rule < b.rule ? -1 : 1));
}
