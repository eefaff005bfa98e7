// kube-controller-manager's DaemonSet controller, in process: one pod per node that should run the
// daemon (created without nodeName, pinned to its node by node affinity, for the scheduler to bind),
// none elsewhere; failed daemon pods are deleted (with a per-node back-off) and succeeded ones too, so
// the manage loop recreates them; RollingUpdate replaces old pods within maxUnavailable/maxSurge,
// OnDelete leaves them until they are deleted. Revisions, status and events as the real controller's.

import { cloneJson, isJsonObject, jsonEqual, keyOf, readPath, type JsonObject, type KubeObject } from '../../meta/object.ts';
import { isEverything } from '../../selectors/labels.ts';
import { replayedAdd, type StoreEvent } from '../../storage/store.ts';
import type { Controller, ControllerContext } from '../in-process-controller.ts';
import { EventRecorder } from '../event-recorder.ts';
import { SerialKeyQueue } from '../serial-key-queue.ts';
import { controllerRevisionsStorage } from './controller-history.ts';
import { ControllerIndex } from './controller-index.ts';
import { claimObjects, controllerRefOf, newControllerRef, ownersSelecting, resolveControllerRef } from './controller-ref.ts';
import { cleanupHistory, constructHistory, daemonRevisionLabel, daemonSetKind, daemonSetsStorage } from './daemonset-history.ts';
import { rollingUpdateStep, surgeAndUnavailable } from './daemonset-rolling-update.ts';
import { daemonPodTemplate } from './daemonset-pod-template.ts';
import { nodeShouldRunDaemonPod, pinToNode, targetNodeName, type NodePlacement } from './daemonset-scheduling.ts';
import { compareDaemonPods, countDaemonPods, storeDaemonSetStatus } from './daemonset-status.ts';
import { Expectations } from './expectations.ts';
import { isNotFound, namespaceTerminating, PodControl, podsResource } from './pod-control.ts';
import { routePodEvent } from './pod-events.ts';
import { isPodAvailable, isPodReady, isPodTerminal, podPhase } from './pod-state.ts';
import { slowStartBatch, slowStartInitialBatchSize } from './slow-start-batch.ts';
import { minReadySecondsOf, selectorOf, selects } from './workload-fields.ts';

const burstReplicas = 250;
const failedPodBackoffInitialMs = 1000;
const failedPodBackoffMaxMs = 15 * 60_000;

/** flowcontrol.Backoff for deleting failed daemon pods: 1 s doubling to 15 min per DaemonSet generation and node. */
class FailedPodsBackoff {
  readonly #entries = new Map<string, { delay: number; updated: number }>();

  /** The remaining delay when still backing off since the last attempt, else undefined. */
  inBackoff(key: string, now: number): number | undefined {
    const entry = this.#entries.get(key);
    return entry && now - entry.updated < entry.delay ? entry.delay : undefined;
  }

  next(key: string, now: number): void {
    const entry = this.#entries.get(key);
    const delay = !entry || now - entry.updated > 2 * failedPodBackoffMaxMs ? failedPodBackoffInitialMs : Math.min(entry.delay * 2, failedPodBackoffMaxMs);
    this.#entries.set(key, { delay, updated: now });
  }
}

/** shouldIgnoreNodeUpdate: only the set of True conditions and the rest of the node matter. */
function nodeChangeMatters(previous: KubeObject, current: KubeObject): boolean {
  const trueConditions = (node: KubeObject): string[] => {
    const conditions = readPath(node, ['status', 'conditions']);
    return (Array.isArray(conditions) ? conditions : []).filter((c) => isJsonObject(c) && c.status === 'True').map((c) => String((c as JsonObject).type)).sort();
  };
  if (!jsonEqual(trueConditions(previous), trueConditions(current))) return true;
  const comparable = (node: KubeObject): unknown => {
    const { resourceVersion: _rv, managedFields: _mf, ...metadata } = node.metadata;
    const status = isJsonObject(node.status) ? { ...node.status, conditions: undefined } : node.status;
    return { ...node, metadata, status };
  };
  return !jsonEqual(comparable(previous), comparable(current));
}

export const daemonSetController: Controller = {
  name: 'daemonset-controller',
  start(ctx: ControllerContext): () => void {
    const recorder = new EventRecorder(ctx.client, 'daemonset-controller', ctx.clock);
    const podControl = new PodControl(ctx.client, recorder);
    const expectations = new Expectations(ctx.clock);
    const failedPodsBackoff = new FailedPodsBackoff();
    const podIndex = new ControllerIndex('pods');
    const nodes = (): KubeObject[] => ctx.store.list('nodes').map((e) => e.object);
    const placement = (node: KubeObject, ds: KubeObject): NodePlacement => nodeShouldRunDaemonPod(node, ds);

    /** getDaemonPods: the pods the DaemonSet controls, after adoption and release. */
    const daemonPods = (ds: KubeObject): Promise<KubeObject[]> => {
      const candidates = [...podIndex.controlledBy(ds.metadata.uid ?? ''), ...podIndex.orphansIn(ds.metadata.namespace ?? '')];
      return claimObjects(
        candidates.flatMap((k) => ctx.store.get('pods', k)?.object ?? []),
        { client: ctx.client, resource: podsResource, owner: ds, ownerKind: daemonSetKind, matches: (pod) => selects(ds, pod.metadata.labels) },
      );
    };

    /** getNodesToDaemonPods: claimed pods by target node (deleted terminal pods left out unless asked for). */
    const nodesToDaemonPods = async (ds: KubeObject, includeDeletedTerminal = false): Promise<Map<string, KubeObject[]>> => {
      const byNode = new Map<string, KubeObject[]>();
      for (const pod of await daemonPods(ds)) {
        if (!includeDeletedTerminal && isPodTerminal(pod) && pod.metadata.deletionTimestamp) continue;
        const node = targetNodeName(pod);
        if (node === undefined) continue;
        byNode.set(node, [...(byNode.get(node) ?? []), pod]);
      }
      return byNode;
    };

    /** podsShouldBeOnNode: the node needs a pod, or some of its pods must go. */
    const podsShouldBeOnNode = (ds: KubeObject, node: KubeObject, byNode: Map<string, KubeObject[]>, hash: string): { create: boolean; remove: string[] } => {
      const { shouldRun, shouldContinueRunning } = placement(node, ds);
      const nodeName = node.metadata.name ?? '';
      const pods = byNode.get(nodeName);
      const remove: string[] = [];
      if (shouldRun && !pods) return { create: true, remove };
      if (shouldContinueRunning) {
        const running: KubeObject[] = [];
        for (const pod of pods ?? []) {
          if (pod.metadata.deletionTimestamp) continue;
          const where = `${pod.metadata.namespace}/${pod.metadata.name} on node ${nodeName}`;
          if (podPhase(pod) === 'Failed') {
            // The real controller fights kubelets that reject pods with a back-off, not a hot loop.
            const backoffKey = `${ds.metadata.uid}/${readPath(ds, ['status', 'observedGeneration']) ?? 0}/${nodeName}`;
            const delay = failedPodsBackoff.inBackoff(backoffKey, ctx.clock());
            if (delay !== undefined) {
              queue.addAfter(keyOf(ds), delay);
              continue;
            }
            failedPodsBackoff.next(backoffKey, ctx.clock());
            recorder.warning(ds, 'FailedDaemonPod', `Found failed daemon pod ${where}, will try to kill it`);
            remove.push(pod.metadata.name ?? '');
          } else if (podPhase(pod) === 'Succeeded') {
            recorder.normal(ds, 'SucceededDaemonPod', `Found succeeded daemon pod ${where}, will try to delete it`);
            remove.push(pod.metadata.name ?? '');
          } else running.push(pod);
        }
        running.sort(compareDaemonPods);
        if (surgeAndUnavailable(ds, 1).maxSurge === 0) {
          // Without surge, only the oldest pod stays.
          remove.push(...running.slice(1).map((p) => p.metadata.name ?? ''));
          return { create: false, remove };
        }
        if (running.length <= 1) return { create: running.length === 0 && shouldRun, remove };
        // Surging: keep the oldest new and oldest old pod while the new one is not available yet.
        let oldestNew: KubeObject | undefined;
        let oldestOld: KubeObject | undefined;
        for (const pod of running) {
          const isNew = pod.metadata.labels?.[daemonRevisionLabel] === hash;
          if (isNew && !oldestNew) oldestNew = pod;
          else if (!isNew && !oldestOld) oldestOld = pod;
          else remove.push(pod.metadata.name ?? '');
        }
        if (oldestNew && oldestOld) {
          const minReady = minReadySecondsOf(ds);
          if (!isPodReady(oldestOld) || isPodAvailable(oldestNew, minReady, ctx.clock())) remove.push(oldestOld.metadata.name ?? '');
        }
        return { create: false, remove };
      }
      if (pods) for (const pod of pods) if (!pod.metadata.deletionTimestamp) remove.push(pod.metadata.name ?? '');
      return { create: false, remove };
    };

    /** syncNodes: creates pods on the nodes and deletes the pods, bounded by burstReplicas, expectations first. */
    const syncNodes = async (ds: KubeObject, podsToDelete: string[], nodesNeedingPods: string[], hash: string): Promise<void> => {
      const key = keyOf(ds);
      const namespace = ds.metadata.namespace ?? '';
      const createCount = Math.min(nodesNeedingPods.length, burstReplicas);
      const deleteCount = Math.min(podsToDelete.length, burstReplicas);
      expectations.expect(key, createCount, deleteCount);
      const errors: unknown[] = [];
      const template = daemonPodTemplate(ds, hash);
      const controllerRef = newControllerRef(ds, daemonSetKind);
      let attempted = 0;
      const { error } = await slowStartBatch(createCount, slowStartInitialBatchSize, async () => {
        const nodeName = nodesNeedingPods[attempted++] ?? '';
        const podTemplate = cloneJson(template);
        pinToNode(podTemplate.spec as JsonObject, nodeName);
        try {
          await podControl.createPod(namespace, podTemplate, ds, controllerRef);
        } catch (err) {
          // A terminating namespace fails every create: nothing to retry, nothing to report.
          if (namespaceTerminating(err)) return;
          expectations.creationObserved(key);
          throw err;
        }
      });
      if (error !== undefined) {
        errors.push(error);
        expectations.lower(key, createCount - attempted, 0);
      }
      await Promise.all(
        podsToDelete.slice(0, deleteCount).map(async (name) => {
          try {
            await podControl.deletePod(namespace, name, ds);
          } catch (err) {
            expectations.deletionObserved(key);
            if (!isNotFound(err)) errors.push(err);
          }
        }),
      );
      if (errors.length) throw errors.length === 1 ? errors[0] : new AggregateError(errors, errors.map(String).join(', '));
    };

    /** manage: a pod for each node that should run one, none where none should, none on missing nodes. */
    const manage = async (ds: KubeObject, nodeList: KubeObject[], hash: string): Promise<void> => {
      const byNode = await nodesToDaemonPods(ds);
      const nodesNeedingPods: string[] = [];
      const podsToDelete: string[] = [];
      for (const node of nodeList) {
        const { create, remove } = podsShouldBeOnNode(ds, node, byNode, hash);
        if (create) nodesNeedingPods.push(node.metadata.name ?? '');
        podsToDelete.push(...remove);
      }
      // Unscheduled pods pinned to nodes that do not exist: PodGC would never collect them.
      const existing = new Set(nodeList.map((n) => n.metadata.name));
      for (const [node, pods] of byNode) {
        if (!existing.has(node)) podsToDelete.push(...pods.filter((p) => !readPath(p, ['spec', 'nodeName'])).map((p) => p.metadata.name ?? ''));
      }
      await syncNodes(ds, podsToDelete, nodesNeedingPods, hash);
    };

    const rollingUpdate = async (ds: KubeObject, nodeList: KubeObject[], hash: string): Promise<void> => {
      const nodeToPods = await nodesToDaemonPods(ds);
      const shouldRun = new Map(nodeList.map((node) => [node.metadata.name ?? '', placement(node, ds).shouldRun]));
      let desired = 0;
      for (const [name, run] of shouldRun) {
        if (!run) continue;
        desired++;
        if (!nodeToPods.has(name)) nodeToPods.set(name, []);
      }
      const step = rollingUpdateStep({ ds, nodeToPods, desiredNumberScheduled: desired, shouldRun: (n) => shouldRun.get(n) ?? false, hash, now: ctx.clock() });
      await syncNodes(ds, step.podsToDelete, step.nodesToCreate, hash);
    };

    const updateStatus = async (ds: KubeObject, nodeList: KubeObject[], hash: string, updateObservedGeneration: boolean): Promise<void> => {
      const byNode = await nodesToDaemonPods(ds);
      const counts = countDaemonPods(ds, nodeList, byNode, (node) => placement(node, ds).shouldRun, hash, ctx.clock());
      await storeDaemonSetStatus(ctx.client, ds, counts, updateObservedGeneration, () => ctx.store.get(daemonSetsStorage, keyOf(ds))?.object);
      // Resync after minReadySeconds as a last line of defence against clock skew.
      const minReady = minReadySecondsOf(ds);
      if (minReady > 0 && counts.numberReady !== counts.numberAvailable) queue.addAfter(keyOf(ds), minReady * 1000);
    };

    const sync = async (key: string): Promise<void> => {
      const ds = ctx.store.get(daemonSetsStorage, key)?.object;
      if (!ds) {
        expectations.delete(key);
        return;
      }
      const nodeList = nodes();
      const selector = selectorOf(ds);
      if (selector && isEverything(selector)) {
        recorder.warning(ds, 'SelectingAll', 'This daemon set is selecting all pods. A non-empty selector is required.');
        return;
      }
      // The history of a DaemonSet being deleted may already be gone: no status is computed.
      if (ds.metadata.deletionTimestamp) return;
      const { hash, old } = await constructHistory(ctx, ds, () => [...podIndex.controlledBy(ds.metadata.uid ?? '')].flatMap((k) => ctx.store.get('pods', k)?.object ?? []));
      if (!expectations.satisfied(key)) {
        // Only the status: this sync did not act on the current generation.
        await updateStatus(ds, nodeList, hash, false);
        return;
      }
      let error: unknown;
      try {
        await manage(ds, nodeList, hash);
        if (expectations.satisfied(key) && readPath(ds, ['spec', 'updateStrategy', 'type']) === 'RollingUpdate') await rollingUpdate(ds, nodeList, hash);
        await cleanupHistory(ctx.client, ds, old, [...(await nodesToDaemonPods(ds, true)).values()].flat());
      } catch (err) {
        error = err;
      }
      try {
        await updateStatus(ds, nodeList, hash, true);
      } catch (statusError) {
        error ??= statusError;
      }
      if (error !== undefined) throw error;
    };
    const queue = new SerialKeyQueue(sync);

    const ownerOf = (object: KubeObject): KubeObject | undefined =>
      resolveControllerRef(ctx, daemonSetsStorage, daemonSetKind.kind, object.metadata.namespace, controllerRefOf(object));

    const podRouting = {
      ctx,
      storage: daemonSetsStorage,
      queue,
      ownerOf,
      created: (key: string) => expectations.creationObserved(key),
      deleted: (key: string) => expectations.deletionObserved(key),
    };

    const onRevision = (event: StoreEvent): void => {
      const revision = event.object;
      const owner = ownerOf(revision);
      if (owner) {
        queue.add(keyOf(owner));
        return;
      }
      if (event.type === 'DELETED' || controllerRefOf(revision)) return;
      const previous = event.previous;
      if (event.type === 'ADDED' || !previous || !jsonEqual(revision.metadata.labels, previous.metadata.labels) || controllerRefOf(previous)) {
        for (const ds of ownersSelecting(ctx, daemonSetsStorage, revision)) queue.add(keyOf(ds));
      }
    };

    const onNode = (event: StoreEvent): void => {
      if (event.type === 'DELETED') return;
      const previous = event.type === 'MODIFIED' ? event.previous : undefined;
      if (previous && !nodeChangeMatters(previous, event.object)) return;
      for (const entry of ctx.store.list(daemonSetsStorage)) {
        const ds = entry.object;
        const now = placement(event.object, ds);
        if (!previous) {
          if (now.shouldRun) queue.add(entry.key);
          continue;
        }
        const before = placement(previous, ds);
        if (before.shouldRun !== now.shouldRun || before.shouldContinueRunning !== now.shouldContinueRunning) queue.add(entry.key);
      }
    };

    const observe = (event: StoreEvent): void => {
      podIndex.observe(event);
      if (event.resource === daemonSetsStorage) {
        if (event.type === 'DELETED') expectations.delete(event.key);
        queue.add(event.key);
      } else if (event.resource === 'pods') routePodEvent(podRouting, event);
      else if (event.resource === controllerRevisionsStorage) onRevision(event);
      else if (event.resource === 'nodes') onNode(event);
    };
    for (const entry of ctx.store.list('pods')) {
      podIndex.observe(replayedAdd('pods', entry));
    }
    for (const entry of ctx.store.list(daemonSetsStorage)) queue.add(entry.key);
    const unsubscribe = ctx.subscribe(observe);
    return () => {
      unsubscribe();
      queue.stop();
    };
  },
};
