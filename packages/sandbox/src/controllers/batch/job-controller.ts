// kube-controller-manager's Job controller (batch/v1), in process: Jobs sync at once when created,
// deleted or changed in their spec, and one batch period after a pod event or a status update (many
// events make one sync); JobSync does the work. A second queue removes the tracking finalizer from pods
// no unfinished Job controls any more (orphans, pods of finished or deleted Jobs).

import { jsonEqual, keyOf, readPath, type KubeObject } from '../../meta/object.ts';
import { parseTimestamp } from '../../meta/time.ts';
import type { StoreEvent } from '../../storage/store.ts';
import { ControllerIndex } from '../apps/controller-index.ts';
import { controllerRefOf, ownersSelecting, resolveControllerRef } from '../apps/controller-ref.ts';
import { Expectations } from '../apps/expectations.ts';
import { isNotFound, PodControl } from '../apps/pod-control.ts';
import { followStore, type Controller, type ControllerContext } from '../in-process-controller.ts';
import { DelayedKeys } from '../delayed-keys.ts';
import { EventRecorder } from '../event-recorder.ts';
import { SerialKeyQueue } from '../serial-key-queue.ts';
import { FinalizerExpectations } from './finalizer-expectations.ts';
import { BackoffStore } from './job-backoff.ts';
import { activeDeadlineSecondsOf, finishedCondition, hasTrackingFinalizer, jobsStorage, managedByExternalController } from './job-spec.ts';
import { JobSync, removeFinalizerPatch } from './job-sync.ts';

export interface JobControllerOptions {
  /** syncJobBatchPeriod: a pod event or a status update syncs the Job this much later. Default 1,000. */
  syncBatchPeriodMs?: number;
  /** DefaultJobPodFailureBackOff: the wait before replacing the first failed pod, doubled per failure. Default 10,000. */
  podFailureBackoffMs?: number;
  /** MaxJobPodFailureBackOff. Default 600,000. */
  maxPodFailureBackoffMs?: number;
}

const uidOf = (pod: KubeObject): string => pod.metadata.uid ?? '';

export function jobController(options: JobControllerOptions = {}): Controller {
  const batchPeriodMs = options.syncBatchPeriodMs ?? 1000;
  return {
    name: 'job-controller',
    start(ctx: ControllerContext): () => void {
      const recorder = new EventRecorder(ctx.client, 'job-controller', ctx.clock);
      const podControl = new PodControl(ctx.client, recorder);
      const expectations = new Expectations(ctx.clock);
      const finalizerExpectations = new FinalizerExpectations();
      const podIndex = new ControllerIndex('pods');
      const queue = new SerialKeyQueue((key) => jobs.sync(key));
      const delayed = new DelayedKeys((key) => queue.add(key));
      const jobs = new JobSync({
        ctx,
        recorder,
        podControl,
        expectations,
        finalizerExpectations,
        backoffStore: new BackoffStore(),
        podIndex,
        delayed,
        batchPeriodMs,
        backoffBaseMs: options.podFailureBackoffMs ?? 10_000,
        backoffMaxMs: options.maxPodFailureBackoffMs ?? 600_000,
      });

      /** syncOrphanPod: a pod no unfinished Job controls loses the tracking finalizer. */
      const syncOrphanPod = async (key: string): Promise<void> => {
        const pod = ctx.store.get('pods', key)?.object;
        if (!pod || !hasTrackingFinalizer(pod)) return;
        const ref = controllerRefOf(pod);
        if (ref) {
          if (ref.kind !== 'Job' || ref.apiVersion !== 'batch/v1') return;
          const job = resolveControllerRef(ctx, jobsStorage, 'Job', pod.metadata.namespace, ref);
          if (job && (managedByExternalController(job) || !finishedCondition(job))) return;
        }
        await podControl.patchPod(pod.metadata.namespace ?? '', pod.metadata.name ?? '', removeFinalizerPatch).catch((err: unknown) => {
          if (!isNotFound(err)) throw err;
        });
      };
      const orphans = new SerialKeyQueue(syncOrphanPod);

      const ownerOf = (pod: KubeObject): KubeObject | undefined => resolveControllerRef(ctx, jobsStorage, 'Job', pod.metadata.namespace, controllerRefOf(pod));

      const onPodGone = (pod: KubeObject, final: boolean): void => {
        const ref = controllerRefOf(pod);
        const withFinalizer = hasTrackingFinalizer(pod);
        const job = ref ? ownerOf(pod) : undefined;
        if (!job || finishedCondition(job)) {
          if (withFinalizer && !final) orphans.add(keyOf(pod));
          return;
        }
        expectations.deletionObserved(keyOf(job));
        if (final || !withFinalizer) finalizerExpectations.observed(keyOf(job), uidOf(pod));
        delayed.addAfter(keyOf(job), batchPeriodMs);
      };

      const onPod = (event: StoreEvent): void => {
        const pod = event.object;
        if (event.type === 'DELETED') return onPodGone(pod, true);
        if (pod.metadata.deletionTimestamp) return onPodGone(pod, false);
        const previous = event.type === 'MODIFIED' ? event.previous : undefined;
        const ref = controllerRefOf(pod);
        const refChanged = !!previous && !jsonEqual(ref, controllerRefOf(previous));
        const finalizerRemoved = !hasTrackingFinalizer(pod);
        if (refChanged && previous) {
          const oldJob = ownerOf(previous);
          if (oldJob) {
            if (finalizerRemoved) finalizerExpectations.observed(keyOf(oldJob), uidOf(pod));
            delayed.addAfter(keyOf(oldJob), batchPeriodMs);
          }
        }
        if (ref) {
          const job = ownerOf(pod);
          if (!job) return;
          if (event.type === 'ADDED') expectations.creationObserved(keyOf(job));
          if (finalizerRemoved) finalizerExpectations.observed(keyOf(job), uidOf(pod));
          delayed.addAfter(keyOf(job), batchPeriodMs);
          return;
        }
        if (hasTrackingFinalizer(pod)) orphans.add(event.key);
        if (event.type === 'ADDED' || refChanged || !jsonEqual(pod.metadata.labels, previous?.metadata.labels)) {
          for (const job of ownersSelecting(ctx, jobsStorage, pod)) delayed.addAfter(keyOf(job), batchPeriodMs);
        }
      };

      /** cleanupPodFinalizers: a finished or deleted Job's pods still holding the finalizer. */
      const cleanupPodFinalizers = (job: KubeObject): void => {
        for (const podKey of podIndex.controlledBy(uidOf(job))) {
          const pod = ctx.store.get('pods', podKey)?.object;
          if (pod && hasTrackingFinalizer(pod)) orphans.add(podKey);
        }
      };

      const onJob = (event: StoreEvent): void => {
        const job = event.object;
        const previous = event.previous;
        if (event.type === 'MODIFIED' && previous) {
          // A status update (same generation) is batched; a spec change syncs at once.
          if (job.metadata.generation === previous.metadata.generation) delayed.addAfter(event.key, batchPeriodMs);
          else queue.add(event.key);
          if (finishedCondition(job)) cleanupPodFinalizers(job);
          const deadline = activeDeadlineSecondsOf(job);
          const startedAt = parseTimestamp(readPath(job, ['status', 'startTime']));
          if (startedAt !== undefined && deadline !== undefined && deadline !== activeDeadlineSecondsOf(previous)) {
            delayed.addAfter(event.key, deadline * 1000 - (ctx.clock() - startedAt));
          }
          return;
        }
        queue.add(event.key);
        if (event.type === 'DELETED') cleanupPodFinalizers(job);
      };

      const observe = (event: StoreEvent): void => {
        podIndex.observe(event);
        if (event.resource === jobsStorage) onJob(event);
        else if (event.resource === 'pods') onPod(event);
      };
      return followStore(ctx, ['pods', jobsStorage], observe, () => {
        delayed.stop();
        queue.stop();
        orphans.stop();
      });
    },
  };
}
