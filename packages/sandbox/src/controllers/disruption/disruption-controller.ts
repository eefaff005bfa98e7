// kube-controller-manager's disruption controller: keeps every PodDisruptionBudget's status through
// `/status`. A budget is synced when it changes and when a pod it is the first budget of changes;
// the sync counts the selected pods (expectedPods, desiredHealthy: ./expected-pods.ts), the healthy
// ones (Ready, not being deleted, not evicted within the last 2 minutes) and the disruptions left,
// keeps the eviction REST's disruptedPods entries until the pods are seen going (or 2 minutes pass),
// and sets the DisruptionAllowed condition. A sync that fails sets disruptionsAllowed to 0 with the
// condition False, reason SyncFailed (the failSafe); a conflict only retries. Events are the real ones
// (source `controllermanager`): NoPods, CalculateExpectedPodCountFailed, UnmanagedPods on the budget,
// NotDeleted and MultiplePodDisruptionBudgets on pods.

import { StatusError } from '../../errors.ts';
import { setStatusCondition } from '../../meta/conditions.ts';
import { cloneJson, isJsonObject, keyOf, type KubeObject } from '../../meta/object.ts';
import { parseTimestamp } from '../../meta/time.ts';
import { budgetSelects, conditionsAreUpToDate, readBudgetStatus, renderBudgetStatus, updateDisruptionAllowedCondition, type BudgetStatus } from '../../policy/budget-status.ts';
import { labelSelectorFromObject } from '../../selectors/label-selector.ts';
import { matchesLabels } from '../../selectors/labels.ts';
import type { StoreEvent } from '../../storage/store.ts';
import { errorText } from '../apps/pod-control.ts';
import { isPodReady } from '../apps/pod-state.ts';
import { DelayedKeys } from '../delayed-keys.ts';
import { EventRecorder } from '../event-recorder.ts';
import { followStore, type Controller, type ControllerContext } from '../in-process-controller.ts';
import { SerialKeyQueue } from '../serial-key-queue.ts';
import { expectedPods } from './expected-pods.ts';
import { staleDisruptionCleanup } from './stale-disruption-condition.ts';

export const pdbStorage = 'poddisruptionbudgets.policy';
const pdbResource = { group: 'policy', version: 'v1', resource: 'poddisruptionbudgets' };
/** DeletionTimeout: how long an eviction's disruptedPods entry waits for the pod's deletion. */
export const deletionTimeoutMs = 120_000;

/** A *metav1.LabelSelector printed with %v: its generated protobuf String(). */
function protoLabelSelectorText(selector: unknown): string {
  if (!isJsonObject(selector)) return 'nil';
  const labels = isJsonObject(selector.matchLabels) ? selector.matchLabels : {};
  const expressions = Array.isArray(selector.matchExpressions) ? selector.matchExpressions.filter(isJsonObject) : [];
  const labelText = Object.keys(labels)
    .sort()
    .map((k) => `${k}: ${String(labels[k])},`)
    .join('');
  const expressionText = expressions
    .map((e) => `LabelSelectorRequirement{Key:${String(e.key ?? '')},Operator:${String(e.operator ?? '')},Values:[${(Array.isArray(e.values) ? e.values : []).join(' ')}],},`)
    .join('');
  return `&LabelSelector{MatchLabels:map[string]string{${labelText}},MatchExpressions:[]LabelSelectorRequirement{${expressionText}},}`;
}

const sameDisruptedPods = (a: Record<string, string>, b: Record<string, string>): boolean =>
  Object.keys(a).length === Object.keys(b).length && Object.entries(a).every(([pod, time]) => b[pod] !== undefined && parseTimestamp(b[pod]) === parseTimestamp(time));

export const disruptionController: Controller = {
  name: 'disruption-controller',
  start(ctx: ControllerContext): () => void {
    const recorder = new EventRecorder(ctx.client, 'controllermanager', ctx.clock);

    const budgetsOf = (pod: KubeObject): KubeObject[] =>
      ctx.store
        .list(pdbStorage, `${pod.metadata.namespace}/`)
        .map((e) => e.object)
        .filter((pdb) => budgetSelects(pdb, pod.metadata.labels));

    /** getPdbForPod: the first budget covering the pod; only that one is synced for the pod's changes. */
    const enqueueBudgetOf = (pod: KubeObject): void => {
      const [first, ...others] = budgetsOf(pod);
      if (!first) return;
      if (others.length) {
        const message = `Pod ${JSON.stringify(pod.metadata.namespace)}/${JSON.stringify(pod.metadata.name)} matches multiple PodDisruptionBudgets.  Chose ${JSON.stringify(first.metadata.name)} arbitrarily.`;
        recorder.warning(pod, 'MultiplePodDisruptionBudgets', message);
      }
      queue.add(keyOf(first));
    };

    const podsOf = (pdb: KubeObject): KubeObject[] => {
      const selector = labelSelectorFromObject(isJsonObject(pdb.spec) ? pdb.spec.selector : undefined);
      return ctx.store
        .list('pods', `${pdb.metadata.namespace}/`)
        .map((e) => e.object)
        .filter((pod) => matchesLabels(selector, pod.metadata.labels));
    };

    const writeStatus = (pdb: KubeObject, status: BudgetStatus): Promise<KubeObject> =>
      ctx.client.update(pdbResource, { ...cloneJson(pdb), status: renderBudgetStatus(status) }, { namespace: pdb.metadata.namespace, subresource: 'status' });

    /** buildDisruptedPodMap: entries of pods not yet being deleted, unless their time ran out; and when to look again. */
    const disruptedPodsOf = (pdb: KubeObject, pods: readonly KubeObject[], now: number): { disrupted: Record<string, string>; recheckAt: number | undefined } => {
      const previous = readBudgetStatus(pdb).disruptedPods;
      const disrupted: Record<string, string> = {};
      let recheckAt: number | undefined;
      for (const pod of pods) {
        const name = pod.metadata.name ?? '';
        const time = previous[name];
        if (pod.metadata.deletionTimestamp || time === undefined) continue;
        const expectedDeletion = (parseTimestamp(time) ?? 0) + deletionTimeoutMs;
        if (expectedDeletion < now) {
          // The real message names the budget's namespace twice.
          recorder.warning(pod, 'NotDeleted', `Pod was expected by PDB ${pdb.metadata.namespace}/${pdb.metadata.namespace} to be deleted but it wasn't`);
          continue;
        }
        recheckAt = recheckAt === undefined ? expectedDeletion : Math.min(recheckAt, expectedDeletion);
        disrupted[name] = time;
      }
      return { disrupted, recheckAt };
    };

    const countHealthy = (pods: readonly KubeObject[], disrupted: Record<string, string>, now: number): number =>
      pods.filter((pod) => {
        if (pod.metadata.deletionTimestamp) return false;
        const time = disrupted[pod.metadata.name ?? ''];
        if (time !== undefined && (parseTimestamp(time) ?? 0) + deletionTimeoutMs > now) return false;
        return isPodReady(pod);
      }).length;

    const trySync = async (pdb: KubeObject): Promise<void> => {
      let pods: KubeObject[];
      try {
        pods = podsOf(pdb);
      } catch (err) {
        recorder.warning(pdb, 'NoPods', `Failed to get pods: ${errorText(err)}`);
        throw err;
      }
      if (!pods.length) recorder.normal(pdb, 'NoPods', 'No matching pods found');
      let expected: ReturnType<typeof expectedPods>;
      try {
        expected = expectedPods(ctx, pdb, pods);
      } catch (err) {
        recorder.warning(pdb, 'CalculateExpectedPodCountFailed', `Failed to calculate the number of expected pods: ${errorText(err)}`);
        throw err;
      }
      if (expected.unmanagedPods.length) {
        const selector = protoLabelSelectorText(isJsonObject(pdb.spec) ? pdb.spec.selector : undefined);
        recorder.warning(
          pdb,
          'UnmanagedPods',
          `Pods selected by this PodDisruptionBudget (selector: ${selector}) were found to be unmanaged. As a result, the status of the PDB cannot be calculated correctly, which may result in undefined behavior. To account for these pods please set ".spec.minAvailable" field of the PDB to an integer value.`,
        );
      }
      const now = ctx.clock();
      const { disrupted, recheckAt } = disruptedPodsOf(pdb, pods, now);
      const currentHealthy = countHealthy(pods, disrupted, now);
      await updateStatus(pdb, { ...expected, currentHealthy, disrupted }, now);
      if (recheckAt !== undefined) recheck.addAfter(keyOf(pdb), recheckAt - now);
    };

    /** updatePdbStatus: written only when something differs (counts, entries, generation, condition). */
    const updateStatus = async (pdb: KubeObject, c: { expectedCount: number; desiredHealthy: number; currentHealthy: number; disrupted: Record<string, string> }, now: number): Promise<void> => {
      // No disruption while nothing is expected: a budget whose first pods appear is safe until synced.
      const disruptionsAllowed = c.expectedCount <= 0 ? 0 : Math.max(0, c.currentHealthy - c.desiredHealthy);
      const old = readBudgetStatus(pdb);
      const generation = pdb.metadata.generation ?? 0;
      if (
        old.currentHealthy === c.currentHealthy &&
        old.desiredHealthy === c.desiredHealthy &&
        old.expectedPods === c.expectedCount &&
        old.disruptionsAllowed === disruptionsAllowed &&
        sameDisruptedPods(old.disruptedPods, c.disrupted) &&
        old.observedGeneration === generation &&
        conditionsAreUpToDate(pdb)
      ) {
        return;
      }
      const status: BudgetStatus = {
        observedGeneration: generation,
        disruptedPods: c.disrupted,
        disruptionsAllowed,
        currentHealthy: c.currentHealthy,
        desiredHealthy: c.desiredHealthy,
        expectedPods: c.expectedCount,
        conditions: old.conditions,
      };
      await writeStatus(pdb, { ...status, conditions: updateDisruptionAllowedCondition(status, now) });
    };

    /** failSafe: whatever else failed, no disruption is allowed, and the condition says why. */
    const failSafe = async (pdb: KubeObject, err: unknown): Promise<void> => {
      const status = readBudgetStatus(pdb);
      const conditions = setStatusCondition(
        status.conditions,
        { type: 'DisruptionAllowed', status: 'False', reason: 'SyncFailed', message: errorText(err), observedGeneration: status.observedGeneration },
        ctx.clock(),
      );
      await writeStatus(pdb, { ...status, disruptionsAllowed: 0, conditions });
    };

    const sync = async (key: string): Promise<void> => {
      const pdb = ctx.store.get(pdbStorage, key)?.object;
      if (!pdb) return;
      try {
        await trySync(pdb);
      } catch (err) {
        if (err instanceof StatusError && err.status.code === 409) throw err;
        await failSafe(pdb, err);
      }
    };

    const queue = new SerialKeyQueue(sync);
    const recheck = new DelayedKeys((key) => queue.add(key));
    const stale = staleDisruptionCleanup(ctx);

    const observe = (event: StoreEvent): void => {
      if (event.resource === pdbStorage) {
        queue.add(event.key);
        return;
      }
      if (event.resource !== 'pods') return;
      enqueueBudgetOf(event.object);
      if (event.type !== 'DELETED') stale.observe(event.object);
    };
    return followStore(ctx, ['pods', pdbStorage], observe, () => {
      queue.stop();
      recheck.stop();
      stale.stop();
    });
  },
};
