// autoscaling/v2 HorizontalPodAutoscaler defaults (the stored form; autoscaling/v1 objects are
// converted to it first): one replica at least, the implicit 80% CPU target when no metric is given,
// and, once a behavior is set, every scaling rule it leaves out.

import { type JsonObject } from '../meta/object.ts';
import { child, defaultField } from './fields.ts';

const defaultCPUUtilization = 80;

/** GenerateHPAScaleUpRules / GenerateHPAScaleDownRules: the defaults of what a rule leaves unset. */
function defaultRules(rules: JsonObject, up: boolean): void {
  defaultField(rules, 'stabilizationWindowSeconds', up ? 0 : 300);
  defaultField(rules, 'selectPolicy', 'Max');
  const policies = up
    ? [
        { type: 'Pods', value: 4, periodSeconds: 15 },
        { type: 'Percent', value: 100, periodSeconds: 15 },
      ]
    : [{ type: 'Percent', value: 100, periodSeconds: 15 }];
  if (!Array.isArray(rules.policies) || rules.policies.length === 0) rules.policies = policies;
}

export function defaultHorizontalPodAutoscaler(obj: JsonObject): void {
  const spec = child(obj, 'spec');
  defaultField(spec, 'minReplicas', 1);
  if (!Array.isArray(spec.metrics) || spec.metrics.length === 0) {
    spec.metrics = [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: defaultCPUUtilization } } }];
  }
  if (spec.behavior !== undefined && spec.behavior !== null) {
    const behavior = child(spec, 'behavior');
    defaultRules(child(behavior, 'scaleUp'), true);
    defaultRules(child(behavior, 'scaleDown'), false);
  }
}
