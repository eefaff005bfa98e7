// The processor per stage and the status merge: stages and the default stage, rule order, skips,
// filters, the kept rejection, sticky passes, several stages at once, and the status shape.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { TransitionRule } from '../api/podtransitionrule.ts';
import { SKIP_RULE_CONDITIONS_ANNOTATION } from '../api/protocol.ts';
import { evaluate, type EvaluationInput } from './evaluate.ts';
import { ptr, stagePod } from './fixtures.test-support.ts';
import { parseSkipRuleTypes, stageRules } from './rules.ts';

const NOW = 1717505885197871195n;
const requireLabel = (name: string, label = 'ready'): TransitionRule => ({ name, labelCheck: { requires: { matchLabels: { [label]: 'true' } } } });
const blockAll = (name: string): TransitionRule => ({ name, availablePolicy: { maxUnavailableValue: 0 } });
const notReady = (name: string, label = 'ready') => `block by label check policy, pod default/${name} labels not match ${label}=true`;
const run = (rules: TransitionRule[], pods: EvaluationInput['pods'], extra: Partial<EvaluationInput> = {}) => evaluate({ ptr: ptr(rules), pods, now: NOW, ...extra });

describe('evaluate: targets and stages', () => {
  test('targets: pods of the namespace matching the selector, sorted; details only for pods in a stage', () => {
    const pods = [stagePod('web-b'), stagePod('web-a', { stage: 'none' }), stagePod('other', { labels: { app: 'db' } }), stagePod('web-c', { namespace: 'elsewhere' })];
    const { status } = run([], pods);
    assert.deepEqual(status.targets, ['web-a', 'web-b']);
    assert.deepEqual(status.details, [{ name: 'web-b', stage: 'PreCheck', passed: true }]);
    assert.deepEqual(status.summary, { targets: 2, checking: 1, passed: 1, blocked: 0 });
    assert.equal(status.updateTime, '2024-06-04T12:58:05Z');
  });

  test('a nil selector selects nothing; an invalid one selects nothing and says why', () => {
    const nil = evaluate({ ptr: { ...ptr([]), spec: { rules: [] } }, pods: [stagePod('p')], now: NOW });
    assert.equal(nil.status.targets, undefined);
    const bad = evaluate({ ptr: ptr([], { selector: { matchExpressions: [{ key: 'app', operator: 'Is' }] } }), pods: [stagePod('p')], now: NOW });
    assert.equal(bad.status.targets, undefined);
    assert.deepEqual(bad.warnings, ['invalid spec.selector, no pod selected: matchExpressions[0]: "Is" is not a valid label selector operator']);
  });

  test('a rule without stage runs in PreCheck only; a stage with no rules still passes its pods', () => {
    const { status } = run([requireLabel('ready')], [stagePod('pre'), stagePod('post', { stage: 'PostCheck' })]);
    assert.deepEqual(status.details, [
      { name: 'post', stage: 'PostCheck', passed: true },
      { name: 'pre', stage: 'PreCheck', passed: false, rejectInfo: [{ ruleName: 'ready', reason: notReady('pre') }] },
    ]);
  });

  test('an explicit stage; an unknown stage never runs; disabled rules never run', () => {
    const rules: TransitionRule[] = [
      { ...requireLabel('post-ready'), stage: 'PostCheck' },
      { ...requireLabel('typo'), stage: 'Precheck' },
      { ...requireLabel('off'), disabled: true },
    ];
    const { status } = run(rules, [stagePod('pre'), stagePod('post', { stage: 'PostCheck' })]);
    assert.deepEqual(status.details, [
      { name: 'post', stage: 'PostCheck', passed: false, rejectInfo: [{ ruleName: 'post-ready', reason: notReady('post') }] },
      { name: 'pre', stage: 'PreCheck', passed: true },
    ]);
  });

  test('a pod in both stages gets one detail per stage, each judged by that stage’s rules', () => {
    const rules: TransitionRule[] = [requireLabel('pre-ready'), { ...requireLabel('post-ready', 'post'), stage: 'PostCheck' }];
    const { status } = run(rules, [stagePod('p', { stage: 'both', labels: { ready: 'true' } })]);
    assert.deepEqual(status.details, [
      { name: 'p', stage: 'PreCheck', passed: true, passedRules: ['pre-ready'] },
      { name: 'p', stage: 'PostCheck', passed: false, rejectInfo: [{ ruleName: 'post-ready', reason: notReady('p', 'post') }] },
    ]);
    assert.deepEqual(status.summary, { targets: 1, checking: 1, passed: 0, blocked: 1 });
  });
});

describe('evaluate: rule order, skips and filters', () => {
  test('rules run availablePolicy, labelCheck, webhook; a rejected pod meets no later rule', () => {
    const { status } = run([requireLabel('labels'), blockAll('capacity')], [stagePod('p')]);
    assert.equal(status.details?.[0]?.rejectInfo?.[0]?.ruleName, 'capacity');
  });

  test('rules of the same kind keep their spec order (stable sort)', () => {
    const { status } = run([requireLabel('zz-first', 'a'), requireLabel('aa-second', 'b')], [stagePod('p')]);
    assert.deepEqual(status.details?.[0]?.rejectInfo, [{ ruleName: 'zz-first', reason: notReady('p', 'a') }]);
    assert.deepEqual(
      stageRules([{ name: 'w', webhook: {} }, requireLabel('l1'), blockAll('a'), requireLabel('l2')], 'PreCheck', new Set()).map((r) => r.rule.name),
      ['a', 'l1', 'l2', 'w'],
    );
  });

  test('passedRules accumulate in name order', () => {
    const { status } = run([requireLabel('b-check'), requireLabel('a-check')], [stagePod('p', { labels: { ready: 'true' } })]);
    assert.deepEqual(status.details?.[0]?.passedRules, ['a-check', 'b-check']);
  });

  test('the skip annotation skips the named rules for that pod only', () => {
    const skipping = stagePod('skipper', { annotations: { [SKIP_RULE_CONDITIONS_ANNOTATION]: JSON.stringify({ skipRules: ['ready'] }) } });
    const { status } = run([requireLabel('ready')], [skipping, stagePod('plain')]);
    assert.deepEqual(
      status.details?.map((d) => [d.name, d.passed, d.passedRules ?? []]),
      [
        ['plain', false, []],
        ['skipper', true, []],
      ],
    );
  });

  test('a skipped pod re-enters later rules; the last rejection of a stage is the one kept', () => {
    const skipping = stagePod('p', { annotations: { [SKIP_RULE_CONDITIONS_ANNOTATION]: JSON.stringify({ skipRules: ['first'] }) } });
    const { status } = run([requireLabel('first', 'a'), requireLabel('second', 'b'), requireLabel('third', 'c')], [skipping]);
    assert.deepEqual(status.details?.[0]?.rejectInfo, [{ ruleName: 'third', reason: notReady('p', 'c') }]);
  });

  test('an unreadable skip annotation skips nothing and is reported', () => {
    const broken = stagePod('p', { annotations: { [SKIP_RULE_CONDITIONS_ANNOTATION]: '{skipRules' } });
    const evaluation = run([requireLabel('ready')], [broken]);
    assert.equal(evaluation.status.details?.[0]?.passed, false);
    assert.equal(evaluation.warnings.length, 1);
    assert.match(evaluation.warnings[0] as string, /^pod default\/p: invalid annotation podtransitionrule\.kusionstack\.io\/skip-rule-conditions: /);
  });

  test('SKIP_POD_TRANSITION_RULES ignores every rule holding a listed definition', () => {
    assert.deepEqual([...parseSkipRuleTypes(' labelCheck, ,webhook,')], ['labelCheck', 'webhook']);
    assert.deepEqual([...parseSkipRuleTypes(undefined)], []);
    const mixed: TransitionRule = { name: 'mixed', availablePolicy: { maxUnavailableValue: 0 }, labelCheck: { requires: {} } };
    const { status } = run([requireLabel('labels'), mixed, blockAll('capacity')], [stagePod('p')], { skipRuleTypes: parseSkipRuleTypes('labelCheck') });
    assert.deepEqual(status.details?.[0]?.rejectInfo?.map((r) => r.ruleName), ['capacity']);
  });

  test('filter.labelSelector: pods outside the filter skip the rule', () => {
    const rule: TransitionRule = { ...requireLabel('ready'), filter: { labelSelector: { matchLabels: { tier: 'front' } } } };
    const { status } = run([rule], [stagePod('front', { labels: { tier: 'front' } }), stagePod('back', { labels: { tier: 'back' } })]);
    assert.deepEqual(
      status.details?.map((d) => [d.name, d.passed]),
      [
        ['back', true],
        ['front', false],
      ],
    );
  });

  test('conditions do not filter: the rule applies to every pod (Kuperator would skip them all)', () => {
    const { status } = run([{ ...requireLabel('ready'), conditions: ['some-condition'] }], [stagePod('p')]);
    assert.equal(status.details?.[0]?.passed, false);
  });

  test('an invalid filter rejects the rule’s pods and is an error', () => {
    const rule: TransitionRule = { ...requireLabel('ready'), filter: { labelSelector: { matchExpressions: [{ key: 'a', operator: 'In' }] } } };
    const evaluation = run([rule], [stagePod('p')]);
    const reason = '[ready] invalid filter.labelSelector: matchExpressions[0]: values must be non-empty for operator In';
    assert.deepEqual(evaluation.status.details?.[0]?.rejectInfo, [{ ruleName: 'ready', reason }]);
    assert.deepEqual(evaluation.errors, [{ stage: 'PreCheck', rule: 'ready', message: reason }]);
    assert.equal(evaluation.requeue, true);
  });

  test('labelCheck with matchExpressions, and an invalid requires', () => {
    const rule: TransitionRule = {
      name: 'labels',
      labelCheck: { requires: { matchLabels: { 'app.custom/ready': 'true' }, matchExpressions: [{ key: 'app.custom/forbidden', operator: 'DoesNotExist' }] } },
    };
    const { status } = run([rule], [stagePod('ok', { labels: { 'app.custom/ready': 'true' } }), stagePod('forbidden', { labels: { 'app.custom/ready': 'true', 'app.custom/forbidden': '' } })]);
    assert.deepEqual(status.details?.map((d) => [d.name, d.passed, d.rejectInfo?.[0]?.reason]), [
      ['forbidden', false, 'block by label check policy, pod default/forbidden labels not match !app.custom/forbidden,app.custom/ready=true'],
      ['ok', true, undefined],
    ]);
    const bad = run([{ name: 'labels', labelCheck: { requires: { matchExpressions: [{ key: 'x', operator: 'Near' }] } } }], [stagePod('p')]);
    assert.equal(bad.status.details?.[0]?.rejectInfo?.[0]?.reason, 'labelCheck error: matchExpressions[0]: "Near" is not a valid label selector operator');
    assert.equal(bad.requeue, true);
  });
});

describe('evaluate: status', () => {
  test('an unchanged world gives an unchanged status (only updateTime moves)', () => {
    const rules = [requireLabel('ready'), blockAll('capacity')];
    const pods = [stagePod('a'), stagePod('b', { labels: { ready: 'true' } })];
    const first = evaluate({ ptr: ptr(rules, { generation: 3 }), pods, now: NOW });
    assert.equal(first.changed, true);
    assert.equal(first.status.observedGeneration, 3);
    const again = evaluate({ ptr: ptr(rules, { generation: 3, status: first.status }), pods, now: NOW + 60_000_000_000n });
    assert.equal(again.changed, false);
    assert.equal(again.status.updateTime, '2024-06-04T12:59:05Z');
    const newGeneration = evaluate({ ptr: ptr(rules, { generation: 4, status: first.status }), pods, now: NOW });
    assert.equal(newGeneration.changed, true);
  });

  test('a pod that leaves the stage drops out of details; its pass stops consuming quota once the status says so', () => {
    const rules = [{ name: 'one-at-a-time', availablePolicy: { maxUnavailableValue: 1 } }];
    const first = run(rules, [stagePod('a'), stagePod('b')]);
    assert.deepEqual(first.status.details?.map((d) => [d.name, d.passed]), [['a', true], ['b', false]]);
    // a is operated and back in service, out of the stage; the previous status still lists its pass.
    const pods = [stagePod('a', { stage: 'none' }), stagePod('b')];
    const second = evaluate({ ptr: ptr(rules, { status: first.status }), pods, now: NOW });
    assert.deepEqual(second.status.details?.map((d) => [d.name, d.passed]), [['b', false]]);
    const third = evaluate({ ptr: ptr(rules, { status: second.status }), pods, now: NOW });
    assert.deepEqual(third.status.details, [{ name: 'b', stage: 'PreCheck', passed: true, passedRules: ['one-at-a-time'] }]);
  });

  test('no rule error, no interval: no requeue', () => {
    const evaluation = run([requireLabel('ready')], [stagePod('p')]);
    assert.equal(evaluation.requeue, false);
    assert.equal(evaluation.requeueAfterMs, undefined);
    assert.deepEqual(evaluation.calls, []);
  });
});
