// Graceful evictions: a validating webhook on `pods/eviction` (CREATE). An eviction of a controlled pod with
// the service-ready gate is answered 429 TooManyRequests, as a PodDisruptionBudget answers (kubectl drain and
// the cluster autoscaler retry), and the pod is marked `to-evict`; the pod-eviction controller runs its
// `pod-eviction` lifecycle, and once that allows the operation, the next retry is let through and the API
// server evicts as usual (its own PodDisruptionBudget check still applies).
//
// The review names the pod, not its uid, so a forged one can mark any pod. What a mark can do is bounded: the
// pod leaves service only within its budgets, comes back once nobody retries the eviction, and is never
// deleted by podops (only the API server's eviction deletes it). Client certificates close the gap
// (docs/operations.md, Security).

import type { Pod } from '../api/kube.ts';
import { EVICTION_DEFERRED_MESSAGE, POD_EVICTION_LIFECYCLE_ID } from '../api/protocol.ts';
import { isConflict, isNotFound, type KubeClient } from '../kube/client.ts';
import { PODS } from '../kube/resources.ts';
import { explainPod } from '../lifecycle/explain.ts';
import { hasServiceReadyGate, isControlled, isDeleting } from '../lifecycle/pod.ts';
import { markEvictionRequest } from '../lifecycle/eviction.ts';
import { NANOS_PER_SECOND, type Nanos } from '../lifecycle/time.ts';
import { allowOps, podEvictionAdapter } from '../sdk/operation.ts';
import { writePod } from '../sdk/write-pod.ts';
import { allowed, type AdmissionRequest, type Verdict } from './admission.ts';

/** A retried eviction refreshes its request time at most this often. */
const REFRESH_INTERVAL = 5n * NANOS_PER_SECOND;

export interface GracefulEvictionOptions {
  client: KubeClient;
  now: () => Nanos;
}

/** Where the pod's eviction lifecycle is, for the refusal kubectl prints on each retry. */
function progress(pod: Pod): string {
  const lifecycle = explainPod(pod).lifecycles.find((l) => l.id === POD_EVICTION_LIFECYCLE_ID);
  if (!lifecycle) return `lifecycle ${POD_EVICTION_LIFECYCLE_ID} not begun yet (it begins as soon as every PodDisruptionBudget of the pod has room for it)`;
  return `lifecycle ${POD_EVICTION_LIFECYCLE_ID} in ${lifecycle.phase}${lifecycle.waitingFor.length > 0 ? `, waiting for ${lifecycle.waitingFor.join('; ')}` : ''}`;
}

const tooManyRequests = (message: string): Verdict => ({ allowed: false, status: { code: 429, reason: 'TooManyRequests', message } });

export async function admitEviction(request: AdmissionRequest, { client, now }: GracefulEvictionOptions): Promise<Verdict> {
  if (request.operation !== 'CREATE' || request.subResource !== 'eviction' || !request.name || !request.namespace) return allowed();
  let pod: Pod;
  try {
    pod = await client.get<Pod>(PODS, request.namespace, request.name);
  } catch (err) {
    // The API server answers a missing pod itself.
    if (isNotFound(err)) return allowed();
    throw err;
  }
  if (!isControlled(pod) || !hasServiceReadyGate(pod) || isDeleting(pod)) return allowed();
  const at = now();
  if (allowOps(podEvictionAdapter, 0, pod, at).allowed) return allowed();
  const waiting = `${EVICTION_DEFERRED_MESSAGE}: ${progress(pod)}; retry`;
  // kubectl drain --dry-run=server sets the dry run in the Eviction's deleteOptions, not on the request.
  const deleteDryRun = (request.object as { deleteOptions?: { dryRun?: unknown } } | undefined)?.deleteOptions?.dryRun;
  if (request.dryRun || (Array.isArray(deleteDryRun) && deleteDryRun.length > 0)) return tooManyRequests(waiting);
  await markForEviction(client, pod, at);
  return tooManyRequests(waiting);
}

/** Records the request on the pod, as a patch (podops may patch pods, not update them), retried on a conflict. */
async function markForEviction(client: KubeClient, read: Pod, at: Nanos): Promise<void> {
  for (let attempt = 0, pod = read; ; attempt++) {
    const marked = markEvictionRequest(pod, at, REFRESH_INTERVAL);
    if (!marked) return;
    try {
      await writePod(client, pod, marked);
      return;
    } catch (err) {
      if (!isConflict(err) || attempt >= 4) throw err;
      pod = await client.get<Pod>(PODS, read.metadata.namespace ?? '', read.metadata.name ?? '');
    }
  }
}
