// One sync of a StatefulSet (defaultStatefulSetControl.UpdateStatefulSet as v1.32 runs it): revisions,
// then the pods. Ordinals in [start, start+replicas) are created (a missing ordinal below the
// partition at the current revision, else at the update revision), failed or succeeded ones are
// deleted to be recreated, pods outside the range are condemned and deleted from the highest ordinal;
// OrderedReady does one step per sync and waits for each pod to be Running, Ready and available,
// Parallel does them all. Then the RollingUpdate strategy deletes the highest-ordinal pod not at the
// update revision, down to the partition, one at a time, waiting for each replacement to be available;
// with the MaxUnavailableStatefulSet gate on, up to maxUnavailable pods at a time instead. OnDelete
// leaves that to the user. The status is written through /status when it changed.

import type { ApiServerFeatureGates } from '../../feature-gates.ts';
import { readPath, type JsonObject, type KubeObject } from '../../meta/object.ts';
import { StatusError } from '../../errors.ts';
import type { ControllerContext } from '../in-process-controller.ts';
import { revisionTemplate, sortRevisions } from './controller-history.ts';
import { isPodAvailable, isPodReady, podPhase } from './pod-state.ts';
import { identityMatches, newStatefulSetPod, ordinalOf, podRevision, storageMatches } from './statefulset-identity.ts';
import { slowStartBatch, slowStartInitialBatchSize } from './slow-start-batch.ts';
import type { StatefulPodControl } from './statefulset-pod-control.ts';
import { listRevisions, statefulSetRevisions, truncateHistory } from './statefulset-revisions.ts';
import { minReadySecondsOf, specReplicas } from './workload-fields.ts';
import {
  isMonotonic,
  isOnDelete,
  isRollingUpdate,
  maxUnavailableOf,
  partitionOf,
  startOrdinal,
  statefulSetKind,
  statefulSetsStorage,
} from './statefulset-spec.ts';

export interface StatefulSetStatus {
  observedGeneration: number;
  replicas: number;
  readyReplicas: number;
  currentReplicas: number;
  updatedReplicas: number;
  currentRevision: string;
  updateRevision: string;
  collisionCount: number;
  availableReplicas: number;
}

/** An ordinal's pod: the stored one, or the one to create (it has no phase yet, so no count includes it). */
type Replica = { pod: KubeObject; created: boolean };

const isCreated = (pod: KubeObject): boolean => podPhase(pod) !== '';
const isTerminating = (pod: KubeObject): boolean => !!pod.metadata.deletionTimestamp;
const isRunningAndReady = (pod: KubeObject): boolean => podPhase(pod) === 'Running' && isPodReady(pod);

export class StatefulSetSync {
  readonly #ctx: ControllerContext;
  readonly #pods: StatefulPodControl;
  readonly #gates: ApiServerFeatureGates;

  constructor(ctx: ControllerContext, pods: StatefulPodControl, gates: ApiServerFeatureGates = {}) {
    this.#ctx = ctx;
    this.#pods = pods;
    this.#gates = gates;
  }

  #available(pod: KubeObject, set: KubeObject): boolean {
    return isPodAvailable(pod, minReadySecondsOf(set), this.#ctx.clock());
  }

  /** isUnavailable: not available, or being deleted. */
  #unavailable(pod: KubeObject, set: KubeObject): boolean {
    return !this.#available(pod, set) || isTerminating(pod);
  }

  /** computeReplicaStatus over the given pods (desired pods not created yet do not count). */
  #count(status: StatefulSetStatus, set: KubeObject, pods: readonly KubeObject[]): void {
    status.replicas = status.readyReplicas = status.availableReplicas = status.currentReplicas = status.updatedReplicas = 0;
    for (const pod of pods) {
      if (!isCreated(pod)) continue;
      status.replicas++;
      if (isRunningAndReady(pod)) {
        status.readyReplicas++;
        if (this.#available(pod, set)) status.availableReplicas++;
      }
      if (!isTerminating(pod)) {
        if (podRevision(pod) === status.currentRevision) status.currentReplicas++;
        if (podRevision(pod) === status.updateRevision) status.updatedReplicas++;
      }
    }
  }

  /** UpdateStatefulSet: revisions, pods, status, history; returns the status it computed. */
  async sync(set: KubeObject, pods: KubeObject[]): Promise<StatefulSetStatus> {
    const revisions = sortRevisions(listRevisions(this.#ctx, set));
    let current: KubeObject | undefined;
    let update: KubeObject | undefined;
    try {
      const found = await statefulSetRevisions(this.#ctx.client, set, revisions);
      ({ current, update } = found);
      const { status, error } = await this.#updatePods(set, found.current, found.update, found.collisionCount, pods);
      await this.#writeStatus(set, status);
      if (error !== undefined) throw error;
      return status;
    } finally {
      await truncateHistory(this.#ctx.client, set, pods, revisions, [current, update]);
    }
  }

  async #updatePods(
    set: KubeObject,
    current: KubeObject,
    update: KubeObject,
    collisionCount: number,
    pods: KubeObject[],
  ): Promise<{ status: StatefulSetStatus; error?: unknown }> {
    const currentTemplate = revisionTemplate(current);
    const updateTemplate = revisionTemplate(update);
    const status: StatefulSetStatus = {
      observedGeneration: set.metadata.generation ?? 0,
      replicas: 0,
      readyReplicas: 0,
      currentReplicas: 0,
      updatedReplicas: 0,
      currentRevision: current.metadata.name ?? '',
      updateRevision: update.metadata.name ?? '',
      collisionCount,
      availableReplicas: 0,
    };
    this.#count(status, set, pods);

    const start = startOrdinal(set);
    const count = specReplicas(set);
    const slots: (KubeObject | undefined)[] = new Array<KubeObject | undefined>(count).fill(undefined);
    const condemned: KubeObject[] = [];
    for (const pod of pods) {
      const ordinal = ordinalOf(pod);
      if (ordinal >= start && ordinal < start + count) slots[ordinal - start] = pod;
      else if (ordinal >= 0) condemned.push(pod);
    }
    const replicas: Replica[] = slots.map((pod, i) => (pod ? { pod, created: true } : { pod: this.#newPod(set, status, currentTemplate, updateTemplate, start + i), created: false }));
    condemned.sort((a, b) => ordinalOf(b) - ordinalOf(a));
    const firstUnavailable =
      replicas.find((r) => this.#unavailable(r.pod, set))?.pod ?? [...condemned].reverse().find((p) => this.#unavailable(p, set));

    if (set.metadata.deletionTimestamp) return { status };
    const monotonic = isMonotonic(set);
    try {
      // Living replicas (create the missing, replace the finished, OrderedReady waits for each), then
      // the condemned, highest ordinal first (OrderedReady deletes one per sync, when the rest is healthy).
      const stopped =
        (await runForAll(replicas, monotonic, (r) => this.#processReplica(set, r, monotonic))) ||
        (await runForAll(condemned, monotonic, (p) => this.#processCondemned(set, p, firstUnavailable, monotonic)));
      this.#count(status, set, [...replicas.map((r) => r.pod), ...condemned]);
      if (stopped || isOnDelete(set)) return { status };
      if (this.#gates.MaxUnavailableStatefulSet) {
        await this.#rollUpToMaxUnavailable(set, replicas, status);
        return { status };
      }
      // RollingUpdate: from the highest ordinal down to the partition, one pod at a time.
      const updateMin = partitionOf(set) ?? 0;
      for (let target = replicas.length - 1; target >= updateMin; target--) {
        const pod = (replicas[target] as Replica).pod;
        if (podRevision(pod) !== status.updateRevision && !isTerminating(pod)) {
          await this.#deleteOutdated(set, pod, status);
          return { status };
        }
        if (this.#unavailable(pod, set)) return { status };
      }
      return { status };
    } catch (error) {
      this.#count(status, set, [...replicas.map((r) => r.pod), ...condemned]);
      return { status, error };
    }
  }

  /**
   * updateStatefulSetAfterInvariantEstablished (MaxUnavailableStatefulSet on): every unavailable or
   * terminating ordinal, wherever it is relative to the partition, uses up the maxUnavailable budget;
   * the rest of it deletes outdated pods from the highest ordinal down to the partition. The pods are
   * not awaited one by one: a later sync counts them unavailable until their replacements are available.
   */
  async #rollUpToMaxUnavailable(set: KubeObject, replicas: readonly Replica[], status: StatefulSetStatus): Promise<void> {
    let budget = maxUnavailableOf(set) - replicas.filter((r) => this.#unavailable(r.pod, set)).length;
    const updateMin = partitionOf(set) ?? 0;
    for (let target = replicas.length - 1; target >= updateMin && budget > 0; target--) {
      const pod = (replicas[target] as Replica).pod;
      if (podRevision(pod) === status.updateRevision || isTerminating(pod)) continue;
      await this.#deleteOutdated(set, pod, status);
      budget--;
    }
  }

  /** Deletes a pod for the rolling update (one already gone is fine). */
  async #deleteOutdated(set: KubeObject, pod: KubeObject, status: StatefulSetStatus): Promise<void> {
    await this.#pods.delete(set, pod).catch((err: unknown) => {
      if (!(err instanceof StatusError && err.status.code === 404)) throw err;
    });
    status.currentReplicas--;
  }

  /** newVersionedStatefulSetPod: below the partition (or currentReplicas without one) at the current revision. */
  #newPod(set: KubeObject, status: StatefulSetStatus, currentTemplate: JsonObject, updateTemplate: JsonObject, ordinal: number): KubeObject {
    const start = startOrdinal(set);
    const partition = partitionOf(set);
    const observedCurrent = Number(readPath(set, ['status', 'currentReplicas']) ?? 0);
    const atCurrent = isRollingUpdate(set) && (partition === undefined ? ordinal < start + observedCurrent : ordinal < start + partition);
    return atCurrent ? newStatefulSetPod(set, currentTemplate, status.currentRevision, ordinal) : newStatefulSetPod(set, updateTemplate, status.updateRevision, ordinal);
  }

  /** processReplica: true when an OrderedReady sync must stop here. */
  async #processReplica(set: KubeObject, replica: Replica, monotonic: boolean): Promise<boolean> {
    const { pod } = replica;
    const phase = podPhase(pod);
    if (replica.created && (phase === 'Failed' || phase === 'Succeeded')) {
      // The replacement is created by a later sync, once this pod is gone.
      if (!isTerminating(pod)) await this.#pods.delete(set, pod);
      return true;
    }
    if (!replica.created) {
      await this.#pods.create(set, pod);
      return monotonic;
    }
    if (monotonic && (isTerminating(pod) || !isRunningAndReady(pod) || !this.#available(pod, set))) return true;
    if (identityMatches(set, pod) && storageMatches(set, pod)) return false;
    await this.#pods.update(set, pod);
    return false;
  }

  /** processCondemned: OrderedReady waits for terminations and for every other pod to be healthy. */
  async #processCondemned(set: KubeObject, pod: KubeObject, firstUnavailable: KubeObject | undefined, monotonic: boolean): Promise<boolean> {
    if (isTerminating(pod)) return monotonic;
    if (monotonic && pod !== firstUnavailable && (!isRunningAndReady(pod) || !this.#available(pod, set))) return true;
    await this.#pods.delete(set, pod);
    return true;
  }

  /** updateStatefulSetStatus: completes a finished rolling update, then writes a changed status. */
  async #writeStatus(set: KubeObject, status: StatefulSetStatus): Promise<void> {
    const replicas = specReplicas(set);
    if (isRollingUpdate(set) && status.updatedReplicas === replicas && status.readyReplicas === replicas && status.replicas === replicas) {
      status.currentReplicas = status.updatedReplicas;
      status.currentRevision = status.updateRevision;
    }
    const old = (set.status ?? {}) as Partial<StatefulSetStatus>;
    const n = (v: number | undefined): number => v ?? 0;
    const changed =
      status.observedGeneration > n(old.observedGeneration) ||
      status.replicas !== n(old.replicas) ||
      status.currentReplicas !== n(old.currentReplicas) ||
      status.readyReplicas !== n(old.readyReplicas) ||
      status.updatedReplicas !== n(old.updatedReplicas) ||
      status.currentRevision !== (old.currentRevision ?? '') ||
      status.availableReplicas !== n(old.availableReplicas) ||
      status.updateRevision !== (old.updateRevision ?? '');
    if (!changed) return;
    let latest = set;
    for (let attempt = 0; ; attempt++) {
      try {
        await this.#ctx.client.update(statefulSetKind, { ...latest, status: statusJson(status) }, { namespace: set.metadata.namespace, subresource: 'status' });
        return;
      } catch (err) {
        if (!(err instanceof StatusError && err.status.code === 409) || attempt >= 4) throw err;
        const fresh = this.#ctx.store.get(statefulSetsStorage, `${set.metadata.namespace}/${set.metadata.name}`)?.object;
        if (!fresh || fresh.metadata.uid !== set.metadata.uid) throw err;
        latest = fresh;
      }
    }
  }
}

/** StatefulSetStatus as Go serializes it: zero omitempty fields left out, availableReplicas always. */
function statusJson(s: StatefulSetStatus): JsonObject {
  const out: JsonObject = {};
  if (s.observedGeneration) out.observedGeneration = s.observedGeneration;
  out.replicas = s.replicas;
  if (s.readyReplicas) out.readyReplicas = s.readyReplicas;
  if (s.currentReplicas) out.currentReplicas = s.currentReplicas;
  if (s.updatedReplicas) out.updatedReplicas = s.updatedReplicas;
  if (s.currentRevision) out.currentRevision = s.currentRevision;
  if (s.updateRevision) out.updateRevision = s.updateRevision;
  out.collisionCount = s.collisionCount;
  out.availableReplicas = s.availableReplicas;
  return out;
}

/** runForAll: OrderedReady goes in order and stops at the first step that must wait; Parallel bursts. */
async function runForAll<T>(items: readonly T[], monotonic: boolean, fn: (item: T) => Promise<boolean>): Promise<boolean> {
  if (!monotonic) {
    let next = 0;
    const { error } = await slowStartBatch(items.length, slowStartInitialBatchSize, async () => {
      await fn(items[next++] as T);
    });
    if (error !== undefined) throw error;
    return false;
  }
  for (const item of items) if (await fn(item)) return true;
  return false;
}
