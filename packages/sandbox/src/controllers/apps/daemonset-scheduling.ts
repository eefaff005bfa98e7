// Where a DaemonSet's pods belong (NodeShouldRunDaemonPod): a node the template's nodeName, node
// selector and required node affinity admit, whose NoSchedule and NoExecute taints the pod tolerates
// (NoExecute taints alone decide whether a pod already there may stay). Daemon pods tolerate the
// node.kubernetes.io not-ready, unreachable, pressure and unschedulable taints, and are pinned to their
// node by a required node affinity on `metadata.name` (the scheduler binds them).

import { cloneJson, isJsonObject, readPath, type JsonObject, type KubeObject } from '../../meta/object.ts';
import { findUntoleratedTaint, nodeTaints, podMatchesNodeAffinity, podTolerations, toleratesTaint } from '../../selectors/node-affinity.ts';

const daemonTolerations = [
  { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute' },
  { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute' },
  { key: 'node.kubernetes.io/disk-pressure', operator: 'Exists', effect: 'NoSchedule' },
  { key: 'node.kubernetes.io/memory-pressure', operator: 'Exists', effect: 'NoSchedule' },
  { key: 'node.kubernetes.io/pid-pressure', operator: 'Exists', effect: 'NoSchedule' },
  { key: 'node.kubernetes.io/unschedulable', operator: 'Exists', effect: 'NoSchedule' },
];
const networkUnavailable = { key: 'node.kubernetes.io/network-unavailable', operator: 'Exists', effect: 'NoSchedule' };

/**
 * AddOrUpdateDaemonPodTolerations: each daemon toleration replaces an existing one with the same key,
 * operator, value and effect, or is appended.
 */
export function addDaemonTolerations(podSpec: JsonObject): void {
  let tolerations = Array.isArray(podSpec.tolerations) ? (podSpec.tolerations as JsonObject[]) : [];
  const wanted = podSpec.hostNetwork === true ? [...daemonTolerations, networkUnavailable] : daemonTolerations;
  for (const toleration of wanted) {
    const same = (t: JsonObject): boolean =>
      (t.key ?? '') === toleration.key && (t.operator ?? '') === toleration.operator && (t.value ?? '') === '' && (t.effect ?? '') === toleration.effect;
    const replaced = tolerations.some(same);
    tolerations = replaced ? tolerations.map((t) => (same(t) ? { ...toleration } : t)) : [...tolerations, { ...toleration }];
  }
  podSpec.tolerations = tolerations;
}

/** NewPod: the template's spec with the node name and the daemon tolerations, for the predicates. */
function podSpecFor(ds: KubeObject, nodeName: string): JsonObject {
  const template = readPath(ds, ['spec', 'template', 'spec']);
  const spec = cloneJson(isJsonObject(template) ? template : {});
  spec.nodeName = nodeName;
  addDaemonTolerations(spec);
  return spec;
}

export interface NodePlacement {
  /** A daemon pod should be created on the node if it has none. */
  shouldRun: boolean;
  /** A daemon pod already on the node may keep running. */
  shouldContinueRunning: boolean;
}

export function nodeShouldRunDaemonPod(node: KubeObject, ds: KubeObject): NodePlacement {
  const nodeName = node.metadata.name ?? '';
  const templateNodeName = readPath(ds, ['spec', 'template', 'spec', 'nodeName']);
  if (templateNodeName && templateNodeName !== nodeName) return { shouldRun: false, shouldContinueRunning: false };
  const spec = podSpecFor(ds, nodeName);
  if (!podMatchesNodeAffinity(spec, node)) return { shouldRun: false, shouldContinueRunning: false };
  const taints = nodeTaints(node);
  const tolerations = podTolerations(spec);
  const blocking = findUntoleratedTaint(taints, tolerations, (t) => t.effect === 'NoSchedule' || t.effect === 'NoExecute');
  if (!blocking) return { shouldRun: true, shouldContinueRunning: true };
  const evicting = taints.some((t) => t.effect === 'NoExecute' && !tolerations.some((tol) => toleratesTaint(tol, t)));
  return { shouldRun: false, shouldContinueRunning: !evicting };
}

/** ReplaceDaemonSetPodNodeNameNodeAffinity: the required node affinity selects exactly this node. */
export function pinToNode(podSpec: JsonObject, nodeName: string): void {
  const term = { matchFields: [{ key: 'metadata.name', operator: 'In', values: [nodeName] }] };
  const affinity = isJsonObject(podSpec.affinity) ? podSpec.affinity : (podSpec.affinity = {});
  const nodeAffinity = isJsonObject(affinity.nodeAffinity) ? affinity.nodeAffinity : (affinity.nodeAffinity = {});
  const required = nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution;
  if (isJsonObject(required)) required.nodeSelectorTerms = [term];
  else nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution = { nodeSelectorTerms: [term] };
}

/** GetTargetNodeName: spec.nodeName, else the node the affinity pins the pod to. */
export function targetNodeName(pod: KubeObject): string | undefined {
  const nodeName = readPath(pod, ['spec', 'nodeName']);
  if (typeof nodeName === 'string' && nodeName) return nodeName;
  const terms = readPath(pod, ['spec', 'affinity', 'nodeAffinity', 'requiredDuringSchedulingIgnoredDuringExecution', 'nodeSelectorTerms']);
  if (!Array.isArray(terms)) return undefined;
  for (const term of terms) {
    const fields = isJsonObject(term) && Array.isArray(term.matchFields) ? term.matchFields : [];
    for (const field of fields) {
      if (isJsonObject(field) && field.key === 'metadata.name' && field.operator === 'In') {
        const values = Array.isArray(field.values) ? field.values : [];
        return values.length === 1 && typeof values[0] === 'string' ? values[0] : undefined;
      }
    }
  }
  return undefined;
}
