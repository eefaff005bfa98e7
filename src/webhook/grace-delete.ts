// GraceDelete (feature gate GraceDeleteWebhook): `kubectl delete pod` on a controlled pod with the
// service-ready gate is denied, and the pod is labelled `to-delete` instead, so it leaves traffic through a
// pod-delete lifecycle; the pod-deletion controller's own delete passes once that lifecycle allows it.
//
// Labelling is a write on the strength of a request anyone who reaches the webhook port can send. It is made
// only for the live pod the review names by uid: random, and known only to those who can read the pod. The
// resourceVersion is not required to match: other writers (the rule controller's annotations, a cooperation
// controller) change a busy pod between the API server's read and ours, and a genuine delete would fail.
//
// GraceDelete changes how a pod leaves, never how many: a delete by the pod's ReplicaSet controller (a
// scale-down) starts a lifecycle only while the pods already leaving do not cover what the scale-down asks;
// otherwise it is refused without a mark, and the ReplicaSet controller's retry finds the count met once the
// leaving pod is gone (src/lifecycle/scale-down.ts). A delete by a pod's StatefulSet controller marks it, and the
// pod-deletion controller brings it back should the StatefulSet stop wanting it gone. A user's delete always marks
// the pod.

import type { Pod } from '../api/kube.ts';
import { GRACE_DELETE_MESSAGE, GRACE_DELETE_REQUESTED_BY_ANNOTATION, GRACE_DELETE_TIMESTAMP_ANNOTATION, GRACE_DELETE_WEBHOOK_NAME, REPLICASET_CONTROLLER_USERS, TO_DELETE_LABEL } from '../api/protocol.ts';
import { isConflict, isNotFound, type KubeClient } from '../kube/client.ts';
import type { Logger } from '../kube/log.ts';
import { PODS } from '../kube/resources.ts';
import { hasServiceReadyGate, isControlled, protectionFinalizers } from '../lifecycle/pod.ts';
import { deletionRequester, isWorkloadController, scaleDownWantsMore, SHARED_CONTROLLER_MANAGER_USER } from '../lifecycle/scale-down.ts';
import { NANOS_PER_SECOND, parseNanos, type Nanos } from '../lifecycle/time.ts';
import { allowOps, podDeleteAdapter } from '../sdk/operation.ts';
import { readScaleDown, replicaSetOf } from '../sdk/replica-set-scale-down.ts';
import { readStatefulSetKeeps, statefulSetOf } from '../sdk/stateful-set-deletion.ts';
import { writePod } from '../sdk/write-pod.ts';
import { allowed, denied, type AdmissionRequest, type Verdict } from './admission.ts';

/** Repeated deletes re-label a pod at most this often (upstream PR #197). */
const RELABEL_INTERVAL = 5n * NANOS_PER_SECOND;

/** The review does not describe the pod as stored: a forged review, or one the pod has moved past. */
class NotTheLivePodError extends Error {}

export interface GraceDeleteOptions {
  client: KubeClient;
  now: () => Nanos;
  logger?: Logger;
}

async function getLivePod(client: KubeClient, namespace: string, name: string): Promise<Pod> {
  try {
    return await client.get<Pod>(PODS, namespace, name);
  } catch (err) {
    if (isNotFound(err)) throw new NotTheLivePodError(`pod ${namespace}/${name} does not exist: nothing done`);
    throw err;
  }
}

export function graceDeleteMessage(pod: Pod): string {
  const finalizers = protectionFinalizers(pod);
  return `failed to validate ${GRACE_DELETE_WEBHOOK_NAME}, ${GRACE_DELETE_MESSAGE}${finalizers.length > 0 ? ` with finalizers: [${finalizers.join(' ')}]` : ''}`;
}

export async function graceDelete(request: AdmissionRequest, { client, now, logger }: GraceDeleteOptions): Promise<Verdict> {
  if (request.operation !== 'DELETE') return allowed();
  const pod = request.oldObject as Pod | undefined;
  if (!pod?.metadata || !isControlled(pod) || !hasServiceReadyGate(pod)) return allowed();
  const at = now();
  if (allowOps(podDeleteAdapter, 0, pod, at).allowed) return allowed();
  // Divergence from upstream: a dry-run delete is answered without labelling the pod.
  if (request.dryRun) return denied(graceDeleteMessage(pod));
  try {
    const requestedBy = await requesterOf(client, pod, request.userInfo?.username ?? '');
    const covered = await scaleDownCovered(client, pod, requestedBy);
    if (covered) return denied(`${graceDeleteMessage(pod)}; ${covered}`);
    await markForDeletion(client, pod, at, requestedBy);
  } catch (err) {
    if (err instanceof NotTheLivePodError) {
      logger?.warn({ pod: `${pod.metadata.namespace}/${pod.metadata.name}`, uid: request.uid, reason: err.message }, 'GraceDelete: the reviewed pod is not the live pod; nothing written');
    }
    return denied(`failed to validate ${GRACE_DELETE_WEBHOOK_NAME}, ${(err as Error).message}`);
  }
  return denied(graceDeleteMessage(pod));
}

/** Who to record as asking (src/lifecycle/scale-down.ts): for kube-controller-manager's shared identity, whether the workload wants the pod gone decides. */
async function requesterOf(client: KubeClient, pod: Pod, username: string): Promise<string> {
  if (username !== SHARED_CONTROLLER_MANAGER_USER) return username;
  const replicaSet = replicaSetOf(pod);
  const statefulSet = statefulSetOf(pod);
  const namespace = pod.metadata.namespace ?? '';
  const wanted = replicaSet
    ? ((await readScaleDown(client, namespace, replicaSet))?.excess ?? 0) > 0
    : statefulSet !== undefined && (await readStatefulSetKeeps(client, pod, statefulSet)) === undefined;
  return deletionRequester(username, wanted);
}

/**
 * For a delete by the pod's ReplicaSet controller of a pod not leaving yet: why the scale-down needs no other
 * pod to leave, or undefined when it does (or the delete is not a scale-down's).
 */
async function scaleDownCovered(client: KubeClient, pod: Pod, requestedBy: string): Promise<string | undefined> {
  const owner = replicaSetOf(pod);
  if (!owner || !REPLICASET_CONTROLLER_USERS.includes(requestedBy) || pod.metadata.labels?.[TO_DELETE_LABEL] !== undefined) return undefined;
  const scaleDown = await readScaleDown(client, pod.metadata.namespace ?? '', owner);
  if (!scaleDown || scaleDownWantsMore(scaleDown)) return undefined;
  const leaving = scaleDown.leaving.map((p) => p.metadata.name).join(', ');
  return `ReplicaSet ${owner.name} has ${scaleDown.excess} pod(s) beyond its ${scaleDown.replicas} replicas and ${leaving || 'no pod'} already leaving: ${pod.metadata.name} stays`;
}

/** A user's delete takes over one a workload controller asked: the pod then leaves whatever the workload says. */
const recordedRequester = (current: string | undefined, requestedBy: string): string =>
  current === undefined || (isWorkloadController(current) && !isWorkloadController(requestedBy)) ? requestedBy : current;

async function markForDeletion(client: KubeClient, reviewed: Pod, at: Nanos, requestedBy: string): Promise<void> {
  const { namespace = '', name = '' } = reviewed.metadata;
  for (let attempt = 0; ; attempt++) {
    const live = await getLivePod(client, namespace, name);
    if (live.metadata.uid !== reviewed.metadata.uid) throw new NotTheLivePodError(`the pod under review (uid ${reviewed.metadata.uid ?? '<none>'}) is not the live pod: nothing done`);
    const requester = recordedRequester(live.metadata.annotations?.[GRACE_DELETE_REQUESTED_BY_ANNOTATION], requestedBy);
    const last = parseNanos(live.metadata.annotations?.[GRACE_DELETE_TIMESTAMP_ANNOTATION]);
    if (last !== undefined && at - last < RELABEL_INTERVAL && requester === live.metadata.annotations?.[GRACE_DELETE_REQUESTED_BY_ANNOTATION]) return;
    const labels = { ...live.metadata.labels };
    labels[TO_DELETE_LABEL] ??= at.toString();
    const annotations = { ...live.metadata.annotations, [GRACE_DELETE_TIMESTAMP_ANNOTATION]: at.toString(), [GRACE_DELETE_REQUESTED_BY_ANNOTATION]: requester };
    const marked: Pod = { ...live, metadata: { ...live.metadata, labels, annotations } };
    try {
      await writePod(client, live, marked);
      return;
    } catch (err) {
      if (!isConflict(err) || attempt >= 4) throw err;
    }
  }
}
