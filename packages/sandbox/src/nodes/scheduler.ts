// kube-scheduler's default profile, in process: each pending pod for `default-scheduler` (no
// nodeName, no scheduling gates, not deleted) is filtered against the nodes and bound to the best
// scoring one through `pods/binding`; a pod no node fits gets PodScheduled=False (Unschedulable, with
// the FitError message) through `pods/status`, and is tried again when a node changes or a pod
// leaves a node. Both outcomes are recorded as events (`Scheduled`, `FailedScheduling`). Node usage is
// kept incrementally from the pod events.

import { StatusError } from '../errors.ts';
import { isJsonObject, readPath, type JsonObject, type KubeObject } from '../meta/object.ts';
import { formatMicroTimestamp, formatTimestamp } from '../meta/time.ts';
import type { NodeContext, NodeController } from './node-context.ts';
import { SerialKeyQueue } from '../controllers/serial-key-queue.ts';
import {
  emptyUsage,
  filterNode,
  leastAllocatedScore,
  nonZeroRequests,
  podRequests,
  preferredAffinityWeight,
  unschedulableMessage,
  type NodeFailure,
  type NodeUsage,
  type ResourceAmounts,
} from './node-fit.ts';

const pods = { group: '', version: 'v1', resource: 'pods' };
const events = { group: 'events.k8s.io', version: 'v1', resource: 'events' };
const schedulerName = 'default-scheduler';

interface Assignment {
  node: string;
  requests: ResourceAmounts;
  nonZero: { cpu: bigint; memory: bigint };
}

const specOf = (pod: KubeObject): JsonObject => (isJsonObject(pod.spec) ? pod.spec : {});
const nodeNameOf = (pod: KubeObject): string => String(specOf(pod).nodeName ?? '');
const isTerminal = (pod: KubeObject): boolean => {
  const phase = readPath(pod, ['status', 'phase']);
  return phase === 'Succeeded' || phase === 'Failed';
};

function needsScheduling(pod: KubeObject): boolean {
  const spec = specOf(pod);
  return (
    !nodeNameOf(pod) &&
    (spec.schedulerName ?? schedulerName) === schedulerName &&
    !pod.metadata.deletionTimestamp &&
    !(Array.isArray(spec.schedulingGates) && spec.schedulingGates.length) &&
    !isTerminal(pod)
  );
}

export const scheduler: NodeController = {
  name: schedulerName,
  start(ctx: NodeContext): () => void {
    const client = ctx.clientAs({ username: 'system:kube-scheduler', userAgent: 'kube-scheduler/v1.32.0 (linux/amd64) kubernetes/0000000/scheduler' });
    const usage = new Map<string, NodeUsage>();
    const assignments = new Map<string, Assignment>();
    const unschedulable = new Set<string>();

    const apply = (a: Assignment, sign: 1n | -1n): void => {
      let u = usage.get(a.node);
      if (!u) usage.set(a.node, (u = emptyUsage()));
      u.pods += Number(sign);
      for (const [name, v] of a.requests) u.requested.set(name, (u.requested.get(name) ?? 0n) + sign * v);
      u.nonZero.cpu += sign * a.nonZero.cpu;
      u.nonZero.memory += sign * a.nonZero.memory;
    };

    /** Keeps node usage in step with a pod; true when the pod left a node (room for others). */
    const account = (key: string, pod: KubeObject | undefined): boolean => {
      const before = assignments.get(key);
      const node = pod && !isTerminal(pod) ? nodeNameOf(pod) : '';
      if (before?.node === (node || undefined)) return false;
      if (before) {
        apply(before, -1n);
        assignments.delete(key);
      }
      if (pod && node) {
        const spec = specOf(pod);
        const assignment = { node, requests: podRequests(spec), nonZero: nonZeroRequests(spec) };
        apply(assignment, 1n);
        assignments.set(key, assignment);
      }
      return before !== undefined && !node;
    };

    let lastEventNanos = 0n;
    /** An events.k8s.io Event as kube-scheduler's recorder writes it (`Scheduled`, `FailedScheduling`). */
    const record = async (pod: KubeObject, type: 'Normal' | 'Warning', reason: string, action: string, note: string): Promise<void> => {
      const now = ctx.clock();
      const nanos = BigInt(now) * 1_000_000n;
      lastEventNanos = nanos > lastEventNanos ? nanos : lastEventNanos + 1n;
      const namespace = pod.metadata.namespace;
      const event = {
        apiVersion: 'events.k8s.io/v1',
        kind: 'Event',
        metadata: { name: `${pod.metadata.name}.${lastEventNanos.toString(16)}`, namespace },
        eventTime: formatMicroTimestamp(now),
        reportingController: schedulerName,
        reportingInstance: `${schedulerName}-sandbox`,
        action,
        reason,
        regarding: { kind: 'Pod', namespace, name: pod.metadata.name, uid: pod.metadata.uid, apiVersion: 'v1', resourceVersion: pod.metadata.resourceVersion },
        note,
        type,
      };
      // As the broadcaster does, a failed event write is dropped.
      await client.create(events, event, { namespace }).catch(() => undefined);
    };

    const markUnschedulable = async (pod: KubeObject, reason: string, message: string): Promise<void> => {
      const conditions = readPath(pod, ['status', 'conditions']);
      const previous = Array.isArray(conditions) ? conditions.filter(isJsonObject).find((c) => c.type === 'PodScheduled') : undefined;
      if (previous?.status === 'False' && previous.reason === reason && previous.message === message) return;
      const condition = {
        type: 'PodScheduled',
        status: 'False',
        lastProbeTime: null,
        lastTransitionTime: previous?.status === 'False' && previous.lastTransitionTime ? previous.lastTransitionTime : formatTimestamp(ctx.clock()),
        reason,
        message,
      };
      await client.patch(pods, pod.metadata.name ?? '', 'strategic', { status: { conditions: [condition] } }, { namespace: pod.metadata.namespace, subresource: 'status' });
      await record(pod, 'Warning', 'FailedScheduling', 'Scheduling', message);
    };

    const pickNode = (pod: KubeObject, feasible: KubeObject[]): KubeObject | undefined => {
      const weights = feasible.map((node) => preferredAffinityWeight(pod, node));
      const maxWeight = Math.max(0, ...weights);
      let best: { node: KubeObject; score: number; pods: number } | undefined;
      feasible.forEach((node, i) => {
        const u = usage.get(node.metadata.name ?? '') ?? emptyUsage();
        const affinity = maxWeight > 0 ? Math.floor(((weights[i] ?? 0) * 100) / maxWeight) : 0;
        const score = leastAllocatedScore(pod, node, u) + 2 * affinity;
        if (!best || score > best.score || (score === best.score && u.pods < best.pods)) best = { node, score, pods: u.pods };
      });
      return best?.node;
    };

    const schedule = async (key: string): Promise<void> => {
      const pod = ctx.store.get('pods', key)?.object;
      if (!pod || !needsScheduling(pod)) {
        unschedulable.delete(key);
        return;
      }
      const nodes = ctx.store.list('nodes').map((e) => e.object);
      if (!nodes.length) {
        unschedulable.add(key);
        return markUnschedulable(pod, 'SchedulerError', 'no nodes available to schedule pods');
      }
      const feasible: KubeObject[] = [];
      const failures: NodeFailure[] = [];
      for (const node of nodes) {
        const failure = filterNode(pod, node, usage.get(node.metadata.name ?? '') ?? emptyUsage());
        if (failure) failures.push(failure);
        else feasible.push(node);
      }
      const chosen = pickNode(pod, feasible);
      if (!chosen) {
        unschedulable.add(key);
        return markUnschedulable(pod, 'Unschedulable', unschedulableMessage(pod, nodes.length, failures));
      }
      unschedulable.delete(key);
      const name = pod.metadata.name ?? '';
      const binding = {
        apiVersion: 'v1',
        kind: 'Binding',
        metadata: { name, namespace: pod.metadata.namespace, uid: pod.metadata.uid },
        target: { kind: 'Node', name: chosen.metadata.name },
      };
      try {
        await client.create(pods, binding, { namespace: pod.metadata.namespace, subresource: 'binding' });
      } catch (err) {
        // Bound or deleted meanwhile: the pod's next event says what is left to do.
        if (err instanceof StatusError && (err.status.code === 409 || err.status.code === 404)) return;
        throw err;
      }
      // Assumed on the node from now on, as kube-scheduler's cache assumes a bound pod: the next pods count it
      // before the pod's own change arrives (over HTTP, a moment later).
      account(key, { ...pod, spec: { ...specOf(pod), nodeName: chosen.metadata.name } });
      // Not waited for, as kube-scheduler's event broadcaster writes in the background: the next pod's binding does
      // not queue behind this event (over HTTP, a round trip per pod).
      void record(pod, 'Normal', 'Scheduled', 'Binding', `Successfully assigned ${pod.metadata.namespace}/${name} to ${chosen.metadata.name}`);
    };

    const queue = new SerialKeyQueue(schedule);
    const retryUnschedulable = (): void => {
      for (const key of unschedulable) queue.add(key);
    };
    const unsubscribe = ctx.subscribe((event) => {
      if (event.resource === 'nodes') return retryUnschedulable();
      if (event.resource !== 'pods') return;
      const pod = event.type === 'DELETED' ? undefined : event.object;
      if (account(event.key, pod)) retryUnschedulable();
      if (pod && needsScheduling(pod)) queue.add(event.key);
      else unschedulable.delete(event.key);
    });
    for (const entry of ctx.store.list('pods')) {
      account(entry.key, entry.object);
      if (needsScheduling(entry.object)) queue.add(entry.key);
    }
    return () => {
      unsubscribe();
      queue.stop();
    };
  },
};
