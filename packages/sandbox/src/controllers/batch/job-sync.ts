// One sync of a Job (syncJob of kube-controller-manager's Job controller, v1.32 with its default
// feature gates: JobPodReplacementPolicy, JobManagedBy and JobSuccessPolicy on). Pods are created from
// the template with the `batch.kubernetes.io/job-tracking` finalizer, up to parallelism and the
// completions still missing; a finished pod is first recorded in status.uncountedTerminatedPods, then
// its finalizer is removed, then it is counted in succeeded or failed. More failures than backoffLimit,
// activeDeadlineSeconds passed or a FailJob rule add FailureTarget and delete the active pods; Failed
// follows once none is left terminating. Enough successes add SuccessCriteriaMet, then Complete. A
// failed pod is replaced after the pod-failure back-off.
// Not implemented: backoffLimitPerIndex (with maxFailedIndexes and FailIndex rules), accepted and ignored.

import { cloneJson, isJsonObject, readPath, type JsonObject, type KubeObject } from '../../meta/object.ts';
import { formatTimestamp, parseTimestamp } from '../../meta/time.ts';
import type { ControllerIndex } from '../apps/controller-index.ts';
import { claimObjects, controllerRefOf, newControllerRef } from '../apps/controller-ref.ts';
import type { Expectations } from '../apps/expectations.ts';
import { compareActivePods } from '../apps/pod-deletion-rank.ts';
import { isNotFound, namespaceTerminating, type PodControl, podsResource } from '../apps/pod-control.ts';
import { isPodActive, isPodReady, isPodTerminating, podPhase } from '../apps/pod-state.ts';
import { slowStartBatch, slowStartInitialBatchSize } from '../apps/slow-start-batch.ts';
import { selects } from '../apps/workload-fields.ts';
import type { ControllerContext } from '../in-process-controller.ts';
import type { DelayedKeys } from '../delayed-keys.ts';
import type { EventRecorder } from '../event-recorder.ts';
import type { FinalizerExpectations } from './finalizer-expectations.ts';
import { type BackoffRecord, type BackoffStore, remainingBackoff } from './job-backoff.ts';
import {
  duplicatedIndexPods,
  firstPendingIndexes,
  formatIntervals,
  hasIndex,
  matchSuccessPolicy,
  parseIntervals,
  totalIndexes,
  withIndexes,
  type Interval,
} from './job-indexes.ts';
import { matchPodFailurePolicy } from './job-pod-failure-policy.ts';
import { addCompletionIndexEnv, generateNameWithIndex, isPodFailed, pastBackoffLimitOnFailure, validIndex } from './job-pods.ts';
import {
  activeDeadlineSecondsOf,
  backoffLimitOf,
  completionIndexKey,
  completionIndexOf,
  completionModeOf,
  completionsOf,
  findCondition,
  finishedCondition,
  hasTrackingFinalizer,
  isIndexed,
  isSuspended,
  jobKind,
  jobsStorage,
  jobTrackingFinalizer,
  managedByExternalController,
  onlyReplaceFailedPods,
  parallelismOf,
  podFailurePolicyOf,
  statusNumber,
  type JobCondition,
} from './job-spec.ts';
import { cleanUncounted, ensureCondition, newCondition, readJobStatus, renderJobStatus, type JobStatus } from './job-status.ts';

const maxUncountedPods = 500;
const maxPodCreateDeletePerSync = 500;

const uidOf = (pod: KubeObject): string => pod.metadata.uid ?? '';
export const removeFinalizerPatch = { metadata: { [`$deleteFromPrimitiveList/finalizers`]: [jobTrackingFinalizer] } };

/** What one sync knows about a Job (syncJobCtx). */
interface JobContext {
  key: string;
  /** The Job as last read or written; status updates are sent against it. */
  job: KubeObject;
  status: JobStatus;
  pods: KubeObject[];
  activePods: KubeObject[];
  finished: JobCondition | undefined;
  succeeded: number;
  failed: number;
  prevSucceededIndexes: Interval[];
  succeededIndexes: Interval[];
  backoff: BackoffRecord;
  expectedRemovals: ReadonlySet<string>;
  uncountedSucceeded: Set<string>;
  uncountedFailed: Set<string>;
  terminating: number;
  ready: number;
}

/** What a sync works with: the controller's client, events, pod writes, expectations and timings. */
export interface JobSyncDependencies {
  ctx: ControllerContext;
  recorder: EventRecorder;
  podControl: PodControl;
  expectations: Expectations;
  finalizerExpectations: FinalizerExpectations;
  backoffStore: BackoffStore;
  podIndex: ControllerIndex;
  /** Requeues a Job after a delay (the controller's batching queue). */
  delayed: DelayedKeys;
  batchPeriodMs: number;
  backoffBaseMs: number;
  backoffMaxMs: number;
}

/** canRemoveFinalizer: the Job ends or is deleted, the pod succeeded, or it counts as failed. */
const canRemoveFinalizer = (jc: JobContext, pod: KubeObject, failed: boolean): boolean =>
  !!jc.job.metadata.deletionTimestamp || jc.finished !== undefined || podPhase(pod) === 'Succeeded' || failed;

export class JobSync {
  readonly #ctx: ControllerContext;
  readonly #recorder: EventRecorder;
  readonly #podControl: PodControl;
  readonly #expectations: Expectations;
  readonly #finalizerExpectations: FinalizerExpectations;
  readonly #backoffStore: BackoffStore;
  readonly #podIndex: ControllerIndex;
  readonly #delayed: DelayedKeys;
  readonly #batchPeriodMs: number;
  readonly #backoffBaseMs: number;
  readonly #backoffMaxMs: number;

  constructor(deps: JobSyncDependencies) {
    this.#ctx = deps.ctx;
    this.#recorder = deps.recorder;
    this.#podControl = deps.podControl;
    this.#expectations = deps.expectations;
    this.#finalizerExpectations = deps.finalizerExpectations;
    this.#backoffStore = deps.backoffStore;
    this.#podIndex = deps.podIndex;
    this.#delayed = deps.delayed;
    this.#batchPeriodMs = deps.batchPeriodMs;
    this.#backoffBaseMs = deps.backoffBaseMs;
    this.#backoffMaxMs = deps.backoffMaxMs;
  }

  async #writeStatus(jc: JobContext): Promise<void> {
    jc.job = await this.#ctx.client.update(jobKind, { ...jc.job, status: renderJobStatus(jc.status, isIndexed(jc.job)) }, { namespace: jc.job.metadata.namespace, subresource: 'status' });
  }

  /** getPodsForJob: claims the Job's pods, adding the tracking finalizer to adopted ones. */
  async #podsForJob(job: KubeObject): Promise<KubeObject[]> {
    const candidates = [...this.#podIndex.controlledBy(uidOf(job)), ...this.#podIndex.orphansIn(job.metadata.namespace ?? '')].flatMap((k) => this.#ctx.store.get('pods', k)?.object ?? []);
    const claimed = await claimObjects(candidates, {
      client: this.#ctx.client,
      resource: podsResource,
      owner: job,
      ownerKind: jobKind,
      matches: (pod) => selects(job, pod.metadata.labels),
      finalizers: [jobTrackingFinalizer],
    });
    // Adopted in this sync: count them as the finalizer the adoption added says.
    return claimed.map((pod) =>
      controllerRefOf(pod)?.uid !== uidOf(job) && !hasTrackingFinalizer(pod)
        ? { ...pod, metadata: { ...pod.metadata, finalizers: [...(pod.metadata.finalizers ?? []), jobTrackingFinalizer] } }
        : pod,
    );
  }

  /** deleteJobPods: removes the finalizer, then deletes; answers the ready and all pods removed. */
  async #deleteJobPods(jc: JobContext, pods: readonly KubeObject[]): Promise<{ ready: number; removed: number; error: unknown }> {
    let ready = 0;
    let removed = pods.length;
    let error: unknown;
    await Promise.all(
      pods.map(async (pod) => {
        const namespace = pod.metadata.namespace ?? '';
        const name = pod.metadata.name ?? '';
        try {
          if (hasTrackingFinalizer(pod)) await this.#podControl.patchPod(namespace, name, removeFinalizerPatch);
          await this.#podControl.deletePod(namespace, name, jc.job);
        } catch (err) {
          this.#expectations.deletionObserved(jc.key);
          if (!isNotFound(err)) {
            removed--;
            error ??= err;
          }
        }
        if (isPodReady(pod)) ready++;
      }),
    );
    return { ready, removed, error };
  }

  /** deleteActivePods: when the Job is finishing, the DELETE keeps the finalizers (removed afterwards). */
  async #deleteActivePods(jc: JobContext): Promise<{ ready: number; removed: number; error: unknown }> {
    let ready = 0;
    let removed = jc.activePods.length;
    let error: unknown;
    await Promise.all(
      jc.activePods.map(async (pod) => {
        try {
          await this.#podControl.deletePod(pod.metadata.namespace ?? '', pod.metadata.name ?? '', jc.job);
        } catch (err) {
          if (!isNotFound(err)) {
            removed--;
            error ??= err;
          }
        }
        if (isPodReady(pod)) ready++;
      }),
    );
    return { ready, removed, error };
  }

  /** activePodsForRemoval: repeated or invalid indexes first, then in ActivePods order. */
  #activePodsForRemoval(job: KubeObject, pods: readonly KubeObject[], atLeast: number): KubeObject[] {
    let remove: KubeObject[] = [];
    let keep: KubeObject[] = [...pods];
    if (isIndexed(job)) ({ remove, keep } = duplicatedIndexPods(pods, completionsOf(job) ?? 0));
    if (remove.length < atLeast) remove = [...remove, ...keep.sort(compareActivePods).slice(0, atLeast - remove.length)];
    return remove;
  }

  /** manageJob: creates or deletes pods towards the wanted number of active pods; answers the active count. */
  async #manageJob(jc: JobContext): Promise<{ active: number; error?: unknown }> {
    const { job, key } = jc;
    let active = jc.activePods.length;
    if (isSuspended(job)) {
      const victims = this.#activePodsForRemoval(job, jc.activePods, active);
      this.#expectations.expect(key, 0, victims.length);
      const { ready, removed, error } = await this.#deleteJobPods(jc, victims);
      jc.terminating += removed;
      jc.ready -= ready;
      return { active: active - removed, error };
    }
    const completions = completionsOf(job);
    const parallelism = parallelismOf(job);
    const wantActive =
      completions === undefined ? (jc.succeeded > 0 ? active : parallelism) : Math.max(Math.min(completions - jc.succeeded, parallelism), 0);
    const victims = this.#activePodsForRemoval(job, jc.activePods, Math.max(active - wantActive, 0)).slice(0, maxPodCreateDeletePerSync);
    if (victims.length) {
      this.#expectations.expect(key, 0, victims.length);
      const { ready, removed, error } = await this.#deleteJobPods(jc, victims);
      jc.terminating += removed;
      jc.ready -= ready;
      return { active: active - removed, error };
    }
    const terminating = onlyReplaceFailedPods(job) ? jc.terminating : 0;
    let diff = wantActive - terminating - active;
    if (diff <= 0) return { active };
    const remaining = remainingBackoff(jc.backoff, this.#ctx.clock(), this.#backoffBaseMs, this.#backoffMaxMs);
    if (remaining > 0) {
      this.#delayed.addAfter(key, Math.max(remaining, this.#batchPeriodMs));
      // As upstream: the sync that waits out the back-off reports no active pods.
      return { active: 0 };
    }
    diff = Math.min(diff, maxPodCreateDeletePerSync);
    let indexes: number[] = [];
    if (isIndexed(job)) {
      indexes = firstPendingIndexes(jc.activePods, jc.succeededIndexes, diff, completions ?? 0);
      diff = indexes.length;
    }
    this.#expectations.expect(key, diff, 0);
    active += diff;
    const template = cloneJson(readPath(job, ['spec', 'template']) ?? {}) as JsonObject;
    if (isIndexed(job)) addCompletionIndexEnv(template);
    const metadata = isJsonObject(template.metadata) ? template.metadata : (template.metadata = {});
    const finalizers = Array.isArray(metadata.finalizers) ? (metadata.finalizers as string[]) : [];
    if (!finalizers.includes(jobTrackingFinalizer)) metadata.finalizers = [...finalizers, jobTrackingFinalizer];
    const controllerRef = newControllerRef(job, jobKind);
    let attempted = 0;
    const { error } = await slowStartBatch(diff, slowStartInitialBatchSize, async () => {
      const index = indexes[attempted++];
      let podTemplate: JsonObject = template;
      let generateName: string | undefined;
      if (index !== undefined) {
        podTemplate = cloneJson(template);
        const meta = podTemplate.metadata as JsonObject;
        meta.annotations = { ...(meta.annotations as object), [completionIndexKey]: String(index) };
        meta.labels = { ...(meta.labels as object), [completionIndexKey]: String(index) };
        (podTemplate.spec as JsonObject).hostname = `${job.metadata.name}-${index}`;
        generateName = generateNameWithIndex(job.metadata.name ?? '', index);
      }
      try {
        await this.#podControl.createPod(job.metadata.namespace ?? '', podTemplate, job, controllerRef, generateName);
      } catch (err) {
        if (namespaceTerminating(err)) return;
        this.#expectations.creationObserved(key);
        active--;
        throw err;
      }
    });
    if (error !== undefined) {
      const skipped = diff - attempted;
      active -= skipped;
      this.#expectations.lower(key, skipped, 0);
      return { active, error };
    }
    return { active };
  }

  /**
   * trackJobStatusAndRemoveFinalizers: finished pods go to uncountedTerminatedPods (flushed), their
   * finalizers are removed, the counters take them; the interim and final conditions are written.
   */
  async #trackStatus(jc: JobContext, needsFlushIn: boolean): Promise<void> {
    const { job, status } = jc;
    let needsFlush = needsFlushIn;
    const indexed = isIndexed(job);
    const completions = completionsOf(job) ?? 0;
    const pods = indexed ? [...jc.pods].sort((a, b) => completionIndexOf(a) - completionIndexOf(b)) : jc.pods;
    const withFinalizer = new Set(pods.filter((p) => hasTrackingFinalizer(p) && !jc.expectedRemovals.has(uidOf(p))).map(uidOf));
    if (cleanUncounted(status, withFinalizer)) needsFlush = true;
    const toRemove: KubeObject[] = [];
    const newSucceededIndexes: number[] = [];
    let reachedMax = false;
    const uncounted = status.uncountedTerminatedPods;
    for (const pod of pods) {
      const uid = uidOf(pod);
      if (!hasTrackingFinalizer(pod) || jc.expectedRemovals.has(uid)) continue;
      const failed = isPodFailed(pod, job);
      if (!canRemoveFinalizer(jc, pod, failed)) continue;
      toRemove.push(pod);
      if (podPhase(pod) === 'Succeeded' && !jc.uncountedFailed.has(uid)) {
        if (indexed) {
          const index = completionIndexOf(pod);
          if (index >= 0 && index < completions && !hasIndex(jc.prevSucceededIndexes, index)) {
            newSucceededIndexes.push(index);
            needsFlush = true;
          }
        } else if (!jc.uncountedSucceeded.has(uid)) {
          needsFlush = true;
          uncounted.succeeded.push(uid);
        }
      } else if (failed || (jc.finished !== undefined && jc.finished.type !== 'SuccessCriteriaMet')) {
        // Once the Job is finishing, every pod that did not succeed counts as failed.
        if (!jc.uncountedFailed.has(uid) && validIndex(job, pod) && matchPodFailurePolicy(podFailurePolicyOf(job), pod).countFailed) {
          needsFlush = true;
          uncounted.failed.push(uid);
        }
      }
      if (newSucceededIndexes.length + uncounted.succeeded.length + uncounted.failed.length >= maxUncountedPods) {
        reachedMax = true;
        break;
      }
    }
    if (indexed) {
      jc.succeededIndexes = withIndexes(jc.succeededIndexes, [...newSucceededIndexes].sort((a, b) => a - b));
      const text = formatIntervals(jc.succeededIndexes);
      if (text !== status.completedIndexes) needsFlush = true;
      status.succeeded = totalIndexes(jc.succeededIndexes);
      status.completedIndexes = text;
    }
    const now = this.#ctx.clock();
    if (jc.finished?.type === 'FailureTarget') {
      status.conditions.push(jc.finished);
      needsFlush = true;
      jc.finished = newCondition('Failed', 'True', jc.finished.reason ?? '', jc.finished.message ?? '', now);
    }
    if (jc.finished?.type === 'SuccessCriteriaMet') {
      if (!status.conditions.some((c) => c.type === 'SuccessCriteriaMet' && c.status === 'True')) {
        status.conditions.push(jc.finished);
        needsFlush = true;
      }
      jc.finished = newCondition('Complete', 'True', jc.finished.reason ?? '', jc.finished.message ?? '', now);
    }

    // flushUncountedAndRemoveFinalizers
    if (needsFlush) {
      await this.#writeStatus(jc);
      this.#backoffStore.update(jc.key, jc.backoff);
      needsFlush = false;
    }
    let removalError: unknown;
    if (toRemove.length) {
      this.#finalizerExpectations.expect(jc.key, toRemove.map(uidOf));
      await Promise.all(
        toRemove.map(async (pod) => {
          try {
            await this.#podControl.patchPod(pod.metadata.namespace ?? '', pod.metadata.name ?? '', removeFinalizerPatch);
          } catch (err) {
            this.#finalizerExpectations.observed(jc.key, uidOf(pod));
            if (!isNotFound(err)) {
              removalError ??= err;
              return;
            }
          }
          withFinalizer.delete(uidOf(pod));
        }),
      );
    }
    if (cleanUncounted(status, withFinalizer)) needsFlush = true;
    if (removalError !== undefined) {
      if (needsFlush) await this.#writeStatus(jc);
      throw removalError;
    }

    // enactJobFinished: only once every finished pod is counted and none is terminating.
    const finished = jc.finished;
    const jobFinished = !reachedMax && finished !== undefined && !uncounted.succeeded.length && !uncounted.failed.length && jc.terminating === 0;
    if (jobFinished) {
      ensureCondition(status.conditions, finished.type, finished.status, finished.reason ?? '', finished.message ?? '', this.#ctx.clock());
      if (finished.type === 'Complete') status.completionTime = finished.lastTransitionTime ?? formatTimestamp(this.#ctx.clock());
      needsFlush = true;
    }
    if (needsFlush) {
      await this.#writeStatus(jc);
      if (jobFinished) this.#recordJobFinished(jc.job, finished);
    }
  }

  #recordJobFinished(job: KubeObject, finished: JobCondition): void {
    if (finished.type === 'Complete') {
      const completions = completionsOf(job);
      if (completions !== undefined && statusNumber(job, 'succeeded') > completions) {
        this.#recorder.warning(job, 'TooManySucceededPods', 'Too many succeeded pods running after completion count reached');
      }
      this.#recorder.normal(job, 'Completed', 'Job completed');
    } else this.#recorder.warning(job, finished.reason ?? '', finished.message ?? '');
  }

  #newFailureTarget(reason: string, message: string): JobCondition {
    return newCondition('FailureTarget', 'True', reason, message, this.#ctx.clock());
  }

  /** syncJob: one sync of the Job with this key. */
  async sync(key: string): Promise<void> {
    const stored = this.#ctx.store.get(jobsStorage, key)?.object;
    if (!stored) {
      this.#expectations.delete(key);
      this.#finalizerExpectations.delete(key);
      this.#backoffStore.remove(key);
      return;
    }
    if (managedByExternalController(stored)) return;
    if (finishedCondition(stored)) {
      this.#backoffStore.remove(key);
      return;
    }
    const mode = completionModeOf(stored);
    if (mode !== undefined && mode !== 'NonIndexed' && mode !== 'Indexed') {
      this.#recorder.warning(stored, 'UnknownCompletionMode', 'Skipped Job sync because completion mode is unknown');
      return;
    }
    const status = readJobStatus(stored);
    // Expectations are read before the pods, so a pod created meanwhile cannot sneak past them.
    const satisfied = this.#expectations.satisfied(key);
    const pods = await this.#podsForJob(stored);
    const activePods = pods.filter(isPodActive);
    const jc: JobContext = {
      key,
      job: stored,
      status,
      pods,
      activePods,
      finished: undefined,
      succeeded: 0,
      failed: 0,
      prevSucceededIndexes: [],
      succeededIndexes: [],
      backoff: { failuresAfterLastSuccess: 0, lastFailureTime: undefined },
      expectedRemovals: this.#finalizerExpectations.expected(key),
      uncountedSucceeded: new Set(status.uncountedTerminatedPods.succeeded),
      uncountedFailed: new Set(status.uncountedTerminatedPods.failed),
      terminating: pods.filter(isPodTerminating).length,
      ready: activePods.filter(isPodReady).length,
    };
    let active = activePods.length;
    const counted = (pod: KubeObject, uncounted: Set<string>): boolean =>
      hasTrackingFinalizer(pod) && !uncounted.has(uidOf(pod)) && !jc.expectedRemovals.has(uidOf(pod)) && validIndex(stored, pod);
    const newSucceeded = pods.filter((p) => counted(p, jc.uncountedSucceeded) && podPhase(p) === 'Succeeded');
    const newFailed = pods.filter((p) => counted(p, jc.uncountedFailed) && isPodFailed(p, stored));
    const policy = podFailurePolicyOf(stored);
    jc.succeeded = status.succeeded + newSucceeded.length + jc.uncountedSucceeded.size;
    jc.failed = status.failed + newFailed.filter((p) => matchPodFailurePolicy(policy, p).countFailed).length + jc.uncountedFailed.size;
    if (status.startTime === undefined && !isSuspended(stored)) status.startTime = formatTimestamp(this.#ctx.clock());
    jc.backoff = this.#backoffStore.next(key, newSucceeded, newFailed);

    // What ends the Job: an earlier interim condition, a FailJob rule, the back-off limit, the deadline.
    const successCriteria = findCondition(stored, 'SuccessCriteriaMet');
    if (successCriteria?.status === 'True') jc.finished = successCriteria;
    if (!jc.finished) {
      const target = findCondition(stored, 'FailureTarget');
      if (target?.status === 'True') jc.finished = newCondition('Failed', 'True', target.reason ?? '', target.message ?? '', this.#ctx.clock());
      else {
        const failJob = pods.filter((p) => isPodFailed(p, stored)).map((p) => matchPodFailurePolicy(policy, p).failJobMessage).find((m) => m !== undefined);
        if (failJob) jc.finished = this.#newFailureTarget('PodFailurePolicy', failJob);
      }
    }
    const deadline = activeDeadlineSecondsOf(stored);
    const startedAt = parseTimestamp(status.startTime);
    if (!jc.finished) {
      if (jc.failed > backoffLimitOf(stored) || pastBackoffLimitOnFailure(stored, pods)) {
        jc.finished = this.#newFailureTarget('BackoffLimitExceeded', 'Job has reached the specified backoff limit');
      } else if (deadline !== undefined && startedAt !== undefined && !isSuspended(stored) && this.#ctx.clock() - startedAt >= deadline * 1000) {
        jc.finished = this.#newFailureTarget('DeadlineExceeded', 'Job was active longer than specified deadline');
      } else if (deadline !== undefined && startedAt !== undefined && !isSuspended(stored)) {
        this.#delayed.addAfter(key, deadline * 1000 - (this.#ctx.clock() - startedAt));
      }
    }
    if (isIndexed(stored)) {
      const completions = completionsOf(stored) ?? 0;
      jc.prevSucceededIndexes = parseIntervals(status.completedIndexes, completions);
      const fresh = pods.filter((p) => podPhase(p) === 'Succeeded' && hasTrackingFinalizer(p) && completionIndexOf(p) >= 0 && completionIndexOf(p) < completions);
      jc.succeededIndexes = withIndexes(jc.prevSucceededIndexes, [...new Set(fresh.map(completionIndexOf))].sort((a, b) => a - b));
      jc.succeeded = totalIndexes(jc.succeededIndexes);
      const matched = jc.finished ? undefined : matchSuccessPolicy(readPath(stored, ['spec', 'successPolicy']), completions, jc.succeededIndexes);
      if (matched) jc.finished = newCondition('SuccessCriteriaMet', 'True', 'SuccessPolicy', matched, this.#ctx.clock());
    }

    let suspendChanged = false;
    let manageError: unknown;
    if (jc.finished) {
      const { ready, removed, error } = await this.#deleteActivePods(jc);
      // Pods or finalizers may still be on their way: not finished in this sync.
      if (removed !== active || !satisfied) jc.finished = undefined;
      active -= removed;
      jc.terminating += removed;
      jc.ready -= ready;
      manageError = error;
    } else {
      let manageCalled = false;
      if (satisfied && !stored.metadata.deletionTimestamp) {
        ({ active, error: manageError } = await this.#manageJob(jc));
        manageCalled = true;
      }
      const completions = completionsOf(stored);
      const complete = completions === undefined ? jc.succeeded > 0 && active === 0 : jc.succeeded >= completions && active === 0;
      if (complete) jc.finished = newCondition('SuccessCriteriaMet', 'True', 'CompletionsReached', 'Reached expected number of succeeded pods', this.#ctx.clock());
      else if (manageCalled) {
        if (isSuspended(stored)) {
          if (ensureCondition(status.conditions, 'Suspended', 'True', 'JobSuspended', 'Job suspended', this.#ctx.clock())) {
            suspendChanged = true;
            this.#recorder.normal(stored, 'Suspended', 'Job suspended');
          }
        } else if (ensureCondition(status.conditions, 'Suspended', 'False', 'JobResumed', 'Job resumed', this.#ctx.clock())) {
          suspendChanged = true;
          this.#recorder.normal(stored, 'Resumed', 'Job resumed');
          // activeDeadlineSeconds counts the time a Job is continuously active.
          status.startTime = formatTimestamp(this.#ctx.clock());
        }
      }
    }
    // ready and terminating are pointers: a Job that never had them needs them written.
    const storedCount = (field: string): number | undefined => {
      const value = readPath(stored, ['status', field]);
      return typeof value === 'number' ? value : undefined;
    };
    const needsUpdate = suspendChanged || active !== status.active || jc.ready !== storedCount('ready') || jc.terminating !== storedCount('terminating');
    status.active = active;
    status.ready = jc.ready;
    status.terminating = jc.terminating;
    await this.#trackStatus(jc, needsUpdate);
    if (manageError !== undefined) throw manageError;
  }
}
