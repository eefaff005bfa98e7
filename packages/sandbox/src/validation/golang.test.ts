import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { goIntOrStringText, goLabelSelectorText, goStringMapText, goStringSliceText, podSpecDiff } from './golang.ts';

const N = '\u00a0';

describe('%#v renderings', () => {
  test('maps sort their keys; absent maps and slices are typed nils', () => {
    assert.equal(goStringMapText({ b: '2', a: '1' }), 'map[string]string{"a":"1", "b":"2"}');
    assert.equal(goStringMapText(undefined), 'map[string]string(nil)');
    assert.equal(goStringSliceText(['example.com/g']), '[]string{"example.com/g"}');
    assert.equal(goStringSliceText(undefined), '[]string(nil)');
  });
  test('label selectors and int-or-strings', () => {
    assert.equal(
      goLabelSelectorText({ matchExpressions: [{ key: 'a', operator: 'In', values: ['x'] }] }),
      'v1.LabelSelector{MatchLabels:map[string]string(nil), MatchExpressions:[]v1.LabelSelectorRequirement{v1.LabelSelectorRequirement{Key:"a", Operator:"In", Values:[]string{"x"}}}}',
    );
    assert.equal(goIntOrStringText('25x'), 'intstr.IntOrString{Type:1, IntVal:0, StrVal:"25x"}');
    assert.equal(goIntOrStringText(3), 'intstr.IntOrString{Type:0, IntVal:3, StrVal:""}');
  });
});

describe('go-cmp diff of a pod spec', () => {
  const spec = {
    containers: [{ name: 'c', image: 'nginx' }],
    restartPolicy: 'Always',
    terminationGracePeriodSeconds: 30,
    dnsPolicy: 'ClusterFirst',
    serviceAccountName: 'default',
    securityContext: {},
    schedulerName: 'default-scheduler',
    priority: 0,
    preemptionPolicy: 'PreemptLowerPriority',
    enableServiceLinks: true,
  };

  test('the reference example: a readiness gate added', () => {
    const next = { ...spec, readinessGates: [{ conditionType: 'example.com/ready' }] };
    assert.equal(
      podSpecDiff(spec, next),
      [
        `${N}${N}core.PodSpec{`,
        `${N}${N}\t... // 23 identical fields`,
        `${N}${N}\tPreemptionPolicy: &"PreemptLowerPriority",`,
        `${N}${N}\tDNSConfig:        nil,`,
        `-${N}\tReadinessGates:   nil,`,
        `+${N}\tReadinessGates:   []core.PodReadinessGate{{ConditionType: "example.com/ready"}},`,
        `${N}${N}\tRuntimeClassName: nil,`,
        `${N}${N}\tOverhead:         nil,`,
        `${N}${N}\t... // 6 identical fields`,
        `${N}${N}}`,
        '',
      ].join('\n'),
    );
  });

  test('a change near the start; a single elided field is shown instead', () => {
    const diff = podSpecDiff(spec, { ...spec, restartPolicy: 'Never' }).split('\n');
    assert.deepEqual(diff.slice(0, 8), [
      `${N}${N}core.PodSpec{`,
      `${N}${N}\t... // 2 identical fields`,
      `${N}${N}\tContainers:                    {{Name: "c", Image: "nginx"}},`,
      `${N}${N}\tEphemeralContainers:           nil,`,
      `-${N}\tRestartPolicy:                 "Always",`,
      `+${N}\tRestartPolicy:                 "Never",`,
      `${N}${N}\tTerminationGracePeriodSeconds: &30,`,
      `${N}${N}\tActiveDeadlineSeconds:         nil,`,
    ]);
  });

  test('host namespaces are part of the internal security context', () => {
    const diff = podSpecDiff(spec, { ...spec, hostNetwork: true });
    assert.ok(diff.includes(`+${N}\tSecurityContext:              &core.PodSecurityContext{HostNetwork: true},`), diff);
  });
});
