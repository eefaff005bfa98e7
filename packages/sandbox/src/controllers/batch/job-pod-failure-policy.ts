// spec.podFailurePolicy (matchPodFailurePolicy): the first rule matching a failed pod decides what
// its failure does. onExitCodes matches a container (regular first, then init) that terminated with a
// non-zero code In or NotIn the values; onPodConditions matches a pod condition's type and status.
// Ignore does not count the failure, Count does, FailJob fails the Job with the real message. FailIndex
// needs backoffLimitPerIndex, which the sandbox does not implement, so such rules match nothing.

import { isJsonObject, readPath, type JsonObject, type KubeObject } from '../../meta/object.ts';

export interface PolicyMatch {
  /** Whether the failure counts towards backoffLimit. */
  countFailed: boolean;
  /** The FailJob message, when a FailJob rule matched. */
  failJobMessage?: string;
  action?: string;
}

const objects = (value: unknown): JsonObject[] => (Array.isArray(value) ? value.filter(isJsonObject) : []);

function matchingContainer(pod: KubeObject, requirement: JsonObject): JsonObject | undefined {
  const values = Array.isArray(requirement.values) ? requirement.values : [];
  const matches = (status: JsonObject): boolean => {
    if (typeof requirement.containerName === 'string' && requirement.containerName !== status.name) return false;
    const exitCode = readPath(status, ['state', 'terminated', 'exitCode']);
    if (typeof exitCode !== 'number' || exitCode === 0) return false;
    return requirement.operator === 'In' ? values.includes(exitCode) : requirement.operator === 'NotIn' && !values.includes(exitCode);
  };
  return (
    objects(readPath(pod, ['status', 'containerStatuses'])).find(matches) ?? objects(readPath(pod, ['status', 'initContainerStatuses'])).find(matches)
  );
}

function matchingCondition(pod: KubeObject, patterns: JsonObject[]): JsonObject | undefined {
  for (const condition of objects(readPath(pod, ['status', 'conditions']))) {
    if (patterns.some((p) => p.type === condition.type && p.status === condition.status)) return condition;
  }
  return undefined;
}

export function matchPodFailurePolicy(policy: JsonObject | undefined, pod: KubeObject): PolicyMatch {
  if (!policy) return { countFailed: true };
  const podName = `${pod.metadata.namespace}/${pod.metadata.name}`;
  for (const [index, rule] of objects(policy.rules).entries()) {
    const action = typeof rule.action === 'string' ? rule.action : '';
    let failJobMessage: string | undefined;
    if (isJsonObject(rule.onExitCodes)) {
      const container = matchingContainer(pod, rule.onExitCodes);
      if (!container) continue;
      failJobMessage = `Container ${container.name} for pod ${podName} failed with exit code ${readPath(container, ['state', 'terminated', 'exitCode'])} matching ${action} rule at index ${index}`;
    } else if (Array.isArray(rule.onPodConditions)) {
      const condition = matchingCondition(pod, objects(rule.onPodConditions));
      if (!condition) continue;
      failJobMessage = `Pod ${podName} has condition ${condition.type} matching ${action} rule at index ${index}`;
    } else continue;
    if (action === 'Ignore') return { countFailed: false, action };
    if (action === 'Count') return { countFailed: true, action };
    if (action === 'FailJob') return { countFailed: true, failJobMessage, action };
  }
  return { countFailed: true };
}
