// kube-controller-manager's TTL-after-finished controller: a finished Job (a True Complete or Failed
// condition) with spec.ttlSecondsAfterFinished is deleted that many seconds after the condition's
// lastTransitionTime, in the foreground (its pods go first), guarded by the uid and resourceVersion of a
// fresh read that confirms the TTL really expired.

import { StatusError } from '../../errors.ts';
import type { KubeObject } from '../../meta/object.ts';
import { parseTimestamp } from '../../meta/time.ts';
import type { StoreEvent } from '../../storage/store.ts';
import type { Controller, ControllerContext } from '../in-process-controller.ts';
import { maxTimerDelayMs } from '../delayed-keys.ts';
import { SerialKeyQueue } from '../serial-key-queue.ts';
import { finishedCondition, jobKind, jobsStorage, ttlSecondsAfterFinishedOf } from './job-spec.ts';

/** Milliseconds until the Job expires (<= 0: expired), or undefined when it needs no cleanup. */
function timeLeft(job: KubeObject, now: number): number | undefined {
  const ttl = ttlSecondsAfterFinishedOf(job);
  const finished = finishedCondition(job);
  if (job.metadata.deletionTimestamp || ttl === undefined || !finished) return undefined;
  const finishedAt = parseTimestamp(finished.lastTransitionTime);
  if (finishedAt === undefined) return undefined;
  return finishedAt + ttl * 1000 - now;
}

export const ttlAfterFinishedController: Controller = {
  name: 'ttl-after-finished-controller',
  start(ctx: ControllerContext): () => void {
    const process = async (key: string): Promise<void> => {
      const job = ctx.store.get(jobsStorage, key)?.object;
      if (!job) return;
      const left = timeLeft(job, ctx.clock());
      if (left === undefined) return;
      if (left > 0) {
        queue.addAfter(key, Math.min(left, maxTimerDelayMs));
        return;
      }
      // The TTL may have changed since the cache saw it: decide again on a fresh read.
      const namespace = job.metadata.namespace;
      const fresh = await ctx.client.get(jobKind, job.metadata.name ?? '', { namespace }).catch((err: unknown) => {
        if (err instanceof StatusError && err.status.code === 404) return undefined;
        throw err;
      });
      if (!fresh) return;
      const freshLeft = timeLeft(fresh, ctx.clock());
      if (freshLeft === undefined) return;
      if (freshLeft > 0) {
        queue.addAfter(key, Math.min(freshLeft, maxTimerDelayMs));
        return;
      }
      await ctx.client.delete(jobKind, fresh.metadata.name ?? '', {
        namespace,
        body: {
          kind: 'DeleteOptions',
          apiVersion: 'v1',
          propagationPolicy: 'Foreground',
          preconditions: { uid: fresh.metadata.uid, resourceVersion: fresh.metadata.resourceVersion },
        },
      });
    };
    const queue = new SerialKeyQueue(process);
    const observe = (event: StoreEvent): void => {
      if (event.resource === jobsStorage && event.type !== 'DELETED' && timeLeft(event.object, ctx.clock()) !== undefined) queue.add(event.key);
    };
    for (const entry of ctx.store.list(jobsStorage)) queue.add(entry.key);
    const unsubscribe = ctx.subscribe(observe);
    return () => {
      unsubscribe();
      queue.stop();
    };
  },
};
