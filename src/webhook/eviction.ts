// Graceful evictions: a validating webhook on `pods/eviction` (CREATE). An eviction of a controlled pod with
// the service-ready gate is answered 429 TooManyRequests, as a PodDisruptionBudget answers (kubectl drain and
// the cluster autoscaler retry), and the pod is marked `to-evict`; the pod-eviction controller runs its
// `pod-eviction` lifecycle, and once that allows the operation, the next retry is let through and the API
// server evicts as usual (its own PodDisruptionBudget check still applies).
//
// The review names the pod, not its uid: anyone who can reach the webhook port could forge one for any pod.
// So a mark is written only for a review that provably came from the API server (the webhook server verifies
// its client certificate) or whose pod is on a node being emptied (cordoned or tainted for removal, what
// drains do first and what a forger cannot do). Any other eviction of a controlled pod is let through as
// without podops, with a warning saying why, and nothing is written. A forger can still resend a request for a
// pod on a node being drained: once its lifecycle has allowed an eviction that never came for a while, the
// pod-eviction controller brings it back and pauses the deferral of its evictions (src/lifecycle/eviction.ts),
// and requests nobody vouches for are answered 429, with nothing written, until the pause ends.
//
// The pod and its node come from the shared caches (an eviction of a pod podops does not cache is not one of a
// controlled pod). A node the cache shows schedulable is read again live: a drain cordons it just before it
// evicts, and the cache may not have seen the cordon yet.

import type { Node, Pod } from '../api/kube.ts';
import { CACHES_NOT_SYNCED, cachesSynced, type ClusterCaches } from '../cache/cluster-cache.ts';
import { writeCachedPod } from '../cache/write-through.ts';
import { EVICTION_DEFERRED_MESSAGE, EVICTION_NOT_DEFERRED_WARNING, POD_EVICTION_LIFECYCLE_ID } from '../api/protocol.ts';
import { isConflict, unlessNotFound, type KubeClient } from '../kube/client.ts';
import type { Informer } from '../kube/informer.ts';
import { NODES, PODS } from '../kube/resources.ts';
import { explainPod } from '../lifecycle/explain.ts';
import { hasServiceReadyGate, isControlled, isDeleting } from '../lifecycle/pod.ts';
import { evictionPaused, evictionVouchedFor, markEvictionRequest, nodeBeingEmptied } from '../lifecycle/eviction.ts';
import { NANOS_PER_MILLI, NANOS_PER_SECOND, type Nanos } from '../lifecycle/time.ts';
import { allowOps, isDuringOps, podEvictionAdapter } from '../sdk/operation.ts';
import { allowed, type AdmissionRequest, type Verdict } from './admission.ts';

/** A retried eviction refreshes its request time at most this often. */
const REFRESH_INTERVAL = 5n * NANOS_PER_SECOND;

export interface GracefulEvictionOptions {
  client: KubeClient;
  caches: ClusterCaches;
  now: () => Nanos;
  /** The webhook server verifies the API server's client certificate: every review came from it. */
  apiServerAuthenticated: boolean;
}

const NOT_DEFERRED = `${EVICTION_NOT_DEFERRED_WARNING}: the pod's node is neither cordoned nor tainted for removal, and without API-server client certificates podops cannot tell this request from a forged one; the pod is evicted as without podops`;

/** The pod's node, undefined when it has none or it is gone; read live when the cache shows it not being emptied. */
async function readNode(client: KubeClient, nodes: Informer<Node>, pod: Pod): Promise<Node | undefined> {
  const nodeName = pod.spec?.nodeName;
  if (typeof nodeName !== 'string' || nodeName === '') return undefined;
  const cached = nodes.get(undefined, nodeName);
  if (cached && nodeBeingEmptied(cached) !== undefined) return cached;
  return unlessNotFound(client.get<Node>(NODES, undefined, nodeName));
}

/**
 * Where the pod's eviction lifecycle is, for the refusal kubectl prints on each retry. Each wait is a phrase of
 * its own ("waiting for …", "blocked by …"), so it follows the phase as it is.
 */
export function evictionProgress(pod: Pod): string {
  const lifecycle = explainPod(pod).lifecycles.find((l) => l.id === POD_EVICTION_LIFECYCLE_ID);
  if (!lifecycle) return `lifecycle ${POD_EVICTION_LIFECYCLE_ID} not begun yet (it begins once every PodDisruptionBudget of the pod, if it has any, has room for it)`;
  const phase = `lifecycle ${POD_EVICTION_LIFECYCLE_ID} in ${lifecycle.phase}`;
  return lifecycle.waitingFor.length > 0 ? `${phase}, ${lifecycle.waitingFor.join('; ')}` : phase;
}

const tooManyRequests = (message: string): Verdict => ({ allowed: false, status: { code: 429, reason: 'TooManyRequests', message } });

export async function admitEviction(request: AdmissionRequest, { client, caches, now, apiServerAuthenticated }: GracefulEvictionOptions): Promise<Verdict> {
  if (request.operation !== 'CREATE' || request.subResource !== 'eviction' || !request.name || !request.namespace) return allowed();
  if (!(await cachesSynced(caches))) return tooManyRequests(`${EVICTION_DEFERRED_MESSAGE}: ${CACHES_NOT_SYNCED}`);
  const pod = caches.pods.get(request.namespace, request.name);
  // The API server answers a missing pod itself.
  if (!pod || !isControlled(pod) || !hasServiceReadyGate(pod) || isDeleting(pod)) return allowed();
  const at = now();
  if (allowOps(podEvictionAdapter, 0, pod, at).allowed) return allowed();
  const node = apiServerAuthenticated ? undefined : await readNode(client, caches.nodes, pod);
  if (evictionVouchedFor(apiServerAuthenticated, node) === undefined) return allowed(undefined, [NOT_DEFERRED]);
  const paused = apiServerAuthenticated ? undefined : evictionPaused(pod, at);
  if (paused !== undefined && !isDuringOps(podEvictionAdapter, pod)) {
    return tooManyRequests(`${EVICTION_DEFERRED_MESSAGE}: its last eviction lifecycle allowed an eviction that did not come, so podops pauses deferring its evictions for ${Math.ceil(Number(paused / NANOS_PER_MILLI) / 1000)} s (see the threat model); retry`);
  }
  const waiting = `${EVICTION_DEFERRED_MESSAGE}: ${evictionProgress(pod)}; retry`;
  // kubectl drain --dry-run=server sets the dry run in the Eviction's deleteOptions, not on the request.
  const deleteDryRun = (request.object as { deleteOptions?: { dryRun?: unknown } } | undefined)?.deleteOptions?.dryRun;
  if (request.dryRun || (Array.isArray(deleteDryRun) && deleteDryRun.length > 0)) return tooManyRequests(waiting);
  await markForEviction(client, caches.pods, pod, at);
  return tooManyRequests(waiting);
}

/** Records the request on the pod, as a patch (podops may patch pods, not update them), read again live after a conflict. */
async function markForEviction(client: KubeClient, pods: Informer<Pod>, read: Pod, at: Nanos): Promise<void> {
  for (let attempt = 0, pod = read; ; attempt++) {
    const marked = markEvictionRequest(pod, at, REFRESH_INTERVAL);
    if (!marked) return;
    try {
      await writeCachedPod(client, pods, pod, marked);
      return;
    } catch (err) {
      if (!isConflict(err) || attempt >= 4) throw err;
      pod = await client.get<Pod>(PODS, read.metadata.namespace ?? '', read.metadata.name ?? '');
    }
  }
}
