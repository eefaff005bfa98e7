// Rollout admission: the workload webhook (a driver of src/rollout/admission.ts), and defaulting and validation
// of RolloutLifecycles. The workload webhook is only called for workloads podops labelled for a
// RolloutLifecycle (objectSelector), so a workload without one never depends on podops being up.

import { randomBytes } from 'node:crypto';
import { rfc3339 } from '../api/kube.ts';
import type { KubeClient } from '../kube/client.ts';
import type { Informer } from '../kube/informer.ts';
import { CONTROLLER_REVISIONS, DAEMONSETS, DEPLOYMENTS, JOBS, REPLICASETS, STATEFULSETS } from '../kube/resources.ts';
import { RL_FIELD_MANAGER, RL_USER_SETTINGS_ANNOTATION, RL_WORKLOAD_LABEL, WORKLOAD_KINDS, type LifecycleHook, type RolloutLifecycle, type WorkloadKind } from '../api/rolloutlifecycle.ts';
import { admitWorkloadUpdate } from '../rollout/admission.ts';
import { targetsSame } from '../rollout/claim.ts';
import { dryRunHookJob } from '../rollout/jobs.ts';
import { observeRollout, type ControllerRevision, type ReplicaSetLike, type Revision } from '../rollout/observe.ts';
import { defaultRolloutLifecycle, validateRolloutLifecycle, validateRolloutLifecycleUpdate } from '../rollout/validate.ts';
import { sameTemplate, selectorOf, templateOf, type Workload } from '../rollout/workload.ts';
import { labelSelectorString } from '../api/selector.ts';
import { validationMessage } from '../transition/validate.ts';
import { refuseUnlessAllowed } from './access-review.ts';
import { allowed, denied, errored, type AdmissionRequest, type Verdict } from './admission.ts';

export interface RolloutAdmissionOptions {
  client: KubeClient;
  rolloutLifecycles: Informer<RolloutLifecycle>;
  now: () => Date;
}

/** The RolloutLifecycle a workload is labelled for, when it targets that workload and has hooks. */
function hookedBy(rolloutLifecycles: Informer<RolloutLifecycle>, kind: WorkloadKind, workload: Workload): RolloutLifecycle | undefined {
  const name = workload.metadata.labels?.[RL_WORKLOAD_LABEL];
  const rl = name === undefined ? undefined : rolloutLifecycles.get(workload.metadata.namespace, name);
  const target = rl?.spec?.targetRef;
  if (!rl || rl.metadata.deletionTimestamp || target?.kind !== kind || target.name !== workload.metadata.name) return undefined;
  return (rl.spec?.hooks ?? []).length > 0 ? rl : undefined;
}

/** The workload's ReplicaSets or ControllerRevisions, as they are before this write is stored. */
export async function listRevisions(client: KubeClient, kind: WorkloadKind, workload: Workload): Promise<Revision[]> {
  const selector = labelSelectorString(selectorOf(workload));
  const namespace = workload.metadata.namespace;
  if (kind === 'Deployment') {
    const sets = await client.list<ReplicaSetLike>(REPLICASETS, { namespace, labelSelector: selector });
    return observeRollout({ kind, workload, replicaSets: sets.items, jobs: [], now: 0 }).revisions;
  }
  const history = await client.list<ControllerRevision>(CONTROLLER_REVISIONS, { namespace, labelSelector: selector });
  return observeRollout({ kind, workload, controllerRevisions: history.items, jobs: [], now: 0 }).revisions;
}

/** Well inside the webhook's timeout (10 s). */
const CACHE_WAIT_MS = 3000;

/** Whether the cache has synced, waiting briefly for it (a starting podops); if not, the request is refused and retried. */
async function synced(rolloutLifecycles: Informer<RolloutLifecycle>): Promise<boolean> {
  if (!rolloutLifecycles.hasSynced()) await rolloutLifecycles.waitForSync(AbortSignal.timeout(CACHE_WAIT_MS));
  return rolloutLifecycles.hasSynced();
}

const notSynced = (what: string): string => `podops is starting: its RolloutLifecycle cache is not synced yet; retry ${what}`;

/** UPDATE of a Deployment, StatefulSet or DaemonSet: freeze a hooked rollout in the same write. */
export async function admitWorkload(request: AdmissionRequest, { client, rolloutLifecycles, now }: RolloutAdmissionOptions): Promise<Verdict> {
  const kind = request.kind.kind as WorkloadKind;
  if (request.operation !== 'UPDATE' || !WORKLOAD_KINDS.includes(kind)) return allowed();
  const object = request.object as Workload | undefined;
  const oldObject = request.oldObject as Workload | undefined;
  if (!object?.metadata || !oldObject?.metadata) return errored(400, `UPDATE of a ${kind} without object and oldObject`);
  const byPodops = (request.options as { fieldManager?: string } | undefined)?.fieldManager === RL_FIELD_MANAGER;
  const held = oldObject.metadata.annotations?.[RL_USER_SETTINGS_ANNOTATION] !== undefined;
  const templateChanged = !sameTemplate(templateOf(oldObject) ?? {}, templateOf(object) ?? {});
  if (byPodops || (!held && !templateChanged)) return allowed();
  // The workload is labelled for a RolloutLifecycle: answering from a cache still empty would let a hooked
  // rollout through un-held.
  if (!(await synced(rolloutLifecycles))) return errored(503, notSynced(`the update of ${kind} ${object.metadata.name}`));
  const hooked = hookedBy(rolloutLifecycles, kind, object) !== undefined;
  if (!held && !hooked) return allowed();
  // Only a new template needs the revisions (is it an earlier one's?); they are read before this write lands.
  const revisions = templateChanged ? await listRevisions(client, kind, oldObject) : [];
  return allowed(admitWorkloadUpdate({ kind, oldObject, object, byPodops, hooked, revisions, now: rfc3339(now()), rolloutId: randomBytes(5).toString('hex') }));
}

export function defaultRolloutLifecycleRequest(request: AdmissionRequest): Verdict {
  if (request.operation !== 'CREATE' && request.operation !== 'UPDATE') return allowed();
  const rl = request.object as RolloutLifecycle | undefined;
  if (!rl?.metadata) return errored(400, `${request.operation} of a RolloutLifecycle without an object`);
  return allowed(defaultRolloutLifecycle(rl));
}

/** The workloads' resources, for the author's right to the target. */
const WORKLOAD_RESOURCES: Record<WorkloadKind, string> = { Deployment: DEPLOYMENTS.resource, StatefulSet: STATEFULSETS.resource, DaemonSet: DAEMONSETS.resource };

/** The hooks whose Job differs from any the previous version had under that name: new ones and changed jobSpecs. */
function hooksWithNewJobs(hooks: readonly LifecycleHook[], previous: readonly LifecycleHook[]): LifecycleHook[] {
  const before = new Map(previous.map((hook) => [hook.name, JSON.stringify(hook.jobSpec)]));
  return hooks.filter((hook) => before.get(hook.name) !== JSON.stringify(hook.jobSpec));
}

/**
 * Validation: the rules of src/rollout, one RolloutLifecycle per workload, and each new hook's jobSpec as the
 * API server judges a Job made of it (a dry-run create, so the answer is the server's own words). podops acts
 * on the object in its own name, so its author must hold the rights it lends: to update (or patch) the target
 * workload, which podops labels, holds and releases; and, for new hooks, to create Jobs in the namespace.
 * The schema's bounds were checked before (requireShape), so the requests to the API server are at most two
 * or three access reviews and one dry run per hook (32), and on an update only for the hooks whose Job changed.
 */
export async function validateRolloutLifecycleRequest(request: AdmissionRequest, { client, rolloutLifecycles }: Omit<RolloutAdmissionOptions, 'now'>): Promise<Verdict> {
  if (request.operation !== 'CREATE' && request.operation !== 'UPDATE') return allowed();
  const rl = request.object as RolloutLifecycle | undefined;
  if (!rl?.metadata) return errored(400, `${request.operation} of a RolloutLifecycle without an object`);
  const previous = request.operation === 'UPDATE' ? (request.oldObject as RolloutLifecycle | undefined) : undefined;
  const errors = [...validateRolloutLifecycle(rl), ...(previous?.metadata ? validateRolloutLifecycleUpdate(rl, previous) : [])];
  // One RolloutLifecycle per workload is checked on CREATE against the cache, which must hold every other one.
  // Not on UPDATE: targetRef cannot change, and when two were created at once (src/rollout/claim.ts) both must
  // stay writable, for the controller's finalizer and for their deletion.
  const target = rl.spec?.targetRef;
  if (request.operation === 'CREATE') {
    if (!(await synced(rolloutLifecycles))) return errored(503, notSynced(`the ${request.operation} of RolloutLifecycle ${rl.metadata.name}`));
    const other = rolloutLifecycles.list(rl.metadata.namespace).find((o) => o.metadata.name !== rl.metadata.name && !o.metadata.deletionTimestamp && targetsSame(o, rl));
    if (other) errors.push(`spec.targetRef: Invalid value: "${target?.kind}/${target?.name}": RolloutLifecycle ${other.metadata.name} already targets it (at most one per workload)`);
  }
  if (errors.length > 0) return denied(validationMessage(errors));
  const hooks = rl.spec?.hooks ?? [];
  if (previous && JSON.stringify(previous.spec?.hooks) === JSON.stringify(rl.spec?.hooks)) return allowed();
  const namespace = rl.metadata.namespace ?? '';
  const kind = target?.kind as WorkloadKind;
  const workload = { group: 'apps', resource: WORKLOAD_RESOURCES[kind], namespace, name: target?.name ?? '' };
  const refusal = await refuseUnlessAllowed(client, request.userInfo, ['update', 'patch'], workload, 'spec.targetRef', "podops labels, holds and releases the workload's rollouts in its own name");
  if (refusal) return refusal;
  const fresh = hooksWithNewJobs(hooks, previous?.spec?.hooks ?? []);
  if (fresh.length === 0) return allowed();
  const jobs = { group: 'batch', resource: 'jobs', namespace };
  const jobRefusal = await refuseUnlessAllowed(client, request.userInfo, ['create'], jobs, 'spec.hooks', 'podops runs the hooks as Jobs in its own name');
  if (jobRefusal) return jobRefusal;
  for (const hook of fresh) {
    try {
      // The Job podops would create for the hook, as a dry run.
      await client.create(JOBS, dryRunHookJob(rl, hook), { dryRun: true });
    } catch (err) {
      const message = (err as { status?: { message?: string } }).status?.message ?? (err as Error).message;
      return denied(`spec.hooks[${hooks.indexOf(hook)}].jobSpec: Invalid value: a Job of hook ${JSON.stringify(hook.name)} is refused by the API server: ${message}`);
    }
  }
  return allowed();
}
