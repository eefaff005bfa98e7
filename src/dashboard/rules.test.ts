// A PodTransitionRule on the dashboard: its rules, targets, and which pods passed or are blocked, with each reason.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { PodTransitionRule } from '../api/podtransitionrule.ts';
import { ruleView } from './rules.ts';

const rule: PodTransitionRule = {
  metadata: { name: 'budget', namespace: 'demo' },
  spec: {
    selector: { matchLabels: { app: 'web' } },
    rules: [
      { name: 'one-at-a-time', availablePolicy: { maxUnavailableValue: 1 } },
      { name: 'ready-label', stage: 'PostCheck', labelCheck: { requires: { matchLabels: { ready: 'yes' } } } },
      { name: 'ask', disabled: true, webhook: { clientConfig: { url: 'https://example.invalid/check' } } },
    ],
  },
  status: {
    targets: ['web-a', 'web-b', 'web-c'],
    details: [
      { name: 'web-a', stage: 'PreCheck', passed: true, passedRules: ['one-at-a-time'] },
      { name: 'web-b', stage: 'PreCheck', passed: false, rejectInfo: [{ ruleName: 'one-at-a-time', reason: 'exceed 1 unavailable pods: [web-a]' }] },
      { name: 'web-c', stage: 'PostCheck', passed: false },
    ],
  },
};

test('blocked pods carry the reason of each rule that rejects them; passed pods and targets are listed', () => {
  const view = ruleView(rule);
  assert.equal(view.key, 'demo/budget');
  assert.deepEqual(view.blocked, [
    { pod: 'web-b', stage: 'PreCheck', reasons: ['one-at-a-time: exceed 1 unavailable pods: [web-a]'] },
    { pod: 'web-c', stage: 'PostCheck', reasons: [] },
  ]);
  assert.deepEqual(view.passed, [{ pod: 'web-a', stage: 'PreCheck' }]);
  assert.deepEqual(view.targets, ['web-a', 'web-b', 'web-c']);
  assert.deepEqual(view.rules, [
    { name: 'one-at-a-time', kind: 'availablePolicy', stage: 'PreCheck', disabled: false },
    { name: 'ready-label', kind: 'labelCheck', stage: 'PostCheck', disabled: false },
    { name: 'ask', kind: 'webhook', stage: 'PreCheck', disabled: true },
  ]);
});

test("the counts are the status' summary when the controller wrote one, else counted from the details", () => {
  assert.deepEqual(ruleView(rule).summary, { targets: 3, checking: 3, passed: 1, blocked: 2 });
  const summary = { targets: 5, checking: 2, passed: 1, blocked: 1 };
  assert.deepEqual(ruleView({ ...rule, status: { ...rule.status, summary } }).summary, summary);
});

test('a rule the controller has not seen yet shows nothing checked', () => {
  const view = ruleView({ metadata: { name: 'new', namespace: 'demo' } });
  assert.deepEqual([view.targets, view.blocked, view.passed, view.rules], [[], [], [], []]);
  assert.deepEqual(view.summary, { targets: 0, checking: 0, passed: 0, blocked: 0 });
});
