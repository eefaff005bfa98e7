// GraceDelete (feature gate GraceDeleteWebhook): `kubectl delete pod` on a controlled pod with the
// service-ready gate is denied, and the pod is labelled `to-delete` instead, so it leaves traffic through a
// pod-delete lifecycle; the pod-deletion controller's own delete passes once that lifecycle allows it.
//
// Labelling is a write on the strength of a request anyone who reaches the webhook port can send. It is made
// only for the live pod the review names by uid (random, and known only to those who can read the pod), and
// whether that pod is controlled and gated is decided on the live pod, never on the review's copy. The live pod
// is the shared cache's (controlled pods, with this process's own writes), read from the API server when the
// cache does not hold it with that uid (a pod created a moment ago, or an uncontrolled one a forged review
// names). The resourceVersion of the review is not required to match: other writers (the rule controller's
// annotations, a cooperation controller) change a busy pod between the API server's read and ours, and a
// genuine delete would fail; the write is guarded by the version read, and read again live after a conflict.
//
// GraceDelete changes how a pod leaves, never how many: a delete by the pod's ReplicaSet controller (a
// scale-down) starts a lifecycle only while the pods already leaving do not cover what the scale-down asks;
// otherwise it is refused without a mark, and the ReplicaSet controller's retry finds the count met once the
// leaving pod is gone (src/lifecycle/scale-down.ts). A delete by a pod's StatefulSet controller marks it, and the
// pod-deletion controller brings it back should the StatefulSet stop wanting it gone. A user's delete always marks
// the pod; its lifecycle begins once the pod's PodDisruptionBudgets have room.
//
// The mark and the beginning of the pod-delete lifecycle are one write when the lifecycle may begin at once
// (src/cache/leaving.ts decides, as for the pod-deletion controller): each write of a pod wakes its ReplicaSet's
// controller, which then retries every delete it was refused.

import type { Pod } from '../api/kube.ts';
import { CACHES_NOT_SYNCED, cachesSynced, type ClusterCaches } from '../cache/cluster-cache.ts';
import type { LeavingDecisions } from '../cache/leaving.ts';
import { replicaSetOf, statefulSetOf, type WorkloadReads } from '../cache/workloads.ts';
import { writeCachedPod } from '../cache/write-through.ts';
import { GRACE_DELETE_MESSAGE, GRACE_DELETE_REQUESTED_BY_ANNOTATION, GRACE_DELETE_TIMESTAMP_ANNOTATION, GRACE_DELETE_WEBHOOK_NAME, REPLICASET_CONTROLLER_USERS, TO_DELETE_LABEL } from '../api/protocol.ts';
import { isConflict, unlessNotFound, type KubeClient } from '../kube/client.ts';
import type { Logger } from '../kube/log.ts';
import { PODS } from '../kube/resources.ts';
import { hasServiceReadyGate, isControlled, protectionFinalizers } from '../lifecycle/pod.ts';
import { deletionRequester, isWorkloadController, SHARED_CONTROLLER_MANAGER_USER } from '../lifecycle/scale-down.ts';
import type { Nanos } from '../lifecycle/time.ts';
import { allowOps, podDeleteAdapter } from '../sdk/operation.ts';
import { allowed, denied, type AdmissionRequest, type Verdict } from './admission.ts';

/** The review does not describe the pod as stored: a forged review, or one the pod has moved past. */
class NotTheLivePodError extends Error {}

export interface GraceDeleteOptions {
  client: KubeClient;
  caches: ClusterCaches;
  workloads: WorkloadReads;
  /** Shared with the pod-deletion controller. */
  leaving: LeavingDecisions;
  now: () => Nanos;
  logger?: Logger;
}

/** The pod as stored, when it has `uid`: the cache's copy, else read live (a cache that lacks it may be behind). */
async function livePod(client: KubeClient, caches: GraceDeleteOptions['caches'], namespace: string, name: string, uid: string | undefined): Promise<Pod | undefined> {
  const cached = caches.pods.get(namespace, name);
  if (cached && cached.metadata.uid === uid) return cached;
  const live = await unlessNotFound(client.get<Pod>(PODS, namespace, name));
  return live?.metadata.uid === uid ? live : undefined;
}

export function graceDeleteMessage(pod: Pod): string {
  const finalizers = protectionFinalizers(pod);
  return `failed to validate ${GRACE_DELETE_WEBHOOK_NAME}, ${GRACE_DELETE_MESSAGE}${finalizers.length > 0 ? ` with finalizers: [${finalizers.join(' ')}]` : ''}`;
}

export async function graceDelete(request: AdmissionRequest, options: GraceDeleteOptions): Promise<Verdict> {
  if (request.operation !== 'DELETE') return allowed();
  const reviewed = request.oldObject as Pod | undefined;
  // A delete the API server sends podops is of a controlled pod (the webhook's objectSelector): anything else is let be.
  if (!reviewed?.metadata || !isControlled(reviewed)) return allowed();
  const { client, caches, now, logger } = options;
  if (!(await cachesSynced(caches))) return denied(`failed to validate ${GRACE_DELETE_WEBHOOK_NAME}, ${CACHES_NOT_SYNCED}`);
  const namespace = request.namespace ?? reviewed.metadata.namespace ?? '';
  const name = request.name ?? reviewed.metadata.name ?? '';
  try {
    const pod = await livePod(client, caches, namespace, name, reviewed.metadata.uid);
    if (!pod) throw new NotTheLivePodError(`the pod under review (uid ${reviewed.metadata.uid ?? '<none>'}) is not the live pod: nothing done`);
    if (!isControlled(pod) || !hasServiceReadyGate(pod)) return allowed();
    const at = now();
    if (allowOps(podDeleteAdapter, 0, pod, at).allowed) return allowed();
    // Divergence from upstream: a dry-run delete is answered without labelling the pod.
    if (request.dryRun) return denied(graceDeleteMessage(pod));
    const requestedBy = await requesterOf(options.workloads, pod, request.userInfo?.username ?? '');
    const verdict = await markForDeletion(options, pod, at, requestedBy);
    return REPLICASET_CONTROLLER_USERS.includes(requestedBy) && replicaSetOf(pod) ? asLeavingAlready(verdict) : verdict;
  } catch (err) {
    if (err instanceof NotTheLivePodError) logger?.warn({ pod: `${namespace}/${name}`, uid: request.uid, reason: err.message }, 'GraceDelete: the reviewed pod is not the live pod; nothing written');
    return denied(`failed to validate ${GRACE_DELETE_WEBHOOK_NAME}, ${(err as Error).message}`);
  }
}

/**
 * The refusal as the ReplicaSet controller is told it: NotFound, the answer it takes for a pod already on its way
 * out (kube-controller-manager's manageReplicas stops waiting for that deletion and does not count it a failure).
 * A Forbidden would fail its sync, and it would retry every pod it deletes with a backoff that starts at 5 ms:
 * dozens of refused deletes per held pod in a large rollout, each a webhook call. The pod is marked and podops
 * deletes it once its lifecycle allows; its removal wakes the ReplicaSet controller. A refusal podops could not
 * act on (its caches starting, an error) stays Forbidden, so that controller retries it.
 */
const asLeavingAlready = (verdict: Verdict): Verdict => (verdict.allowed ? verdict : { ...verdict, status: { ...verdict.status, code: 404, reason: 'NotFound' } });

/** Who to record as asking (src/lifecycle/scale-down.ts): for kube-controller-manager's shared identity, whether the workload wants the pod gone decides. */
async function requesterOf(workloads: WorkloadReads, pod: Pod, username: string): Promise<string> {
  if (username !== SHARED_CONTROLLER_MANAGER_USER) return username;
  const replicaSet = replicaSetOf(pod);
  const statefulSet = statefulSetOf(pod);
  const wanted = replicaSet
    ? ((await workloads.scaleDown(pod.metadata.namespace ?? '', replicaSet))?.excess ?? 0) > 0
    : statefulSet !== undefined && workloads.statefulSetKeeps(pod, statefulSet) === undefined;
  return deletionRequester(username, wanted);
}

/** A user's delete takes over one a workload controller asked: the pod then leaves whatever the workload says. */
const recordedRequester = (current: string | undefined, requestedBy: string): string =>
  current === undefined || (isWorkloadController(current) && !isWorkloadController(requestedBy)) ? requestedBy : current;

/**
 * The pod with this request's mark, or the pod itself when it carries that mark already. Divergence from upstream,
 * which refreshes the mark's timestamp on a repeated delete at most every 5 s: a repeated delete writes nothing.
 * Every write of a pod wakes its ReplicaSet's controller, which then repeats its refused deletes of every pod it
 * waits for: refreshing marks would feed that loop for as long as pods are held, and nothing reads the refresh.
 */
function marked(live: Pod, at: Nanos, requestedBy: string): Pod {
  const requester = recordedRequester(live.metadata.annotations?.[GRACE_DELETE_REQUESTED_BY_ANNOTATION], requestedBy);
  if (live.metadata.labels?.[TO_DELETE_LABEL] !== undefined && requester === live.metadata.annotations?.[GRACE_DELETE_REQUESTED_BY_ANNOTATION]) return live;
  const labels = { ...live.metadata.labels };
  labels[TO_DELETE_LABEL] ??= at.toString();
  const annotations = { ...live.metadata.annotations, [GRACE_DELETE_TIMESTAMP_ANNOTATION]: at.toString(), [GRACE_DELETE_REQUESTED_BY_ANNOTATION]: requester };
  return { ...live, metadata: { ...live.metadata, labels, annotations } };
}

/** Marks the pod (and begins its lifecycle when it may), or refuses without a mark a scale-down it is not needed for. */
async function markForDeletion({ client, caches, leaving }: GraceDeleteOptions, read: Pod, at: Nanos, requestedBy: string): Promise<Verdict> {
  const { namespace = '', name = '' } = read.metadata;
  const refusal = denied(graceDeleteMessage(read));
  for (let attempt = 0, live = read; ; attempt++) {
    const mark = marked(live, at, requestedBy);
    const newScaleDownPod = REPLICASET_CONTROLLER_USERS.includes(requestedBy) && live.metadata.labels?.[TO_DELETE_LABEL] === undefined;
    try {
      return await leaving.decide(mark, at, async (pod, decision) => {
        if ('kept' in decision && newScaleDownPod) return denied(`${graceDeleteMessage(live)}; ${decision.kept}: ${name} stays`);
        await writeCachedPod(client, caches.pods, live, decision.begin ? decision.begun : pod);
        return 'waitFor' in decision ? denied(`${graceDeleteMessage(live)}; it leaves once ${decision.waitFor.replace('needs', 'has room: it needs')}`) : refusal;
      });
    } catch (err) {
      if (!isConflict(err) || attempt >= 4) throw err;
    }
    // The cache was behind, or another writer was first: the write after a conflict reads the pod live.
    const fresh = await unlessNotFound(client.get<Pod>(PODS, namespace, name));
    if (!fresh || fresh.metadata.uid !== read.metadata.uid) throw new NotTheLivePodError(`pod ${namespace}/${name} is gone: nothing done`);
    live = fresh;
  }
}
