// The lifecycle controller's view: a stage passes when every PodTransitionRule of the namespace that
// lists the pod reports the stage as passed (Kuperator's behaviour, docs/podtransitionrule.md), with upstream's messages.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Pod } from '../api/kube.ts';
import { TO_DELETE_LABEL, TO_EVICT_LABEL } from '../api/protocol.ts';
import type { PodTransitionRule, PodTransitionRuleStatus } from '../api/podtransitionrule.ts';
import type { LabelSelector } from '../api/selector.ts';
import { reconcilePod } from '../lifecycle/reconcile.ts';
import { evaluate } from './evaluate.ts';
import { NAMESPACE, ptr, stagePod } from './fixtures.test-support.ts';
import { detailAnnotationValue, detailAnnotationWrites, transitionVerdict } from './verdict.ts';

const withStatus = (name: string, status: PodTransitionRuleStatus, namespace = NAMESPACE, selector?: LabelSelector): PodTransitionRule => {
  const rule = ptr([], { name, status, ...(selector && { selector }) });
  rule.metadata.namespace = namespace;
  return rule;
};
const pod = stagePod('web-1', { stage: 'both' });

describe('transitionVerdict', () => {
  test('no rule lists or selects the pod: passed', () => {
    assert.deepEqual(transitionVerdict([], pod, 'PreCheck'), { passed: true, message: 'No podTransitionRules found' });
    const other = withStatus('other', { targets: ['web-2'] }, NAMESPACE, { matchLabels: { app: 'other' } });
    assert.deepEqual(transitionVerdict([other], pod, 'PreCheck'), { passed: true, message: 'No podTransitionRules found' });
  });

  test('divergence: a rule that selects the pod but has not listed it yet blocks (upstream lets the pod through)', () => {
    const created = withStatus('just-created', {});
    assert.deepEqual(transitionVerdict([created], pod, 'PreCheck'), { passed: false, message: '[waiting for podtransitionrule just-created processing. ]' });
  });

  test('rules of another namespace do not count, even for a pod of the same name', () => {
    const elsewhere = withStatus('strict', { targets: ['web-1'], details: [{ name: 'web-1', stage: 'PreCheck', passed: false }] }, 'elsewhere');
    assert.equal(transitionVerdict([elsewhere], pod, 'PreCheck').passed, true);
  });

  test('a rule listing the pod without a detail for the stage blocks: waiting for processing', () => {
    const fresh = withStatus('fresh', { targets: ['web-1'] });
    assert.deepEqual(transitionVerdict([fresh], pod, 'PreCheck'), { passed: false, message: '[waiting for podtransitionrule fresh processing. ]' });
    const otherStage = withStatus('stale', { targets: ['web-1'], details: [{ name: 'web-1', stage: 'PreCheck', passed: true }] });
    assert.deepEqual(transitionVerdict([otherStage], pod, 'PostCheck'), { passed: false, message: '[waiting for podtransitionrule stale processing. ]' });
    assert.deepEqual(transitionVerdict([otherStage], pod, 'PreCheck'), { passed: true });
  });

  test('every listing rule must pass; rejections are listed rule by rule in name order', () => {
    const rules = [
      withStatus('b-rule', {
        targets: ['web-1'],
        details: [{ name: 'web-1', stage: 'PreCheck', passed: false, rejectInfo: [{ ruleName: 'max', reason: 'too many' }, { ruleName: 'labels', reason: 'not ready' }] }],
      }),
      withStatus('a-rule', { targets: ['web-1'] }),
      withStatus('c-rule', { targets: ['web-1'], details: [{ name: 'web-1', stage: 'PreCheck', passed: true }] }),
    ];
    assert.deepEqual(transitionVerdict(rules, pod, 'PreCheck'), {
      passed: false,
      message: '[waiting for podtransitionrule a-rule processing. ][PodTransitionRule: b-rule, RejectInfo: max:too many, labels:not ready] ',
    });
  });

  test('end to end with the lifecycle controller: pre-checked only once the rule passes the pod', () => {
    const rule = ptr([{ name: 'ready', labelCheck: { requires: { matchLabels: { ready: 'true' } } } }]);
    const plan = (p: typeof pod) => {
      const status = evaluate({ ptr: rule, pods: [p], now: 1n }).status;
      return reconcilePod({ pod: p, now: 2n, transition: (stage) => transitionVerdict([{ ...rule, status }], p, stage), service: () => undefined });
    };
    assert.equal(plan(stagePod('web-1', { available: false })), undefined);
    assert.equal(plan(stagePod('web-1', { available: false, labels: { ready: 'true' } }))?.reason, 'PreChecked');
  });
});

describe('detailAnnotationValue', () => {
  test('the pod’s detail without name and passedRules; Unknown when in no stage', () => {
    const rule = withStatus('r', {
      details: [{ name: 'web-1', stage: 'PreCheck', passed: false, passedRules: ['a'], rejectInfo: [{ ruleName: 'b', reason: 'no' }] }],
    });
    assert.equal(detailAnnotationValue(rule, 'web-1'), '{"stage":"PreCheck","passed":false,"rejectInfo":[{"ruleName":"b","reason":"no"}]}');
    assert.equal(detailAnnotationValue(rule, 'web-2'), '{"stage":"Unknown","passed":true}');
  });

  test('a pod in both stages: the first stage, passed only if both passed, every rejection', () => {
    const rule = withStatus('r', {
      details: [
        { name: 'web-1', stage: 'PreCheck', passed: true },
        { name: 'web-1', stage: 'PostCheck', passed: false, rejectInfo: [{ ruleName: 'p', reason: 'wait' }] },
      ],
    });
    assert.equal(detailAnnotationValue(rule, 'web-1'), '{"stage":"PreCheck","passed":false,"rejectInfo":[{"ruleName":"p","reason":"wait"}]}');
  });
});

describe('detailAnnotationWrites', () => {
  const annotation = 'detail.podtransitionrule.kusionstack.io/r';
  const noStage = '{"stage":"Unknown","passed":true}';
  const passed = '{"stage":"PreCheck","passed":true}';
  const podWith = (name: string, value?: string, deleting = false): Pod => ({
    metadata: { name, ...(value !== undefined && { annotations: { [annotation]: value } }), ...(deleting && { deletionTimestamp: '2025-03-01T10:00:00Z' }) },
  });
  test('pods whose value changes; not the no-stage value on a pod that carries none, nor any write to a pod being deleted', () => {
    const pods = new Map([
      ['entering', podWith('entering')],
      ['new', podWith('new')],
      ['leaving-stage', podWith('leaving-stage', passed)],
      ['same', podWith('same', passed)],
      ['deleted', podWith('deleted', passed, true)],
      ['left-rule', podWith('left-rule', passed)],
    ]);
    const desired = new Map<string, string | null>([
      ['entering', passed],
      ['new', noStage],
      ['leaving-stage', noStage],
      ['same', passed],
      ['deleted', noStage],
      ['left-rule', null],
      ['gone', passed],
    ]);
    assert.deepEqual(detailAnnotationWrites(annotation, desired, (name) => pods.get(name)), [
      ['entering', passed],
      ['leaving-stage', noStage],
      ['left-rule', null],
    ]);
  });

  test('a pod marked to leave: a rejection and its end are written; a pass, or a rejection worded anew, is not', () => {
    const rejected = '{"stage":"PreCheck","passed":false,"rejectInfo":[{"ruleName":"b","reason":"no"}]}';
    const leaving = (name: string, value?: string, label = TO_DELETE_LABEL): Pod => {
      const p = podWith(name, value);
      return { ...p, metadata: { ...p.metadata, labels: { [label]: '1' } } };
    };
    const pods = new Map([
      ['passing', leaving('passing')],
      ['blocked', leaving('blocked', undefined, TO_EVICT_LABEL)],
      ['unblocked', leaving('unblocked', rejected)],
      ['still-blocked', leaving('still-blocked', rejected)],
    ]);
    const desired = new Map<string, string | null>([
      ['passing', passed],
      ['blocked', rejected],
      ['unblocked', passed],
      ['still-blocked', rejected.replace('no', 'not yet')],
    ]);
    assert.deepEqual(detailAnnotationWrites(annotation, desired, (name) => pods.get(name)), [
      ['blocked', rejected],
      ['unblocked', passed],
    ]);
  });
});
