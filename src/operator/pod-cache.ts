// What podops keeps of a controlled pod in memory: the fields its controllers read (of the conditions,
// Ready and the service-ready gate). Writes are patches of labels, annotations and the gate (conditions
// merge by type) guarded by resourceVersion, never a PUT of this trimmed copy, so nothing dropped here
// can be lost.

import type { Pod } from '../api/kube.ts';
import { SERVICE_READY_GATE } from '../api/protocol.ts';

export function trimPod(pod: Pod): Pod {
  const { managedFields: _managed, ...metadata } = pod.metadata;
  const trimmed: Pod = { apiVersion: pod.apiVersion ?? 'v1', kind: pod.kind ?? 'Pod', metadata };
  if (pod.spec) {
    trimmed.spec = {};
    if (pod.spec.readinessGates) trimmed.spec.readinessGates = pod.spec.readinessGates;
    if (pod.spec.nodeName) trimmed.spec.nodeName = pod.spec.nodeName;
  }
  if (pod.status) {
    trimmed.status = {};
    if (pod.status.phase) trimmed.status.phase = pod.status.phase;
    const conditions = pod.status.conditions?.filter((c) => c.type === 'Ready' || c.type === SERVICE_READY_GATE);
    if (conditions?.length) trimmed.status.conditions = conditions;
    if (pod.status.podIP) trimmed.status.podIP = pod.status.podIP;
  }
  return trimmed;
}
