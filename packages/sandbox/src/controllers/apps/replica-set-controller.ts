// kube-controller-manager's ReplicaSet controller: keeps `spec.replicas` active pods, created from the
// template (generateName `<rs>-`, controller reference) in slow-start batches of at most 500 and deleted
// in the real ranking order; adopts matching orphans and releases pods that stopped matching; waits on
// expectations for its own writes; reports replicas, fullyLabeledReplicas, readyReplicas,
// availableReplicas (after minReadySeconds), observedGeneration and a ReplicaFailure condition; retries
// a failed create or delete (a webhook's denial) with kube-controller-manager's backoff (5 ms doubling per
// failure, up to 1000 s, reset on success): only a change to the ReplicaSet or its pods brings it back sooner.

import { cloneJson, isJsonObject, jsonEqual, keyOf, objectKey, type JsonObject, type KubeObject } from '../../meta/object.ts';
import { formatTimestamp } from '../../meta/time.ts';
import { matchesLabels } from '../../selectors/labels.ts';
import type { StoreEvent } from '../../storage/store.ts';
import { followStore, type Controller, type ControllerContext } from '../in-process-controller.ts';
import { EventRecorder } from '../event-recorder.ts';
import { controllerManagerRetry, SerialKeyQueue } from '../serial-key-queue.ts';
import { claimObjects, controllerRefOf, newControllerRef, type OwnerKind } from './controller-ref.ts';
import { ControllerIndex } from './controller-index.ts';
import { errorText, isNotFound, namespaceTerminating, PodControl, podsResource } from './pod-control.ts';
import { podsToDelete } from './pod-deletion-rank.ts';
import { isPodActive, isPodAvailable, isPodReady } from './pod-state.ts';
import { slowStartBatch, slowStartInitialBatchSize } from './slow-start-batch.ts';
import { UidTrackingExpectations } from './uid-tracking-expectations.ts';
import { conditionsOf, minReadySecondsOf, selectorOf, selects, specReplicas, statusCount } from './workload-fields.ts';

export const replicaSetStorage = 'replicasets.apps';
export const replicaSetKind: OwnerKind = { group: 'apps', version: 'v1', resource: 'replicasets', kind: 'ReplicaSet' };
const burstReplicas = 500;
const statusUpdateRetries = 1;

export interface ReplicaSetCondition {
  type: string;
  status: string;
  lastTransitionTime?: string;
  reason?: string;
  message?: string;
}

/** The ReplicaSet status in the apps/v1 field order, zero counters omitted. */
function renderStatus(counts: { replicas: number; fullyLabeledReplicas: number; readyReplicas: number; availableReplicas: number }, observedGeneration: number, conditions: ReplicaSetCondition[]): JsonObject {
  const status: JsonObject = { replicas: counts.replicas };
  if (counts.fullyLabeledReplicas) status.fullyLabeledReplicas = counts.fullyLabeledReplicas;
  if (counts.readyReplicas) status.readyReplicas = counts.readyReplicas;
  if (counts.availableReplicas) status.availableReplicas = counts.availableReplicas;
  if (observedGeneration) status.observedGeneration = observedGeneration;
  if (conditions.length) status.conditions = conditions;
  return status;
}

export const replicaSetController: Controller = {
  name: 'replicaset-controller',
  start(ctx: ControllerContext): () => void {
    const recorder = new EventRecorder(ctx.client, 'replicaset-controller', ctx.clock);
    const podControl = new PodControl(ctx.client, recorder);
    const expectations = new UidTrackingExpectations(ctx.clock);
    const podIndex = new ControllerIndex('pods');
    const replicaSetIndex = new ControllerIndex(replicaSetStorage);

    const replicaSetFor = (namespace: string | undefined, ref: { kind: string; name: string; uid: string }): KubeObject | undefined => {
      if (ref.kind !== 'ReplicaSet') return undefined;
      const rs = ctx.store.get(replicaSetStorage, objectKey(namespace, ref.name))?.object;
      return rs?.metadata.uid === ref.uid ? rs : undefined;
    };

    /** GetPodReplicaSets: the ReplicaSets of the pod's namespace whose selector matches it. */
    const replicaSetsSelecting = (pod: KubeObject): KubeObject[] =>
      ctx.store
        .list(replicaSetStorage, `${pod.metadata.namespace}/`)
        .map((e) => e.object)
        .filter((rs) => selects(rs, pod.metadata.labels));

    const enqueue = (rs: KubeObject | undefined): void => {
      if (rs) queue.add(keyOf(rs));
    };

    const podDeleted = (pod: KubeObject): void => {
      const ref = controllerRefOf(pod);
      const rs = ref && replicaSetFor(pod.metadata.namespace, ref);
      if (!rs) return;
      expectations.deletionObserved(keyOf(rs), keyOf(pod));
      enqueue(rs);
    };

    const podEvent = (event: StoreEvent): void => {
      const pod = event.object;
      if (event.type === 'DELETED') return podDeleted(pod);
      if (event.type === 'ADDED') {
        if (pod.metadata.deletionTimestamp) return podDeleted(pod);
        const ref = controllerRefOf(pod);
        if (ref) {
          const rs = replicaSetFor(pod.metadata.namespace, ref);
          if (rs) {
            expectations.creationObserved(keyOf(rs));
            enqueue(rs);
          }
          return;
        }
        for (const rs of replicaSetsSelecting(pod)) enqueue(rs);
        return;
      }
      const old = event.previous;
      if (!old) return;
      const labelsChanged = !jsonEqual(old.metadata.labels ?? {}, pod.metadata.labels ?? {});
      if (pod.metadata.deletionTimestamp) {
        podDeleted(pod);
        if (labelsChanged) podDeleted(old);
        return;
      }
      const ref = controllerRefOf(pod);
      const oldRef = controllerRefOf(old);
      const refChanged = !jsonEqual(ref, oldRef);
      if (refChanged && oldRef) enqueue(replicaSetFor(old.metadata.namespace, oldRef));
      if (ref) {
        const rs = replicaSetFor(pod.metadata.namespace, ref);
        if (!rs) return;
        enqueue(rs);
        const minReadySeconds = minReadySecondsOf(rs);
        // Check availability again once the pod has been ready for minReadySeconds.
        if (!isPodReady(old) && isPodReady(pod) && minReadySeconds > 0) queue.addAfter(keyOf(rs), minReadySeconds * 1000 + 1000);
        return;
      }
      if (labelsChanged || refChanged) for (const rs of replicaSetsSelecting(pod)) enqueue(rs);
    };

    const replicaSetEvent = (event: StoreEvent): void => {
      if (event.type === 'DELETED') expectations.delete(event.key);
      queue.add(event.key);
    };

    /** getIndirectlyRelatedPods: the pods selected by this ReplicaSet and its siblings under one controller. */
    const relatedPods = (rs: KubeObject): KubeObject[] => {
      const ref = controllerRefOf(rs);
      const family = ref
        ? [...replicaSetIndex.controlledBy(ref.uid)].flatMap((k) => ctx.store.get(replicaSetStorage, k)?.object ?? [])
        : [rs];
      const namespacePods = ctx.store.list('pods', `${rs.metadata.namespace}/`).map((e) => e.object);
      const seen = new Set<string>();
      const related: KubeObject[] = [];
      for (const member of family) {
        const selector = selectorOf(member);
        if (!selector) continue;
        for (const pod of namespacePods) {
          const uid = pod.metadata.uid ?? '';
          if (seen.has(uid) || !matchesLabels(selector, pod.metadata.labels)) continue;
          seen.add(uid);
          related.push(pod);
        }
      }
      return related;
    };

    const manageReplicas = async (key: string, rs: KubeObject, pods: KubeObject[]): Promise<void> => {
      const namespace = rs.metadata.namespace ?? '';
      const diff = pods.length - specReplicas(rs);
      if (diff < 0) {
        const count = Math.min(-diff, burstReplicas);
        expectations.expectCreations(key, count);
        const template = isJsonObject(rs.spec) ? rs.spec.template : undefined;
        const controllerRef = newControllerRef(rs, replicaSetKind);
        const { successes, error } = await slowStartBatch(count, slowStartInitialBatchSize, async () => {
          try {
            await podControl.createPod(namespace, template, rs, controllerRef);
          } catch (err) {
            // Every create fails in a terminating namespace: nothing to report or retry.
            if (!namespaceTerminating(err)) throw err;
          }
        });
        if (count > successes) expectations.creationsSkipped(key, count - successes);
        if (error !== undefined) throw error;
        return;
      }
      if (diff === 0) return;
      const victims = podsToDelete(pods, relatedPods(rs), Math.min(diff, burstReplicas), ctx.clock());
      expectations.expectDeletions(key, victims.map(keyOf));
      const failures = await Promise.all(
        victims.map(async (pod) => {
          try {
            await podControl.deletePod(namespace, pod.metadata.name ?? '', rs);
            return undefined;
          } catch (err) {
            // The store will not show this deletion: stop waiting for it.
            expectations.deletionObserved(key, keyOf(pod));
            return isNotFound(err) ? undefined : err;
          }
        }),
      );
      const failure = failures.find((f) => f !== undefined);
      if (failure !== undefined) throw failure;
    };

    const calculateStatus = (rs: KubeObject, pods: KubeObject[], manageError: unknown): { counts: Parameters<typeof renderStatus>[0]; conditions: ReplicaSetCondition[] } => {
      const now = ctx.clock();
      const minReadySeconds = minReadySecondsOf(rs);
      const templateLabels = (readTemplateLabels(rs) ?? {}) as Record<string, string>;
      let fullyLabeledReplicas = 0;
      let readyReplicas = 0;
      let availableReplicas = 0;
      for (const pod of pods) {
        const labels = pod.metadata.labels ?? {};
        if (Object.entries(templateLabels).every(([k, v]) => labels[k] === v)) fullyLabeledReplicas++;
        if (isPodReady(pod)) {
          readyReplicas++;
          if (isPodAvailable(pod, minReadySeconds, now)) availableReplicas++;
        }
      }
      let conditions = conditionsOf<ReplicaSetCondition>(rs);
      const failure = conditions.find((c) => c.type === 'ReplicaFailure');
      if (manageError !== undefined && !failure) {
        const diff = pods.length - specReplicas(rs);
        const reason = diff < 0 ? 'FailedCreate' : diff > 0 ? 'FailedDelete' : '';
        const condition: ReplicaSetCondition = { type: 'ReplicaFailure', status: 'True', lastTransitionTime: formatTimestamp(now), reason, message: errorText(manageError) };
        if (!reason) delete condition.reason;
        conditions = [...conditions, condition];
      } else if (manageError === undefined && failure) {
        conditions = conditions.filter((c) => c.type !== 'ReplicaFailure');
      }
      return { counts: { replicas: pods.length, fullyLabeledReplicas, readyReplicas, availableReplicas }, conditions };
    };

    /** updateReplicaSetStatus: writes through /status unless nothing changed; one retry on a fresh copy. */
    const updateStatus = async (rs: KubeObject, computed: ReturnType<typeof calculateStatus>): Promise<KubeObject> => {
      const generation = rs.metadata.generation ?? 0;
      const { counts, conditions } = computed;
      const unchanged =
        statusCount(rs, 'replicas') === counts.replicas &&
        statusCount(rs, 'fullyLabeledReplicas') === counts.fullyLabeledReplicas &&
        statusCount(rs, 'readyReplicas') === counts.readyReplicas &&
        statusCount(rs, 'availableReplicas') === counts.availableReplicas &&
        statusCount(rs, 'observedGeneration') === generation &&
        jsonEqual(conditionsOf(rs), conditions);
      if (unchanged) return rs;
      const status = renderStatus(counts, generation, conditions);
      let current = rs;
      for (let attempt = 0; ; attempt++) {
        try {
          return await ctx.client.update(replicaSetKind, { ...cloneJson(current), status }, { namespace: rs.metadata.namespace, subresource: 'status' });
        } catch (err) {
          if (attempt >= statusUpdateRetries) throw err;
          current = await ctx.client.get(replicaSetKind, rs.metadata.name ?? '', { namespace: rs.metadata.namespace });
        }
      }
    };

    const sync = async (key: string): Promise<void> => {
      const rs = ctx.store.get(replicaSetStorage, key)?.object;
      if (!rs) {
        expectations.delete(key);
        return;
      }
      const needsSync = expectations.satisfied(key);
      const selector = selectorOf(rs);
      if (!selector) return;
      const namespace = rs.metadata.namespace ?? '';
      const candidates = [...podIndex.controlledBy(rs.metadata.uid ?? ''), ...podIndex.orphansIn(namespace)]
        .flatMap((k) => ctx.store.get('pods', k)?.object ?? [])
        .filter(isPodActive);
      const pods = await claimObjects(candidates, {
        client: ctx.client,
        resource: podsResource,
        owner: rs,
        ownerKind: replicaSetKind,
        matches: (pod) => matchesLabels(selector, pod.metadata.labels),
      });
      let manageError: unknown;
      if (needsSync && !rs.metadata.deletionTimestamp) await manageReplicas(key, rs, pods).catch((err: unknown) => (manageError = err));
      const updated = await updateStatus(rs, calculateStatus(rs, pods, manageError));
      const replicas = specReplicas(updated);
      const minReadySeconds = minReadySecondsOf(updated);
      // Resync after minReadySeconds to count pods that become available by then.
      if (manageError === undefined && minReadySeconds > 0 && statusCount(updated, 'readyReplicas') === replicas && statusCount(updated, 'availableReplicas') !== replicas) {
        queue.addAfter(key, minReadySeconds * 1000);
      }
      if (manageError !== undefined) throw manageError;
    };

    const queue = new SerialKeyQueue(sync, { retryDelay: controllerManagerRetry });
    const observe = (event: StoreEvent): void => {
      podIndex.observe(event);
      replicaSetIndex.observe(event);
      if (event.resource === 'pods') podEvent(event);
      else if (event.resource === replicaSetStorage) replicaSetEvent(event);
    };
    return followStore(ctx, ['pods', replicaSetStorage], observe, () => queue.stop());
  },
};

function readTemplateLabels(rs: KubeObject): unknown {
  const spec = rs.spec;
  if (!isJsonObject(spec) || !isJsonObject(spec.template) || !isJsonObject(spec.template.metadata)) return undefined;
  return spec.template.metadata.labels;
}
