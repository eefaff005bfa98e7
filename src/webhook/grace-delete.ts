// GraceDelete (feature gate GraceDeleteWebhook): `kubectl delete pod` on a controlled pod with the
// service-ready gate is denied, and the pod is labelled `to-delete` instead, so it leaves traffic through a
// pod-delete lifecycle; the pod-deletion controller's own delete passes once that lifecycle allows it.
//
// Labelling is a write on the strength of a request anyone who reaches the webhook port can send. It is made
// only for the live pod the review names by uid: random, and known only to those who can read the pod. The
// resourceVersion is not required to match: other writers (the rule controller's annotations, a cooperation
// controller) change a busy pod between the API server's read and ours, and a genuine delete would fail.

import type { Pod } from '../api/kube.ts';
import { GRACE_DELETE_MESSAGE, GRACE_DELETE_TIMESTAMP_ANNOTATION, GRACE_DELETE_WEBHOOK_NAME, TO_DELETE_LABEL } from '../api/protocol.ts';
import { isConflict, isNotFound, type KubeClient } from '../kube/client.ts';
import type { Logger } from '../kube/log.ts';
import { PODS } from '../kube/resources.ts';
import { hasServiceReadyGate, isControlled, protectionFinalizers } from '../lifecycle/pod.ts';
import { NANOS_PER_SECOND, parseNanos, type Nanos } from '../lifecycle/time.ts';
import { allowOps, podDeleteAdapter } from '../sdk/operation.ts';
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
    await markForDeletion(client, pod, at);
  } catch (err) {
    if (err instanceof NotTheLivePodError) {
      logger?.warn({ pod: `${pod.metadata.namespace}/${pod.metadata.name}`, uid: request.uid, reason: err.message }, 'GraceDelete: the reviewed pod is not the live pod; nothing written');
    }
    return denied(`failed to validate ${GRACE_DELETE_WEBHOOK_NAME}, ${(err as Error).message}`);
  }
  return denied(graceDeleteMessage(pod));
}

async function markForDeletion(client: KubeClient, reviewed: Pod, at: Nanos): Promise<void> {
  const { namespace = '', name = '' } = reviewed.metadata;
  for (let attempt = 0; ; attempt++) {
    const live = await getLivePod(client, namespace, name);
    if (live.metadata.uid !== reviewed.metadata.uid) throw new NotTheLivePodError(`the pod under review (uid ${reviewed.metadata.uid ?? '<none>'}) is not the live pod: nothing done`);
    const last = parseNanos(live.metadata.annotations?.[GRACE_DELETE_TIMESTAMP_ANNOTATION]);
    if (last !== undefined && at - last < RELABEL_INTERVAL) return;
    const labels = { ...live.metadata.labels };
    labels[TO_DELETE_LABEL] ??= at.toString();
    const marked: Pod = { ...live, metadata: { ...live.metadata, labels, annotations: { ...live.metadata.annotations, [GRACE_DELETE_TIMESTAMP_ANNOTATION]: at.toString() } } };
    try {
      await writePod(client, live, marked);
      return;
    } catch (err) {
      if (!isConflict(err) || attempt >= 4) throw err;
    }
  }
}
