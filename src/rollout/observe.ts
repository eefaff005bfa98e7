// What a rollout is at, read off the objects (pure: the driver lists them, this reads them): the workload,
// its ReplicaSets or ControllerRevisions, its pods (StatefulSet and DaemonSet: their status has no count of
// new available pods), and the hook Jobs.

import { CONTROLLER_REVISION_HASH_LABEL, type Pod } from '../api/kube.ts';
import type { WorkloadKind } from '../api/rolloutlifecycle.ts';
import type { JobObservation, Observation } from './plan.ts';
import { stampOf, stashOf } from './stash.ts';
import { reachableReplicas, sameTemplate, settingsOf, templateHash, templateOf, userDrivesUpdates, type Json, type JsonObject, type Settings, type Workload } from './workload.ts';

/** A revision of the workload that exists: a ReplicaSet, or a ControllerRevision's template. */
export interface Revision {
  name: string;
  /** The object's uid, when read from it (hook Jobs are owned by it). */
  uid?: string;
  template: Json;
}

export interface ReplicaSetLike extends Workload {
  metadata: Workload['metadata'] & { ownerReferences?: { uid: string }[] };
}

export interface ControllerRevision {
  metadata: { name?: string; uid?: string; labels?: Record<string, string>; ownerReferences?: { uid: string }[] };
  revision?: number;
  data?: Json;
}

export interface JobLike {
  metadata: { name?: string };
  status?: { conditions?: { type: string; status: string; reason?: string; message?: string }[] };
}

export interface RolloutObjects {
  kind: WorkloadKind;
  workload: Workload;
  replicaSets?: readonly ReplicaSetLike[];
  controllerRevisions?: readonly ControllerRevision[];
  pods?: readonly Pod[];
  jobs: readonly JobLike[];
  /** Milliseconds since the epoch, for minReadySeconds. */
  now: number;
}

export interface ObservedRollout extends Observation {
  /** The user's own values of the hold fields (stashed while held). */
  user: Settings;
  /** The hold fields as stored now. */
  current: Settings;
  /** Deployment: spec.replicas of the new ReplicaSet (0 before it exists). */
  newReplicas: number;
  revisions: Revision[];
  /** StatefulSet and DaemonSet: the pods and which revision they run (`new` or not). */
  pods: { name: string; isNew: boolean; available: boolean; terminating: boolean }[];
}

const ownedBy = (object: { metadata: { ownerReferences?: { uid: string }[] } }, uid: string | undefined): boolean =>
  uid !== undefined && (object.metadata.ownerReferences ?? []).some((o) => o.uid === uid);

const num = (value: Json | undefined, fallback = 0): number => (typeof value === 'number' ? value : fallback);

/** Ready for minReadySeconds, and not on its way out (the controllers' IsPodAvailable). */
export function podAvailable(pod: Pod, minReadySeconds: number, now: number): boolean {
  if (pod.metadata.deletionTimestamp) return false;
  const ready = pod.status?.conditions?.find((c) => c.type === 'Ready');
  if (ready?.status !== 'True') return false;
  if (minReadySeconds <= 0) return true;
  const since = Date.parse(ready.lastTransitionTime ?? '');
  return Number.isFinite(since) && since + minReadySeconds * 1000 <= now;
}

export function jobObservation(job: JobLike): JobObservation {
  const condition = (type: string) => job.status?.conditions?.find((c) => c.type === type && c.status === 'True');
  if (condition('Complete')) return { phase: 'Succeeded' };
  const failed = condition('Failed');
  if (failed) return { phase: 'Failed', message: [failed.reason, failed.message].filter(Boolean).join(': ') || 'the Job failed' };
  return { phase: 'Active' };
}

/** A ControllerRevision's template (its data is a strategic patch of the spec's template). */
function revisionTemplate(revision: ControllerRevision): Json {
  const data = revision.data as JsonObject | undefined;
  const spec = data?.spec as JsonObject | undefined;
  return spec?.template ?? {};
}

export function observeRollout(objects: RolloutObjects): ObservedRollout {
  const { kind, workload, now } = objects;
  const stashed = stashOf(workload);
  const stamp = stampOf(workload);
  const user = stashed ?? settingsOf(kind, workload);
  const spec = workload.spec ?? {};
  const status = workload.status ?? {};
  const template = templateOf(workload) ?? {};
  const minReadySeconds = num(spec.minReadySeconds);
  const uid = workload.metadata.uid;
  const base = {
    templateHash: templateHash(template),
    ...(stamp && { stamp }),
    held: stashed !== undefined,
    user,
    current: settingsOf(kind, workload),
    userDrives: userDrivesUpdates(kind, user),
    jobs: new Map(objects.jobs.map((job) => [job.metadata.name ?? '', jobObservation(job)])),
  };

  if (kind === 'Deployment') {
    const replicas = num(spec.replicas, 1);
    const sets = (objects.replicaSets ?? []).filter((rs) => ownedBy(rs, uid));
    const newSet = sets.find((rs) => sameTemplate(templateOf(rs) ?? {}, template));
    // Read off the ReplicaSets, not the Deployment's status: podops' own writes make that status stale (a new
    // generation) until the Deployment controller has looked again, and points must not wait for it.
    const oldPods = sets.filter((rs) => rs !== newSet).reduce((n, rs) => n + num(rs.spec?.replicas) + num(rs.status?.replicas), 0);
    const revisions = sets.map((rs) => ({ name: rs.metadata.name ?? '', ...(rs.metadata.uid !== undefined && { uid: rs.metadata.uid }), template: templateOf(rs) ?? {} }));
    return {
      ...base,
      replicas,
      reachable: replicas,
      ...(stamp?.from !== undefined && { fromRevision: stamp.from }),
      ...(newSet && { toRevision: newSet.metadata.name ?? '' }),
      newReplicas: num(newSet?.spec?.replicas),
      newAvailable: num(newSet?.status?.availableReplicas),
      revisionReady: true,
      complete: num(newSet?.spec?.replicas) === replicas && num(newSet?.status?.availableReplicas) >= replicas && oldPods === 0,
      revisions,
      pods: [],
    };
  }

  const history = (objects.controllerRevisions ?? []).filter((cr) => ownedBy(cr, uid));
  const revisions = history.map((cr) => ({ name: cr.metadata.name ?? '', ...(cr.metadata.uid !== undefined && { uid: cr.metadata.uid }), template: revisionTemplate(cr) }));
  // The revision of the current template, by its template: the workload's status names it only once its
  // controller has seen the current generation, which podops' own writes keep bumping.
  const current = history.find((cr) => sameTemplate(revisionTemplate(cr), template));
  const toRevision = current?.metadata.name;
  // A StatefulSet's pods carry the revision's name, a DaemonSet's its hash.
  const newHash = kind === 'StatefulSet' ? toRevision : current?.metadata.labels?.[CONTROLLER_REVISION_HASH_LABEL];
  const pods = (objects.pods ?? []).map((pod) => ({
    name: pod.metadata.name ?? '',
    isNew: newHash !== undefined && pod.metadata.labels?.[CONTROLLER_REVISION_HASH_LABEL] === newHash,
    available: podAvailable(pod, minReadySeconds, now),
    terminating: Boolean(pod.metadata.deletionTimestamp),
  }));
  const newAvailable = pods.filter((p) => p.isNew && p.available).length;
  const replicas = kind === 'StatefulSet' ? num(spec.replicas, 1) : num(status.desiredNumberScheduled);
  const reachable = reachableReplicas(kind, user, replicas);
  const oldLeft = pods.some((p) => !p.isNew && !p.terminating);
  // Every replica, not only those the user's partition lets through: the last point waits until they lower it.
  const complete = toRevision !== undefined && newAvailable >= replicas && !oldLeft;
  return {
    ...base,
    replicas,
    reachable,
    ...((stamp?.from ?? (kind === 'StatefulSet' && typeof status.currentRevision === 'string' ? status.currentRevision : undefined)) !== undefined && {
      fromRevision: stamp?.from ?? (status.currentRevision as string),
    }),
    ...(toRevision !== undefined && { toRevision }),
    revisionReady: toRevision !== undefined,
    newReplicas: 0,
    newAvailable,
    complete,
    revisions,
    pods,
  };
}
