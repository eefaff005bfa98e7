// The client-bound half of the SDK: apply a pure transform to a pod and write it with optimistic
// concurrency, retrying on 409 Conflict from a fresh read (client-go's retry.RetryOnConflict).

import type { Pod } from '../api/kube.ts';
import type { PodChange } from './pod-change.ts';

/** The few calls the SDK needs; adapt any client (the podops kube client, @kubernetes/client-node, a fake). */
export interface PodWriter {
  get(namespace: string, name: string): Promise<Pod>;
  /** Replaces the pod; must send `metadata.resourceVersion` so a stale write fails with 409. */
  update(pod: Pod): Promise<Pod>;
  isConflict(err: unknown): boolean;
}

export interface RetryOptions {
  /** Attempts in all (client-go DefaultRetry: 5). */
  steps: number;
  /** Pause between attempts, with 10% jitter (client-go DefaultRetry: 10 ms). */
  delayMs: number;
}

export const DEFAULT_RETRY: RetryOptions = { steps: 5, delayMs: 10 };

export interface WriteResult {
  pod: Pod;
  updated: boolean;
}

/**
 * Applies `transform` to `pod` and writes the result when it changed. On a conflict the pod is read again
 * and the transform re-applied, so the transform must be a function of the pod alone.
 */
export async function updateWithRetry(
  writer: PodWriter,
  pod: Pod,
  transform: (pod: Pod) => PodChange,
  retry: RetryOptions = DEFAULT_RETRY,
): Promise<WriteResult> {
  let current = pod;
  for (let attempt = 1; ; attempt++) {
    const { pod: next, changed } = transform(current);
    if (!changed) return { pod: current, updated: false };
    try {
      return { pod: await writer.update(next), updated: true };
    } catch (err) {
      if (!writer.isConflict(err) || attempt >= retry.steps) throw err;
    }
    await new Promise((resolve) => setTimeout(resolve, retry.delayMs * (1 + Math.random() * 0.1)));
    current = await writer.get(pod.metadata.namespace ?? '', pod.metadata.name ?? '');
  }
}
