// labelCheck: a pod passes when its labels match `requires` (Kuperator's behaviour, docs/podtransitionrule.md).

import type { Pod } from '../api/kube.ts';
import type { LabelCheckRule } from '../api/podtransitionrule.ts';
import { compileLabelSelector, LabelSelectorError, type CompiledSelector } from '../api/selector.ts';
import { emptyResult, rejectAll, type RuleContext, type RuleResult } from './result.ts';

export function labelCheckRule(check: LabelCheckRule, context: RuleContext): RuleResult {
  const result = emptyResult();
  let selector: CompiledSelector;
  try {
    selector = compileLabelSelector(check.requires);
  } catch (err) {
    if (!(err instanceof LabelSelectorError)) throw err;
    return rejectAll(context, result, `labelCheck error: ${err.message}`);
  }
  for (const name of context.subjects) {
    const pod = context.targets.get(name) as Pod;
    if (selector.matches(pod.metadata.labels)) result.passed.add(name);
    else result.rejected.set(name, `block by label check policy, pod ${pod.metadata.namespace ?? ''}/${name} labels not match ${selector.text}`);
  }
  return result;
}
