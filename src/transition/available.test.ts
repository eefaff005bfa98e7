// availablePolicy arithmetic: upstream's available_test.go (owner-replica deficit) and the
// maxUnavailable / minAvailable scenarios of podtransitionrule_controller_test.go.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Pod } from '../api/kube.ts';
import type { AvailableRule } from '../api/podtransitionrule.ts';
import { availablePolicyRule, scaledIntOrPercent, uncreatedOwnerReplicas, type CollaSetLookup, type CollaSetReplicas } from './available.ts';
import { evaluate } from './evaluate.ts';
import { collaSetOwner, ptr, stagePod } from './fixtures.test-support.ts';
import type { RuleContext } from './result.ts';

const byName = (...pods: Pod[]): Map<string, Pod> => new Map(pods.map((p) => [p.metadata.name as string, p]));
const lookup = (collaSets: Record<string, CollaSetReplicas>): CollaSetLookup => (_namespace, name) => collaSets[name];

function context(targets: Map<string, Pod>, subjects: string[], passedBefore: string[] = []): RuleContext {
  return {
    namespace: 'default',
    ruleKey: 'default/ptr/avail',
    ruleName: 'avail',
    subjects: [...subjects].sort(),
    targets,
    passedBefore: (name) => passedBefore.includes(name),
  };
}

const run = (policy: AvailableRule, targets: Map<string, Pod>, subjects: string[], options: { passedBefore?: string[]; collaSets?: CollaSetLookup } = {}) =>
  availablePolicyRule(policy, context(targets, subjects, options.passedBefore), options.collaSets ?? (() => undefined));

describe('availablePolicy: owner-replica deficit (kuperator PR #362)', () => {
  const owned = (name: string, owner = 'cls', uid = 'cls-uid') => stagePod(name, { owner: collaSetOwner(owner, uid) });

  test('a pod without owner contributes nothing', () => assert.equal(uncreatedOwnerReplicas(byName(stagePod('p')), lookup({})), 0));
  test('no deficit when desired equals current', () =>
    assert.equal(uncreatedOwnerReplicas(byName(owned('p1'), owned('p2')), lookup({ cls: { uid: 'cls-uid', replicas: 2 } })), 0));
  test('a missing pod is a deficit of one', () => assert.equal(uncreatedOwnerReplicas(byName(owned('p1')), lookup({ cls: { uid: 'cls-uid', replicas: 2 } })), 1));
  test('an owner that does not exist contributes nothing', () => assert.equal(uncreatedOwnerReplicas(byName(owned('p1')), lookup({})), 0));
  test('an owner whose UID differs (a recycled name) contributes nothing', () =>
    assert.equal(uncreatedOwnerReplicas(byName(owned('p1', 'cls', 'old-uid')), lookup({ cls: { uid: 'new-uid', replicas: 2 } })), 0));
  test('deficits of several owners add up', () =>
    assert.equal(
      uncreatedOwnerReplicas(byName(owned('a1', 'cls-a', 'a'), owned('b1', 'cls-b', 'b')), lookup({ 'cls-a': { uid: 'a', replicas: 3 }, 'cls-b': { uid: 'b', replicas: 2 } })),
      3,
    ));
  test('unset replicas count as one', () => assert.equal(uncreatedOwnerReplicas(byName(owned('p1')), lookup({ cls: { uid: 'cls-uid', replicas: null } })), 0));
  test('a non-CollaSet owner is ignored, even with the same name', () => {
    const rs = stagePod('p', { owner: { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'cls', uid: 'cls-uid', controller: true } });
    assert.equal(uncreatedOwnerReplicas(byName(rs), lookup({ cls: { uid: 'cls-uid', replicas: 5 } })), 0);
  });
  test('a CollaSet of another group, or a reference that is not the controller, is ignored', () => {
    const otherGroup = stagePod('p', { owner: { ...collaSetOwner('cls', 'cls-uid'), apiVersion: 'example.com/v1' } });
    const notController = stagePod('q', { owner: { ...collaSetOwner('cls', 'cls-uid'), controller: false } });
    assert.equal(uncreatedOwnerReplicas(byName(otherGroup, notController), lookup({ cls: { uid: 'cls-uid', replicas: 5 } })), 0);
  });
  test('one lookup per owner', () => {
    let lookups = 0;
    uncreatedOwnerReplicas(byName(owned('p1'), owned('p2'), owned('p3')), () => {
      lookups++;
      return { uid: 'cls-uid', replicas: 3 };
    });
    assert.equal(lookups, 1);
  });

  test('rebuild gap: the lone remaining pod is rejected because the deficit uses up the quota', () => {
    const result = run({ maxUnavailableValue: 1 }, byName(owned('p1')), ['p1'], { collaSets: lookup({ cls: { uid: 'cls-uid', replicas: 2 } }) });
    assert.deepEqual([...result.passed], []);
    assert.equal(result.rejected.get('p1'), '[avail] blocked by max unavailable policy: [max unavailable]=1/1, [current unavailable]=0/1');
  });

  test('full fleet: an available pod passes within the quota', () => {
    const result = run({ maxUnavailableValue: 1 }, byName(owned('p1'), owned('p2')), ['p1'], { collaSets: lookup({ cls: { uid: 'cls-uid', replicas: 2 } }) });
    assert.deepEqual([...result.passed], ['p1']);
  });

  test('a failing lookup rejects every subject and is an error', () => {
    const result = run({ maxUnavailableValue: 1 }, byName(owned('p1')), ['p1'], {
      collaSets: () => {
        throw new Error('cache not synced');
      },
    });
    assert.equal(result.rejected.get('p1'), '[avail] fail to count owner uncreated replicas: cache not synced');
    assert.equal(result.error, '[avail] fail to count owner uncreated replicas: cache not synced');
  });
});

describe('availablePolicy: quotas', () => {
  test('maxUnavailable 50% of 4 with 2 unavailable: the unavailable pass, the available are blocked', () => {
    const pods = byName(stagePod('p1', { available: false }), stagePod('p2', { available: false }), stagePod('p3'), stagePod('p4'));
    const result = run({ maxUnavailableValue: '50%' }, pods, ['p1', 'p2', 'p3', 'p4']);
    assert.deepEqual([...result.passed].sort(), ['p1', 'p2']);
    const reason = '[avail] blocked by max unavailable policy: [max unavailable]=2/4, [current unavailable]=2/4';
    assert.deepEqual(Object.fromEntries(result.rejected), { p3: reason, p4: reason });
    assert.equal(result.error, undefined);
  });

  test('then a third pod becomes unavailable: it passes, the fourth stays blocked (passed pods keep consuming quota)', () => {
    const pods = byName(stagePod('p1', { available: false }), stagePod('p2', { available: false }), stagePod('p3', { available: false }), stagePod('p4'));
    const result = run({ maxUnavailableValue: '50%' }, pods, ['p1', 'p2', 'p3', 'p4'], { passedBefore: ['p1', 'p2'] });
    assert.deepEqual([...result.passed].sort(), ['p1', 'p2', 'p3']);
    assert.equal(result.rejected.get('p4'), '[avail] blocked by max unavailable policy: [max unavailable]=2/4, [current unavailable]=3/4');
  });

  test('a passed pod that became available again still consumes quota while it stays in the stage', () => {
    const pods = byName(stagePod('p1'), stagePod('p2'));
    const result = run({ maxUnavailableValue: 1 }, pods, ['p1', 'p2'], { passedBefore: ['p1'] });
    assert.deepEqual([...result.passed], ['p1']);
    assert.equal(result.rejected.get('p2'), '[avail] blocked by max unavailable policy: [max unavailable]=1/2, [current unavailable]=1/2');
  });

  test('the choice is by pod name: with room for one, the first name passes whatever the input order', () => {
    const pods = byName(stagePod('web-c'), stagePod('web-a'), stagePod('web-b'));
    const result = run({ maxUnavailableValue: 1 }, pods, ['web-c', 'web-b', 'web-a']);
    assert.deepEqual([...result.passed], ['web-a']);
    assert.deepEqual([...result.rejected.keys()].sort(), ['web-b', 'web-c']);
  });

  test('minAvailable: pods pass while at least that many stay available', () => {
    const pods = byName(stagePod('p1'), stagePod('p2'), stagePod('p3'), stagePod('p4'));
    const result = run({ minAvailableValue: 3 }, pods, ['p1', 'p2', 'p3', 'p4']);
    assert.deepEqual([...result.passed], ['p1']);
    const reason = 'blocked by min available policy: [min available]=3/4, [current keep available]=3/4';
    assert.deepEqual(Object.fromEntries(result.rejected), { p2: reason, p3: reason, p4: reason });
  });

  test('min and max together: the tighter one decides, each with its own reason', () => {
    const six = ['p1', 'p2', 'p3', 'p4', 'p5', 'p6'];
    const pods = byName(...six.map((n) => stagePod(n)));
    // max 50% of 6 = 3; min 4 of 6 leaves room for 2.
    const result = run({ maxUnavailableValue: '50%', minAvailableValue: 4 }, pods, six);
    assert.deepEqual([...result.passed], ['p1', 'p2']);
    assert.equal(result.rejected.get('p3'), 'blocked by min available policy: [min available]=4/6, [current keep available]=4/6');
    // max 1 leaves room for 1; min 2 would allow 4.
    const tight = run({ maxUnavailableValue: 1, minAvailableValue: 2 }, pods, six);
    assert.deepEqual([...tight.passed], ['p1']);
    assert.equal(tight.rejected.get('p2'), '[avail] blocked by max unavailable policy: [max unavailable]=1/6, [current unavailable]=1/6');
  });

  test('total counts every selected pod, not only the subjects', () => {
    const pods = byName(stagePod('p1'), stagePod('p2', { stage: 'none' }), stagePod('p3', { stage: 'none' }), stagePod('p4', { stage: 'none' }));
    assert.deepEqual([...run({ maxUnavailableValue: '25%' }, pods, ['p1']).passed], ['p1']);
  });

  test('percentages: maxUnavailable rounds up, minAvailable rounds down', () => {
    assert.equal(scaledIntOrPercent('50%', 3, true), 2);
    assert.equal(scaledIntOrPercent('50%', 3, false), 1);
    assert.equal(scaledIntOrPercent('33%', 3, true), 1);
    assert.equal(scaledIntOrPercent('+10%', 10, true), 1);
    assert.equal(scaledIntOrPercent(7, 3, true), 7);
  });

  test('bad values: upstream error texts', () => {
    assert.equal(scaledIntOrPercent('5', 10, true), 'invalid value for IntOrString: invalid type: string is not a percentage');
    assert.equal(scaledIntOrPercent('x%', 10, true), 'invalid value for IntOrString: invalid value "x%": strconv.Atoi: parsing "x": invalid syntax');
    assert.equal(scaledIntOrPercent(1.5, 10, true), 'invalid value for IntOrString: invalid type: neither int nor percentage');
  });

  test('a bad value rejects every subject, naming the field and its own value, and is an error', () => {
    const pods = byName(stagePod('p1'), stagePod('p2'));
    const max = run({ maxUnavailableValue: 'abc' }, pods, ['p1', 'p2']);
    const maxReason = '[avail] fail to get int value from raw max unavailable value(abc), error: invalid value for IntOrString: invalid type: string is not a percentage';
    assert.deepEqual(Object.fromEntries(max.rejected), { p1: maxReason, p2: maxReason });
    assert.equal(max.error, maxReason);
    const min = run({ minAvailableValue: 'x%' }, pods, ['p1']);
    assert.equal(
      min.rejected.get('p1'),
      '[avail] fail to get int value from raw min available value(x%), error: invalid value for IntOrString: invalid value "x%": strconv.Atoi: parsing "x": invalid syntax',
    );
  });
});

describe('availablePolicy through evaluate', () => {
  test('maxUnavailable 50% of 4: status details, reasons and sticky passes across evaluations', () => {
    const rule = { name: 'max-unavailable', availablePolicy: { maxUnavailableValue: '50%' } };
    const pods = [stagePod('p1', { available: false }), stagePod('p2', { available: false }), stagePod('p3'), stagePod('p4')];
    const first = evaluate({ ptr: ptr([rule]), pods, now: 1n });
    const reason = '[max-unavailable] blocked by max unavailable policy: [max unavailable]=2/4, [current unavailable]=2/4';
    assert.deepEqual(first.status.details, [
      { name: 'p1', stage: 'PreCheck', passed: true, passedRules: ['max-unavailable'] },
      { name: 'p2', stage: 'PreCheck', passed: true, passedRules: ['max-unavailable'] },
      { name: 'p3', stage: 'PreCheck', passed: false, rejectInfo: [{ ruleName: 'max-unavailable', reason }] },
      { name: 'p4', stage: 'PreCheck', passed: false, rejectInfo: [{ ruleName: 'max-unavailable', reason }] },
    ]);
    // p1 comes back into service but is still in PreCheck: its pass sticks and keeps its quota.
    const later = [stagePod('p1'), stagePod('p2', { available: false }), stagePod('p3'), stagePod('p4')];
    const second = evaluate({ ptr: ptr([rule], { status: first.status }), pods: later, now: 2n });
    assert.deepEqual(
      second.status.details?.map((d) => [d.name, d.passed]),
      [
        ['p1', true],
        ['p2', true],
        ['p3', false],
        ['p4', false],
      ],
    );
  });
});
