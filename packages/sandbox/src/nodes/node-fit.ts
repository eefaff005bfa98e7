// The scheduler's filters, scores and failure message for one pod against the nodes: the default
// profile's NodeUnschedulable, TaintToleration, NodeAffinity (nodeSelector and required affinity) and
// NodeResourcesFit filters, in that order; LeastAllocated and preferred node affinity scores; and the
// FitError text (`0/3 nodes are available: …. preemption: …`).

import { isJsonObject, readPath, type JsonObject, type KubeObject } from '../meta/object.ts';
import { findUntoleratedTaint, nodeTaints, podMatchesNodeAffinity, podTolerations, toleratesTaint } from '../selectors/node-affinity.ts';
import { parseQuantity } from '../validation/quantity.ts';

/** Resource amounts in nano-units (a Quantity's exact value). */
export type ResourceAmounts = Map<string, bigint>;

export interface NodeUsage {
  pods: number;
  /** The sum of the assigned pods' requests. */
  requested: ResourceAmounts;
  /** The same with the scheduler's defaults for unset cpu and memory requests (100m, 200Mi), for scoring. */
  nonZero: { cpu: bigint; memory: bigint };
}

export interface NodeFailure {
  reasons: string[];
  /** Preemption could help (resources); otherwise UnschedulableAndUnresolvable. */
  resolvable: boolean;
}

const nano = 1_000_000_000n;
const defaultCpuRequest = 100_000_000n; // 100m
const defaultMemoryRequest = 200n * 1024n * 1024n * nano; // 200Mi

export const emptyUsage = (): NodeUsage => ({ pods: 0, requested: new Map(), nonZero: { cpu: 0n, memory: 0n } });

const containers = (spec: JsonObject, field: 'containers' | 'initContainers'): JsonObject[] =>
  Array.isArray(spec[field]) ? spec[field].filter(isJsonObject) : [];

function requestsOf(container: JsonObject): ResourceAmounts {
  const out: ResourceAmounts = new Map();
  const requests = readPath(container, ['resources', 'requests']);
  if (!isJsonObject(requests)) return out;
  for (const [name, value] of Object.entries(requests)) {
    const q = parseQuantity(value);
    if (q && q.nano > 0n) out.set(name, q.nano);
  }
  return out;
}

const add = (into: ResourceAmounts, from: ResourceAmounts): void => {
  for (const [name, v] of from) into.set(name, (into.get(name) ?? 0n) + v);
};

/** computePodResourceRequest: containers and sidecars summed, against the largest init container, plus overhead. */
export function podRequests(spec: JsonObject): ResourceAmounts {
  const total: ResourceAmounts = new Map();
  const sidecars: ResourceAmounts = new Map();
  for (const c of containers(spec, 'containers')) add(total, requestsOf(c));
  for (const c of containers(spec, 'initContainers')) {
    const requests = requestsOf(c);
    if (c.restartPolicy === 'Always') {
      add(sidecars, requests);
      add(total, requests);
      continue;
    }
    // An init container runs beside the sidecars started before it.
    for (const [name, v] of requests) {
      const needed = v + (sidecars.get(name) ?? 0n);
      if (needed > (total.get(name) ?? 0n)) total.set(name, needed);
    }
  }
  const overhead = isJsonObject(spec.overhead) ? spec.overhead : {};
  for (const [name, value] of Object.entries(overhead)) {
    const q = parseQuantity(value);
    if (q && q.nano > 0n) total.set(name, (total.get(name) ?? 0n) + q.nano);
  }
  return total;
}

/** The requests the scoring plugins see: unset cpu/memory requests count as 100m/200Mi per container. */
export function nonZeroRequests(spec: JsonObject): { cpu: bigint; memory: bigint } {
  let cpu = 0n;
  let memory = 0n;
  for (const c of containers(spec, 'containers')) {
    const requests = requestsOf(c);
    cpu += requests.get('cpu') ?? defaultCpuRequest;
    memory += requests.get('memory') ?? defaultMemoryRequest;
  }
  return { cpu, memory };
}

/** Parsed once per stored Node object (stored objects are never modified). */
const allocatableByNode = new WeakMap<KubeObject, ResourceAmounts>();

function allocatable(node: KubeObject): ResourceAmounts {
  const cached = allocatableByNode.get(node);
  if (cached) return cached;
  const out: ResourceAmounts = new Map();
  const list = readPath(node, ['status', 'allocatable']);
  for (const [name, value] of Object.entries(isJsonObject(list) ? list : {})) {
    const q = parseQuantity(value);
    if (q) out.set(name, q.nano);
  }
  allocatableByNode.set(node, out);
  return out;
}

const isSchedulingTaint = (taint: { effect: string }): boolean => taint.effect === 'NoSchedule' || taint.effect === 'NoExecute';

/** The filters in the default profile's order; undefined when the pod fits the node. */
export function filterNode(pod: KubeObject, node: KubeObject, usage: NodeUsage): NodeFailure | undefined {
  const spec = isJsonObject(pod.spec) ? pod.spec : {};
  const tolerations = podTolerations(spec);
  if (readPath(node, ['spec', 'unschedulable']) === true) {
    const unschedulableTaint = { key: 'node.kubernetes.io/unschedulable', effect: 'NoSchedule' };
    if (!tolerations.some((t) => toleratesTaint(t, unschedulableTaint))) return { reasons: ['node(s) were unschedulable'], resolvable: false };
  }
  const taint = findUntoleratedTaint(nodeTaints(node), tolerations, isSchedulingTaint);
  if (taint) return { reasons: [`node(s) had untolerated taint {${taint.key}: ${taint.value ?? ''}}`], resolvable: false };
  if (!podMatchesNodeAffinity(spec, node)) return { reasons: ["node(s) didn't match Pod's node affinity/selector"], resolvable: false };

  const reasons: string[] = [];
  const capacity = allocatable(node);
  if (BigInt(usage.pods + 1) * nano > (capacity.get('pods') ?? 0n)) reasons.push('Too many pods');
  for (const [name, wanted] of podRequests(spec)) {
    if (wanted + (usage.requested.get(name) ?? 0n) > (capacity.get(name) ?? 0n)) reasons.push(`Insufficient ${name}`);
  }
  return reasons.length ? { reasons, resolvable: true } : undefined;
}

/** NodeResourcesFit's LeastAllocated score (0-100), cpu and memory weighted equally. */
export function leastAllocatedScore(pod: KubeObject, node: KubeObject, usage: NodeUsage): number {
  const spec = isJsonObject(pod.spec) ? pod.spec : {};
  const wanted = nonZeroRequests(spec);
  const capacity = allocatable(node);
  const score = (resource: 'cpu' | 'memory'): number => {
    const total = capacity.get(resource) ?? 0n;
    const requested = usage.nonZero[resource] + wanted[resource];
    if (total === 0n || requested > total) return 0;
    return Number(((total - requested) * 100n) / total);
  };
  return Math.floor((score('cpu') + score('memory')) / 2);
}

/** The sum of the weights of the preferred node affinity terms the node matches. */
export function preferredAffinityWeight(pod: KubeObject, node: KubeObject): number {
  const preferred = readPath(pod, ['spec', 'affinity', 'nodeAffinity', 'preferredDuringSchedulingIgnoredDuringExecution']);
  if (!Array.isArray(preferred)) return 0;
  let weight = 0;
  for (const term of preferred.filter(isJsonObject)) {
    const preference = term.preference;
    if (!isJsonObject(preference) || typeof term.weight !== 'number') continue;
    const asRequired = { affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [preference] } } } };
    if (podMatchesNodeAffinity(asRequired, node)) weight += term.weight;
  }
  return weight;
}

/** Counts reasons across nodes, `N reason` sorted as strings. */
function histogram(reasons: readonly string[]): string {
  const counts = new Map<string, number>();
  for (const r of reasons) counts.set(r, (counts.get(r) ?? 0) + 1);
  return [...counts.entries()]
    .map(([reason, n]) => `${n} ${reason}`)
    .sort()
    .join(', ');
}

/** FitError.Error() with DefaultPreemption's message (no lower-priority victims are ever preempted here). */
export function unschedulableMessage(pod: KubeObject, nodeCount: number, failures: readonly NodeFailure[]): string {
  const filters = `0/${nodeCount} nodes are available: ${histogram(failures.flatMap((f) => f.reasons))}.`;
  if (readPath(pod, ['spec', 'preemptionPolicy']) === 'Never') return `${filters} preemption: not eligible due to preemptionPolicy=Never.`;
  const preemption = histogram(failures.map((f) => (f.resolvable ? 'No preemption victims found for incoming pod' : 'Preemption is not helpful for scheduling')));
  return `${filters} preemption: 0/${nodeCount} nodes are available: ${preemption}.`;
}
