// The lifecycle controller's decision for one pod (Kuperator's behaviour, docs/protocol.md), as a plan the driver
// writes in one request. Level-triggered: the driver calls it again after every change of the pod.

import type { Pod, Service } from '../api/kube.ts';
import {
  AVAILABLE_CONDITIONS_ANNOTATION,
  POST_CHECK_STAGE,
  PRE_CHECK_STAGE,
  SERVICE_AVAILABLE_LABEL,
  STAY_OFFLINE_LABEL,
  idLabelKey,
  idLabelPrefix,
  operationPermissionKey,
  type TransitionStage,
} from '../api/protocol.ts';
import { parseLifecycles, type PodLifecycles } from './parse.ts';
import { expectedFinalizers, isControlled, isDeleting, isPodReady, missingExpectedFinalizers } from './pod.ts';
import { lifecycleServiceReady, serviceReadyUpdate, type ServiceReadyStatus } from './readiness.ts';
import { mutatePod } from './mutate.ts';
import { SERVICE_AVAILABLE_REPLACES, becomesServiceAvailable } from './service-available.ts';
import type { Nanos } from './time.ts';

export interface TransitionVerdict {
  /** Every PodTransitionRule that lists the pod reports this stage as passed (none listing it: passed). */
  passed: boolean;
  /** Why not, for users (e.g. the rejecting rule and its reason). */
  message?: string;
}

export interface ReconcileInput {
  pod: Pod;
  now: Nanos;
  /** The PodTransitionRule verdict for the pod in a stage. */
  transition: (stage: TransitionStage) => TransitionVerdict;
  /** Looks a Service up for the dirty expected-finalizer check; undefined when it does not exist. */
  service: (namespace: string, name: string) => Service | undefined;
}

export type ReconcileReason =
  | 'ServiceAvailable'
  | 'DirtyExpectedFinalizers'
  | 'ServiceReady'
  | 'PreChecked'
  | 'PostChecked'
  | 'NotReady';

export interface ReconcilePlan {
  reason: ReconcileReason;
  labels?: { set: Record<string, string>; remove: string[] };
  /** Keys to drop from the expected-finalizers annotation: Services that are gone or no longer select the pod. */
  dropExpectedFinalizers?: string[];
  /** The service-ready condition to write through pods/status, with the ServiceReady event message. */
  serviceReady?: { status: ServiceReadyStatus; event: string };
}

const PRE_CHECK_KEY_PREFIX = `${idLabelPrefix('pre-check')}/`;
const POST_CHECK_KEY_PREFIX = `${idLabelPrefix('post-check')}/`;

/** Stages a pod is in, by upstream's predicates: any `pre-check.*` / `post-check.*` label. */
export function transitionStages(pod: Pod): TransitionStage[] {
  let preCheck = false;
  let postCheck = false;
  for (const key in pod.metadata.labels) {
    if (!preCheck && key.startsWith(PRE_CHECK_KEY_PREFIX)) preCheck = true;
    else if (!postCheck && key.startsWith(POST_CHECK_KEY_PREFIX)) postCheck = true;
  }
  const stages: TransitionStage[] = [];
  if (preCheck) stages.push(PRE_CHECK_STAGE);
  if (postCheck) stages.push(POST_CHECK_STAGE);
  return stages;
}

/**
 * The next write for a pod, or undefined when the pod is where the controller wants it. Throws
 * InvalidLabelError / InvalidAnnotationError for malformed protocol labels and annotations.
 */
export function reconcilePod(input: ReconcileInput): ReconcilePlan | undefined {
  const { pod, now } = input;
  if (!isControlled(pod) || isDeleting(pod)) return undefined;
  const stamp = now.toString();
  const labels = pod.metadata.labels ?? {};
  const lifecycles = parseLifecycles(labels);

  if (lifecycles.byId.size === 0 && labels[STAY_OFFLINE_LABEL] === undefined) {
    if (labels[SERVICE_AVAILABLE_LABEL] === undefined) {
      const missing = missingExpectedFinalizers(pod);
      if (missing.length > 0) {
        const dirty = dirtyExpectedFinalizers(pod, missing, input.service);
        if (dirty.length > 0) return { reason: 'DirtyExpectedFinalizers', dropExpectedFinalizers: dirty };
      }
    }
    if (becomesServiceAvailable(pod, lifecycles)) {
      return { reason: 'ServiceAvailable', labels: { set: { [SERVICE_AVAILABLE_LABEL]: stamp }, remove: SERVICE_AVAILABLE_REPLACES.filter((k) => k in labels) } };
    }
    const ready = serviceReadyPlan(pod, 'True', now);
    if (ready) return ready;
  }

  const checked = transitionLabels(pod, lifecycles, input.transition, stamp);
  if (checked) return withProjectedReadiness(pod, checked, now);

  const status = lifecycleServiceReady(lifecycles);
  const readiness = status && serviceReadyPlan(pod, status, now);
  if (readiness) return readiness;

  if (!isPodReady(pod) && labels[SERVICE_AVAILABLE_LABEL] !== undefined) {
    return { reason: 'NotReady', labels: { set: {}, remove: [SERVICE_AVAILABLE_LABEL] } };
  }
  return undefined;
}

function serviceReadyPlan(pod: Pod, status: ServiceReadyStatus, now: Nanos): ReconcilePlan | undefined {
  const update = serviceReadyUpdate(pod, status, now);
  return update && { reason: 'ServiceReady', serviceReady: { status, event: update.event } };
}

/**
 * pre-checked + operation-permission for every ID with a type once PreCheck passed; post-checked once
 * PostCheck passed. Divergence from upstream: post-checked goes only to IDs in post-check (upstream adds it
 * to every ID, and picks one stage at random when a pod is in both), and both stages are handled in one pass.
 */
function transitionLabels(
  pod: Pod,
  lifecycles: PodLifecycles,
  transition: ReconcileInput['transition'],
  stamp: string,
): ReconcilePlan | undefined {
  const labels = pod.metadata.labels ?? {};
  const set: Record<string, string> = {};
  const stages = transitionStages(pod);
  const add = (key: string): void => {
    if (labels[key] === undefined) set[key] = stamp;
  };
  if (stages.includes(PRE_CHECK_STAGE) && transition(PRE_CHECK_STAGE).passed) {
    for (const { id, labels: idLabels } of lifecycles.byId.values()) {
      const type = idLabels['operation-type'];
      if (type === undefined) continue;
      add(operationPermissionKey(type));
      add(idLabelKey('pre-checked', id));
    }
  }
  if (stages.includes(POST_CHECK_STAGE) && transition(POST_CHECK_STAGE).passed) {
    for (const { id, labels: idLabels } of lifecycles.byId.values()) {
      if (idLabels['post-check'] !== undefined) add(idLabelKey('post-checked', id));
    }
  }
  if (Object.keys(set).length === 0) return undefined;
  const reason = Object.keys(set).some((k) => k.startsWith(idLabelPrefix('post-checked'))) ? 'PostChecked' : 'PreChecked';
  return { reason, labels: { set, remove: [] } };
}

/**
 * Divergence (folded writes): the gate change the webhook's answer to these labels calls for goes in the
 * same request. Passing PreCheck leads to preparing, which wants the gate False; passing PostCheck leads to
 * completing, which wants it True. Upstream writes the labels, and the gate in a second request after the
 * webhook answered. The mutation is pure, so the controller computes that answer itself; the write goes
 * through pods/status, whose webhook call sees the new condition (readyToOperate reads it).
 */
function withProjectedReadiness(pod: Pod, plan: ReconcilePlan, now: Nanos): ReconcilePlan {
  const labelled = applyReconcilePlan(pod, plan, now);
  const projected = mutatePod({ operation: 'UPDATE', pod: labelled, oldPod: pod, now }).labels;
  const lifecycles = parseLifecycles(projected);
  const status = lifecycles.byId.size > 0 ? lifecycleServiceReady(lifecycles) : projected[STAY_OFFLINE_LABEL] === undefined ? 'True' : undefined;
  const update = status && serviceReadyUpdate(pod, status, now);
  return update ? { ...plan, serviceReady: { status: status as ServiceReadyStatus, event: update.event } } : plan;
}

/**
 * Missing expected finalizers whose Service is gone or no longer selects the pod (kuperator#119). Only
 * `Service/<ns>/<name>` keys are judged; like upstream, the scan stops at the first entry that is not dirty.
 */
export function dirtyExpectedFinalizers(
  pod: Pod,
  missing: readonly [string, string][],
  service: ReconcileInput['service'],
): string[] {
  const dirty: string[] = [];
  for (const [key] of missing) {
    const parts = key.split('/');
    if (parts.length !== 3 || parts[0] !== 'Service') break;
    const svc = service(parts[1] as string, parts[2] as string);
    if (svc && selectorMatches(svc.spec?.selector, pod.metadata.labels)) break;
    dirty.push(key);
  }
  return dirty;
}

/** A Service's map selector; an empty one selects everything, as labels.Set{}.AsSelector() does. */
const selectorMatches = (selector: Record<string, string> | null | undefined, labels: Record<string, string> | undefined): boolean =>
  Object.entries(selector ?? {}).every(([k, v]) => labels?.[k] === v);

/** The pod after the plan is written: what the API server stores (before any admission mutation). */
export function applyReconcilePlan(pod: Pod, plan: ReconcilePlan, now: Nanos): Pod {
  const metadata = { ...pod.metadata };
  if (plan.labels) {
    const labels = { ...metadata.labels, ...plan.labels.set };
    for (const key of plan.labels.remove) delete labels[key];
    metadata.labels = labels;
  }
  if (plan.dropExpectedFinalizers) {
    const remaining = expectedFinalizers(pod);
    for (const key of plan.dropExpectedFinalizers) delete remaining[key];
    metadata.annotations = { ...metadata.annotations, [AVAILABLE_CONDITIONS_ANNOTATION]: JSON.stringify({ expectedFinalizers: remaining }) };
  }
  let status = pod.status;
  if (plan.serviceReady) {
    const update = serviceReadyUpdate(pod, plan.serviceReady.status, now);
    if (update) status = { ...status, conditions: update.conditions };
  }
  return { ...pod, metadata, status };
}
