// What a RolloutLifecycle's reconcile writes, as the ordered list of requests the controller sends as they are
// (and the property tests' world applies, body for body): hook Jobs suspended, deleted and created; the status;
// the workload's hold or its release, and a held DaemonSet's evictions; the retry request answered. Deleting a
// RolloutLifecycle cancels its running hooks, releases its workload and removes its finalizer.
//
// Each request says whether it is guarded by the resourceVersion read, and why (a merge patch of a finalizer
// list replaces it whole; a hold's first write stashes settings read from that very version; a release
// restores a stash read from it), or why it needs no guard (one label, one annotation, a field only podops
// sets, a status only this controller writes): a guard there would only fail on the writes of others, as the
// workload's controller writes its status all along a rollout. It names the answers of the API server that
// leave the reconcile going: NotFound for every write but a create (an object deleted meanwhile needs no write,
// and its deletion's event brings the RolloutLifecycle back), AlreadyExists for a Job made before a restart,
// TooManyRequests for an eviction a disruption budget refuses for now (the next step tries again).

import { escapeJsonPointer, type JsonPatchOperation, type OwnerReference } from '../api/kube.ts';
import { RL_FIELD_MANAGER, RL_FINALIZER, RL_RETRY_ANNOTATION, RL_ROLLOUT_ANNOTATION, RL_USER_SETTINGS_ANNOTATION, RL_WORKLOAD_LABEL, type RolloutLifecycle, type RolloutLifecycleStatus, type WorkloadKind } from '../api/rolloutlifecycle.ts';
import { daemonSetMaxUnavailable, daemonSetReplacements } from './daemonset.ts';
import { hookJobFor, type HookJob } from './jobs.ts';
import type { ObservedRollout } from './observe.ts';
import { cancelRunningHooks, type CancelledJobs, type Plan, type RolloutEvent } from './plan.ts';
import { stashAnnotations, STASH_REMOVED, stashOf, type RolloutStamp } from './stash.ts';
import { annotationOperations, holdFieldOperations, resourceVersionGuard } from './workload-patch.ts';
import { holdSettings, type Hold, type Workload } from './workload.ts';

/** An answer of the API server that leaves the reconcile going: the request's effect is there, or comes later. */
export type Tolerated = 'NotFound' | 'AlreadyExists' | 'TooManyRequests';

/** The kinds of object the rollout controller writes. */
export type WrittenKind = 'Job' | 'Pod' | 'ReplicaSet' | 'RolloutLifecycle' | WorkloadKind;

interface Sent {
  namespace: string;
  /** What the request is for, and why it is guarded or not: the log's and the error's words. */
  why: string;
  tolerate: readonly Tolerated[];
}

type MergePatch = { [key: string]: unknown };

export type PatchRequest = Sent & {
  verb: 'patch';
  kind: WrittenKind;
  name: string;
  subresource?: 'status';
  patchType: 'json' | 'merge';
  body: JsonPatchOperation[] | MergePatch;
  /** The write fails with 409 Conflict unless the object is at the version it was computed from. */
  guarded: boolean;
  /** podops' rollout field manager, which the workload webhook lets pass. */
  fieldManager?: string;
  /** On 409 Conflict: the write made again from a fresh read of the workload (undefined: nothing to write any more). */
  again?: (fresh: Workload) => PatchRequest | undefined;
};

export type RolloutRequest =
  | (Sent & { verb: 'create'; kind: 'Job'; body: HookJob })
  | (Sent & { verb: 'delete'; kind: 'Job'; name: string; propagationPolicy: 'Background' })
  | (Sent & { verb: 'evict'; kind: 'Pod'; name: string })
  | PatchRequest;

/** An event to record once the requests are sent, on the RolloutLifecycle, on its workload, or on both. */
export interface RolloutNotice extends RolloutEvent {
  on: readonly ('RolloutLifecycle' | 'workload')[];
}

export interface Writes {
  requests: RolloutRequest[];
  events: RolloutNotice[];
}

const namespaceOf = (object: { metadata: { namespace?: string } }): string => object.metadata.namespace ?? '';

const UNGUARDED_LABEL = 'a merge patch of one label cannot lose anyone else’s change: unguarded';
const GUARDED_FINALIZERS = 'a merge patch replaces the finalizer list whole: guarded, so no one else’s finalizer is lost';

/** The RolloutLifecycle's finalizer, so that its deletion waits for its workload's release. */
export const finalizerAdded = (rl: RolloutLifecycle): PatchRequest => finalizers(rl, [...(rl.metadata.finalizers ?? []), RL_FINALIZER], 'add the finalizer');

const finalizers = (rl: RolloutLifecycle, list: string[], what: string): PatchRequest => ({
  verb: 'patch',
  kind: 'RolloutLifecycle',
  namespace: namespaceOf(rl),
  name: rl.metadata.name ?? '',
  patchType: 'merge',
  body: { metadata: { resourceVersion: rl.metadata.resourceVersion, finalizers: list } },
  guarded: true,
  why: `${what}: ${GUARDED_FINALIZERS}`,
  tolerate: ['NotFound'],
});

/** The workload's label naming its RolloutLifecycle (null: removed): the workload webhook sees only labelled workloads. */
export const workloadLabelled = (kind: WorkloadKind | 'ReplicaSet', object: Workload, rolloutLifecycle: string | null): PatchRequest => ({
  verb: 'patch',
  kind,
  namespace: namespaceOf(object),
  name: object.metadata.name ?? '',
  patchType: 'merge',
  body: { metadata: { labels: { [RL_WORKLOAD_LABEL]: rolloutLifecycle } } },
  guarded: false,
  fieldManager: RL_FIELD_MANAGER,
  why: `${rolloutLifecycle === null ? 'remove' : 'set'} the RolloutLifecycle label: ${UNGUARDED_LABEL}`,
  tolerate: ['NotFound'],
});

/** A Deployment's ReplicaSets not labelled for the RolloutLifecycle yet (so that the labelled cache holds them). */
export const replicaSetsLabelled = (rolloutLifecycle: string, replicaSets: readonly Workload[]): PatchRequest[] =>
  replicaSets.filter((rs) => rs.metadata.labels?.[RL_WORKLOAD_LABEL] !== rolloutLifecycle).map((rs) => workloadLabelled('ReplicaSet', rs, rolloutLifecycle));

type Status = NonNullable<RolloutLifecycle['status']>;

/** A problem that stops the rollout: the only condition is Progressing False with its reason (kept, with its time, while it lasts). */
export interface Problem {
  reason: string;
  message: string;
}

/** Keys sorted: kube-apiserver returns a custom resource's fields in its own order, not in the order written. */
const sortedKeys = (_key: string, value: unknown): unknown =>
  value && typeof value === 'object' && !Array.isArray(value) ? Object.fromEntries(Object.entries(value).sort(([a], [b]) => (a < b ? -1 : 1))) : value;

/**
 * A change of the new available count alone waits for the next change that matters: during a large rollout it
 * changes with every pod, and writing each would keep the controller (and the API server) busy.
 */
const settled = (status: RolloutLifecycleStatus | undefined): string => JSON.stringify({ ...status, rollout: status?.rollout && { ...status.rollout, newAvailable: 0 } }, sortedKeys);

/** The status write, or none when nothing that matters changed. */
export function statusWritten(rl: RolloutLifecycle, status: Omit<Status, 'observedGeneration'>, now: string, problem?: Problem): PatchRequest | undefined {
  const before = rl.status?.conditions?.find((c) => c.type === 'Progressing');
  const since = before?.status === 'False' && before.reason === problem?.reason ? before.lastTransitionTime : now;
  const next: Status = {
    ...(rl.metadata.generation !== undefined && { observedGeneration: rl.metadata.generation }),
    ...status,
    ...(problem && { conditions: [{ type: 'Progressing', status: 'False' as const, lastTransitionTime: since, ...problem }] }),
  };
  if (settled(next) === settled(rl.status)) return undefined;
  return {
    verb: 'patch',
    kind: 'RolloutLifecycle',
    subresource: 'status',
    namespace: namespaceOf(rl),
    name: rl.metadata.name ?? '',
    patchType: 'json',
    body: [{ op: rl.status ? 'replace' : 'add', path: '/status', value: next }],
    guarded: false,
    // Only this controller writes it, and never from a cache behind its last write (its writes are assumed into the cache).
    why: 'the status, whole: only this controller writes it, so unguarded (a guard would fail on the spec and annotation writes of others)',
    tolerate: ['NotFound'],
  };
}

const RETRY_PATH = `/metadata/annotations/${escapeJsonPointer(RL_RETRY_ANNOTATION)}`;

const optional = <T>(request: T | undefined): T[] => (request === undefined ? [] : [request]);

/** A RolloutLifecycle whose workload an older one claims: it says so (a Warning event when it starts to), and does nothing. */
export function claimRefused(rl: RolloutLifecycle, target: string, claimant: string, now: string): Writes {
  const message = `${target} is claimed by RolloutLifecycle ${claimant}, the oldest that targets it (at most one per workload): this one does nothing while ${claimant} exists`;
  const before = rl.status?.conditions?.find((c) => c.type === 'Progressing');
  const saidSo = before?.reason === 'TargetClaimed' && before.message === message;
  return {
    requests: optional(statusWritten(rl, { target, conditions: [] }, now, { reason: 'TargetClaimed', message })),
    events: saidSo ? [] : [{ on: ['RolloutLifecycle'], type: 'Warning', reason: 'TargetClaimed', message }],
  };
}

/** A RolloutLifecycle whose workload does not exist says so. */
export const targetMissing = (rl: RolloutLifecycle, kind: WorkloadKind, now: string): Writes => {
  const name = rl.spec?.targetRef?.name;
  const problem = { reason: 'TargetNotFound', message: `the ${kind} ${name} does not exist` };
  return { requests: optional(statusWritten(rl, { target: `${kind}/${name}`, conditions: [] }, now, problem)), events: [] };
};

/** Jobs of cancelled hooks suspended or deleted, as their retention says. */
function cancelledJobWrites(namespace: string, jobs: CancelledJobs): RolloutRequest[] {
  return [
    ...jobs.suspendJobs.map((name): RolloutRequest => ({
      verb: 'patch',
      kind: 'Job',
      namespace,
      name,
      patchType: 'merge',
      body: { spec: { suspend: true } },
      guarded: false,
      why: 'suspend the Job of a cancelled hook, kept for inspection: one field only podops sets, unguarded',
      tolerate: ['NotFound'],
    })),
    ...jobs.deleteJobs.map((name): RolloutRequest => ({ verb: 'delete', kind: 'Job', namespace, name, propagationPolicy: 'Background', why: 'delete a hook Job its retention lets go', tolerate: ['NotFound'] })),
  ];
}

/** The owner of a hook Job: the revision it runs for (pruned with it), or the workload before that exists. */
function jobOwner(kind: WorkloadKind, workload: Workload, observed: ObservedRollout, revision: string | undefined): OwnerReference {
  const uid = observed.revisions.find((r) => r.name === revision)?.uid;
  if (revision !== undefined && uid !== undefined) return { apiVersion: 'apps/v1', kind: kind === 'Deployment' ? 'ReplicaSet' : 'ControllerRevision', name: revision, uid };
  return { apiVersion: 'apps/v1', kind, name: workload.metadata.name ?? '', uid: workload.metadata.uid ?? '' };
}

function jobsCreated(rl: RolloutLifecycle, kind: WorkloadKind, workload: Workload, observed: ObservedRollout, plan: Plan): RolloutRequest[] {
  const record = plan.rollout;
  if (!record) return [];
  return plan.createJobs.flatMap((action): RolloutRequest[] => {
    const hook = (rl.spec?.hooks ?? []).find((h) => h.name === action.hook);
    if (!hook?.jobSpec) return [];
    const owner = jobOwner(kind, workload, observed, record.toRevision);
    const body = hookJobFor(rl, hook, { name: action.name, point: action.point, rollout: record, owner });
    // Made by this controller before a restart: the same name is the same hook run.
    return [{ verb: 'create', kind: 'Job', namespace: namespaceOf(rl), body, why: `run hook ${action.hook} at point ${action.point}`, tolerate: ['AlreadyExists'] }];
  });
}

const workloadPatch = (kind: WorkloadKind, workload: Workload, body: JsonPatchOperation[], guarded: boolean, why: string): PatchRequest => ({
  verb: 'patch',
  kind,
  namespace: namespaceOf(workload),
  name: workload.metadata.name ?? '',
  patchType: 'json',
  body,
  guarded,
  fieldManager: RL_FIELD_MANAGER,
  why,
  tolerate: ['NotFound'],
});

/**
 * The user's settings back, exactly, and podops' annotations gone: read and written in one version (the stash
 * may have taken a change of the user's meanwhile), so guarded; the workload's controller writes its status all
 * along, so a conflict is made again at once from a fresh read, unless a new template came meanwhile (`sameRollout`):
 * the webhook froze it, and the next reconcile plans its rollout.
 */
export function released(kind: WorkloadKind, workload: Workload, sameRollout: boolean): PatchRequest | undefined {
  const annotations = workload.metadata.annotations ?? {};
  if (annotations[RL_USER_SETTINGS_ANNOTATION] === undefined) return undefined;
  const body = [resourceVersionGuard(workload), ...annotationOperations(workload, STASH_REMOVED), ...holdFieldOperations(kind, workload, stashOf(workload) ?? {})];
  return {
    ...workloadPatch(kind, workload, body, true, 'release: the user’s settings back, read and written in one version of the workload (guarded)'),
    again: (fresh) => (sameRollout && fresh.metadata.annotations?.[RL_ROLLOUT_ANNOTATION] !== annotations[RL_ROLLOUT_ANNOTATION] ? undefined : released(kind, fresh, sameRollout)),
  };
}

/** The workload under `hold` (stashing the user's settings first), or given back; a held DaemonSet's old pods evicted for a step. */
export function holdWrites(kind: WorkloadKind, workload: Workload, observed: ObservedRollout, hold: Hold, stamp: RolloutStamp | undefined): RolloutRequest[] {
  const settings = holdSettings(kind, observed.user, hold, { replicas: observed.replicas, newReplicas: observed.newReplicas });
  const fields = holdFieldOperations(kind, workload, settings);
  const requests: RolloutRequest[] = [];
  if (stamp || (!observed.held && hold.type !== 'release')) {
    // The first hold podops imposes (the webhook did not see the template change), with the rollout's stamp when
    // the webhook wrote none: the user's settings are read from this very version.
    const body = [resourceVersionGuard(workload), ...annotationOperations(workload, stashAnnotations(observed.user, stamp)), ...fields];
    requests.push(workloadPatch(kind, workload, body, true, 'hold: the user’s settings stashed as read from this version of the workload (guarded)'));
  } else if (hold.type === 'release') {
    return observed.held ? optional(released(kind, workload, true)) : [];
  } else if (fields.length > 0) {
    // Fields only podops sets while the workload is held: the webhook stashes anyone else's change.
    requests.push(workloadPatch(kind, workload, fields, false, 'step: the hold fields, which only podops sets while the workload is held, so unguarded (the workload’s status writes would fail a guard)'));
  }
  if (kind === 'DaemonSet' && hold.type === 'step') {
    // Eviction, not deletion: PodDisruptionBudgets (and podops' own eviction answer for controlled pods) apply.
    for (const pod of daemonSetReplacements(observed.pods, hold.count, daemonSetMaxUnavailable(observed.user, observed.replicas))) {
      requests.push({ verb: 'evict', kind: 'Pod', namespace: namespaceOf(workload), name: pod, why: `replace an old pod of the DaemonSet for step ${hold.count}`, tolerate: ['NotFound', 'TooManyRequests'] });
    }
  }
  return requests;
}

export interface RolloutStep {
  rl: RolloutLifecycle;
  kind: WorkloadKind;
  workload: Workload;
  observed: ObservedRollout;
  plan: Plan;
  /** RFC 3339. */
  now: string;
}

/**
 * The requests of a planned step, in order: Jobs first (a status never records a hook running without its Job),
 * then the status, then the hold (a release drops the workload's stamp, and once the status records the rollout
 * a restart cannot take it for a new one), then the retry request's answer.
 */
export function rolloutWrites({ rl, kind, workload, observed, plan, now }: RolloutStep): Writes {
  const status = statusWritten(rl, { target: `${kind}/${workload.metadata.name}`, conditions: plan.conditions, ...(plan.rollout && { rollout: plan.rollout }), hooks: plan.hooks }, now);
  const retryAnswered: PatchRequest = {
    verb: 'patch',
    kind: 'RolloutLifecycle',
    namespace: namespaceOf(rl),
    name: rl.metadata.name ?? '',
    patchType: 'json',
    body: [
      { op: 'test', path: RETRY_PATH, value: rl.metadata.annotations?.[RL_RETRY_ANNOTATION] ?? '' },
      { op: 'remove', path: RETRY_PATH },
    ],
    guarded: false,
    why: 'the retry request answered: removed only while it is the request acted on (a newer one fails the test, 422, and the next reconcile acts on it)',
    tolerate: ['NotFound'],
  };
  return {
    requests: [
      ...cancelledJobWrites(namespaceOf(rl), plan),
      ...jobsCreated(rl, kind, workload, observed, plan),
      ...optional(status),
      ...(plan.hold ? holdWrites(kind, workload, observed, plan.hold, plan.stamp) : []),
      ...(plan.retried ? [retryAnswered] : []),
    ],
    events: plan.events.map((event) => ({ ...event, on: ['RolloutLifecycle', 'workload'] })),
  };
}

/**
 * A RolloutLifecycle being deleted: its running hooks cancelled, its workload released (whatever rollout it
 * holds) and unlabelled, then its finalizer removed. A workload another RolloutLifecycle claimed meanwhile
 * (`workload` undefined) is that one's to release.
 */
export function finalizeWrites(rl: RolloutLifecycle, kind: WorkloadKind | undefined, workload: Workload | undefined): Writes {
  const running = cancelRunningHooks(rl.spec?.hooks ?? [], rl.status?.hooks ?? []);
  const requests = cancelledJobWrites(namespaceOf(rl), running);
  const events: RolloutNotice[] = [];
  if (kind && workload) {
    requests.push(...optional(released(kind, workload, false)));
    if (workload.metadata.labels?.[RL_WORKLOAD_LABEL] === rl.metadata.name) requests.push(workloadLabelled(kind, workload, null));
    const cancelled = running.cancelled.length ? `, hooks cancelled: ${running.cancelled.join(', ')}` : '';
    events.push({ on: ['workload'], type: 'Normal', reason: 'RolloutReleased', message: `RolloutLifecycle ${rl.metadata.name} deleted: the workload is released${cancelled}` });
  }
  requests.push(finalizers(rl, (rl.metadata.finalizers ?? []).filter((f) => f !== RL_FINALIZER), 'remove the finalizer'));
  return { requests, events };
}
