// The DaemonSet RollingUpdate step (rollingUpdate in pkg/controller/daemon/update.go). Without surge,
// old pods are deleted (the manage loop then creates their replacements) while no more than
// maxUnavailable nodes lack an available pod; an old pod that is not available is replaced at once.
// With maxSurge, a new pod is created beside an old one on up to maxSurge nodes (at once where the
// old pod is not available), and the old pod goes when the new one is available. Percentages are of
// the nodes that should run the daemon, rounded up; both zero means maxUnavailable 1.

import { readPath, type KubeObject } from '../../meta/object.ts';
import { isPodUpdated, templateGeneration } from './daemonset-pod-template.ts';
import { scaledValue } from './deployment-util.ts';
import { isPodAvailable } from './pod-state.ts';
import { minReadySecondsOf } from './workload-fields.ts';

export interface RollingUpdateInput {
  ds: KubeObject;
  /** Daemon pods by node name; every node that should run the daemon has an entry. */
  nodeToPods: Map<string, KubeObject[]>;
  desiredNumberScheduled: number;
  shouldRun: (nodeName: string) => boolean;
  hash: string;
  now: number;
}

export interface RollingUpdateStep {
  podsToDelete: string[];
  nodesToCreate: string[];
}

/** findUpdatedPodsOnNode: at most one new and one old live pod, or undefined when there are more. */
function updatedPodsOnNode(ds: KubeObject, pods: readonly KubeObject[], hash: string): { newPod?: KubeObject; oldPod?: KubeObject } | undefined {
  let newPod: KubeObject | undefined;
  let oldPod: KubeObject | undefined;
  const generation = templateGeneration(ds);
  for (const pod of pods) {
    if (pod.metadata.deletionTimestamp) continue;
    if (isPodUpdated(pod, hash, generation)) {
      if (newPod) return undefined;
      newPod = pod;
    } else {
      if (oldPod) return undefined;
      oldPod = pod;
    }
  }
  return { ...(newPod ? { newPod } : {}), ...(oldPod ? { oldPod } : {}) };
}

/** UnavailableCount and SurgeCount: rollingUpdate's values scaled to the desired number, rounded up. */
export function surgeAndUnavailable(ds: KubeObject, desired: number): { maxSurge: number; maxUnavailable: number } {
  if (readPath(ds, ['spec', 'updateStrategy', 'type']) !== 'RollingUpdate') return { maxSurge: 0, maxUnavailable: 0 };
  const rollingUpdate = readPath(ds, ['spec', 'updateStrategy', 'rollingUpdate']);
  if (rollingUpdate === undefined) return { maxSurge: 0, maxUnavailable: 0 };
  const maxSurge = scaledValue(readPath(rollingUpdate, ['maxSurge']) ?? 0, desired, true);
  let maxUnavailable = scaledValue(readPath(rollingUpdate, ['maxUnavailable']), desired, true);
  if (desired > 0 && maxUnavailable === 0 && maxSurge === 0) maxUnavailable = 1;
  return { maxSurge, maxUnavailable };
}

export function rollingUpdateStep(input: RollingUpdateInput): RollingUpdateStep {
  const { ds, nodeToPods, hash, now } = input;
  const minReady = minReadySecondsOf(ds);
  const available = (pod: KubeObject): boolean => isPodAvailable(pod, minReady, now);
  const { maxSurge, maxUnavailable } = surgeAndUnavailable(ds, input.desiredNumberScheduled);
  const nodes = [...nodeToPods.keys()].sort();

  if (maxSurge === 0) {
    let numUnavailable = 0;
    const replacements: string[] = [];
    const candidates: string[] = [];
    for (const node of nodes) {
      const found = updatedPodsOnNode(ds, nodeToPods.get(node) ?? [], hash);
      // Excess pods are the manage loop's to prune; count the node as unavailable meanwhile.
      if (!found) {
        numUnavailable++;
        continue;
      }
      const { newPod, oldPod } = found;
      if ((!oldPod && !newPod) || (oldPod && newPod)) numUnavailable++;
      else if (newPod) {
        if (!available(newPod)) numUnavailable++;
      } else if (oldPod) {
        if (!available(oldPod)) {
          replacements.push(oldPod.metadata.name ?? '');
          numUnavailable++;
        } else if (numUnavailable < maxUnavailable) candidates.push(oldPod.metadata.name ?? '');
      }
    }
    const remaining = Math.min(Math.max(maxUnavailable - numUnavailable, 0), candidates.length);
    return { podsToDelete: [...replacements, ...candidates.slice(0, remaining)], nodesToCreate: [] };
  }

  const podsToDelete: string[] = [];
  const shouldNotRun: string[] = [];
  const candidateNodes: string[] = [];
  const allowedNodes: string[] = [];
  let numSurge = 0;
  let numAvailable = 0;
  for (const node of nodes) {
    const found = updatedPodsOnNode(ds, nodeToPods.get(node) ?? [], hash);
    if (!found) {
      numSurge++;
      continue;
    }
    const { newPod, oldPod } = found;
    if (oldPod ? available(oldPod) : newPod && available(newPod)) numAvailable++;
    if (!oldPod) continue;
    if (!newPod) {
      // An old pod: a surge candidate, or replaced at once when it is not available.
      if (!input.shouldRun(node)) {
        (available(oldPod) ? shouldNotRun : podsToDelete).push(oldPod.metadata.name ?? '');
        continue;
      }
      if (!available(oldPod)) allowedNodes.push(node);
      else if (numSurge < maxSurge) candidateNodes.push(node);
      continue;
    }
    // Surged already: the old pod goes once the new one is available.
    if (!available(newPod)) numSurge++;
    else podsToDelete.push(oldPod.metadata.name ?? '');
  }
  // Pods leaving a node that no longer fits go only once enough others are available.
  const deletable = Math.min(Math.max(numAvailable - input.desiredNumberScheduled, 0), shouldNotRun.length);
  podsToDelete.push(...shouldNotRun.slice(0, deletable));
  const remainingSurge = Math.min(Math.max(maxSurge - numSurge, 0), candidateNodes.length);
  return { podsToDelete, nodesToCreate: [...allowedNodes, ...candidateNodes.slice(0, remainingSurge)] };
}
