// A PodTransitionRule as the dashboard shows it: its rules, the pods it selects, and of the pods in a stage, which
// passed and which are blocked and why (the rule controller's status, as `kubectl get ptr` reads it).

import type { PodTransitionRule } from '../api/podtransitionrule.ts';
import { ruleStage, ruleType } from '../transition/rules.ts';
import type { RuleView } from './views.ts';

export function ruleView(ptr: PodTransitionRule): RuleView {
  const status = ptr.status ?? {};
  const details = status.details ?? [];
  const passed = details.filter((d) => d.passed).map((d) => ({ pod: d.name ?? '', stage: d.stage ?? '' }));
  const blocked = details
    .filter((d) => !d.passed)
    .map((d) => ({ pod: d.name ?? '', stage: d.stage ?? '', reasons: (d.rejectInfo ?? []).map((r) => `${r.ruleName ?? '?'}: ${r.reason ?? ''}`) }));
  const targets = status.targets ?? [];
  return {
    key: `${ptr.metadata.namespace ?? ''}/${ptr.metadata.name ?? ''}`,
    namespace: ptr.metadata.namespace ?? '',
    name: ptr.metadata.name ?? '',
    rules: (ptr.spec?.rules ?? []).map((rule) => ({ name: rule.name ?? '', kind: ruleType(rule) ?? 'unknown', stage: ruleStage(rule), disabled: rule.disabled === true })),
    targets,
    summary: status.summary ?? { targets: targets.length, checking: details.length, passed: passed.length, blocked: blocked.length },
    passed,
    blocked,
  };
}
