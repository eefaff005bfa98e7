// Validation and defaulting of RolloutLifecycles: each error in apimachinery's words.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { LifecycleHook, RolloutLifecycle } from '../api/rolloutlifecycle.ts';
import { defaultRolloutLifecycle, validateRolloutLifecycle, validateRolloutLifecycleUpdate } from './validate.ts';

const jobSpec = { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'smoke', image: 'smoke:1' }] } } };
const hook = (extra: Partial<LifecycleHook> = {}): LifecycleHook => ({ name: 'smoke', trigger: { progressAvailableParams: { progressPoint: '50%' } }, jobSpec, ...extra });
const rl = (spec: RolloutLifecycle['spec']): RolloutLifecycle => ({ metadata: { name: 'web-hooks', namespace: 'shop' }, spec });
const valid = (hooks: LifecycleHook[]) => rl({ targetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }, hooks });

describe('validateRolloutLifecycle', () => {
  test('a valid one has no errors', () => {
    assert.deepEqual(validateRolloutLifecycle(valid([hook(), hook({ name: 'pre', trigger: { type: 'ProgressAvailable', progressAvailableParams: { progressPoint: 0 } }, failurePolicy: 'Ignore', retainPolicy: 'Never' })])), []);
    assert.deepEqual(validateRolloutLifecycle(rl({ targetRef: { kind: 'DaemonSet', name: 'agent' } })), []);
  });

  test('the target', () => {
    assert.deepEqual(validateRolloutLifecycle(rl({ targetRef: { kind: 'StatefulSet' } })), ['spec.targetRef.name: Required value']);
    assert.deepEqual(validateRolloutLifecycle(rl({ targetRef: { kind: 'CloneSet', name: 'web' } })), [
      'spec.targetRef.kind: Unsupported value: "CloneSet": supported values: "Deployment", "StatefulSet", "DaemonSet"',
    ]);
    assert.deepEqual(validateRolloutLifecycle(rl({ targetRef: { apiVersion: 'apps/v1beta2', kind: 'Deployment', name: 'web' } })), [
      'spec.targetRef.apiVersion: Unsupported value: "apps/v1beta2": supported values: "apps/v1"',
    ]);
    assert.deepEqual(validateRolloutLifecycle(rl(undefined)), [
      'spec.targetRef.name: Required value',
      'spec.targetRef.kind: Unsupported value: "": supported values: "Deployment", "StatefulSet", "DaemonSet"',
    ]);
  });

  test('hook names: required, a DNS label of at most 40 characters, unique', () => {
    assert.deepEqual(validateRolloutLifecycle(valid([hook({ name: '' })])), ['spec.hooks[0].name: Required value']);
    const rule = "a hook name is part of its Jobs' names: lower case letters, digits and '-', starting and ending with a letter or digit, at most 40 characters";
    assert.deepEqual(validateRolloutLifecycle(valid([hook({ name: 'Smoke_Test' })])), [`spec.hooks[0].name: Invalid value: "Smoke_Test": ${rule}`]);
    assert.deepEqual(validateRolloutLifecycle(valid([hook({ name: 'smoke-' })])), [`spec.hooks[0].name: Invalid value: "smoke-": ${rule}`]);
    assert.deepEqual(validateRolloutLifecycle(valid([hook({ name: 'a'.repeat(41) })])), [`spec.hooks[0].name: Invalid value: "${'a'.repeat(41)}": ${rule}`]);
    assert.deepEqual(validateRolloutLifecycle(valid([hook({ name: 'a'.repeat(40) })])), []);
    assert.deepEqual(validateRolloutLifecycle(valid([hook(), hook({ name: 'pre' }), hook()])), ['spec.hooks[2].name: Duplicate value: "smoke"']);
  });

  test('the trigger', () => {
    assert.deepEqual(validateRolloutLifecycle(valid([hook({ trigger: { type: 'ProgressReady', progressAvailableParams: { progressPoint: 1 } } })])), [
      'spec.hooks[0].trigger.type: Unsupported value: "ProgressReady": supported values: "ProgressAvailable"',
    ]);
    assert.deepEqual(validateRolloutLifecycle(valid([hook({ trigger: {} })])), ['spec.hooks[0].trigger.progressAvailableParams.progressPoint: Required value']);
    assert.deepEqual(validateRolloutLifecycle(valid([hook({ trigger: undefined })])), ['spec.hooks[0].trigger.progressAvailableParams.progressPoint: Required value']);
  });

  test('the progress point', () => {
    const point = (progressPoint: unknown) => validateRolloutLifecycle(valid([hook({ trigger: { progressAvailableParams: { progressPoint: progressPoint as number } } })]));
    const path = 'spec.hooks[0].trigger.progressAvailableParams.progressPoint';
    assert.deepEqual(point(-1), [`${path}: Invalid value: "-1": must be a non-negative integer`]);
    assert.deepEqual(point(2.5), [`${path}: Invalid value: "2.5": must be a non-negative integer`]);
    assert.deepEqual(point('half'), [`${path}: Invalid value: "half": must be an integer or a percentage such as "50%"`]);
    assert.deepEqual(point('150%'), [`${path}: Invalid value: "150%": must be a percentage from 0% to 100%`]);
    assert.deepEqual(point(true), [`${path}: Invalid value: "true": must be an integer or a percentage`]);
    assert.deepEqual(point(100), []);
  });

  test('failure and retain policies', () => {
    assert.deepEqual(validateRolloutLifecycle(valid([hook({ failurePolicy: 'Retry' as never })])), ['spec.hooks[0].failurePolicy: Unsupported value: "Retry": supported values: "Abort", "Ignore"']);
    assert.deepEqual(validateRolloutLifecycle(valid([hook({ retainPolicy: 'Sometimes' as never })])), [
      'spec.hooks[0].retainPolicy: Unsupported value: "Sometimes": supported values: "Always", "OnFailure", "Never"',
    ]);
  });

  test('the jobSpec, as far as can be told without the API server', () => {
    const errors = (jobSpec: unknown) => validateRolloutLifecycle(valid([hook({ jobSpec: jobSpec as Record<string, unknown> })]));
    assert.deepEqual(errors(undefined), ['spec.hooks[0].jobSpec: Required value']);
    assert.deepEqual(errors([]), ['spec.hooks[0].jobSpec: Required value']);
    assert.deepEqual(errors({ template: {} }), ['spec.hooks[0].jobSpec.template.spec: Required value']);
    assert.deepEqual(errors({ template: { spec: { restartPolicy: 'Never', containers: [] } } }), ['spec.hooks[0].jobSpec.template.spec.containers: Required value']);
    assert.deepEqual(errors({ template: { spec: { containers: [{ name: 'x' }] } } }), [
      'spec.hooks[0].jobSpec.template.spec.restartPolicy: Required value: a Job\'s pods need restartPolicy "Never" or "OnFailure"',
    ]);
    assert.deepEqual(errors({ template: { spec: { restartPolicy: 'Always', containers: [{ name: 'x' }] } } }), [
      'spec.hooks[0].jobSpec.template.spec.restartPolicy: Unsupported value: "Always": supported values: "OnFailure", "Never"',
    ]);
  });

  test('every error of every hook, in order', () => {
    assert.deepEqual(validateRolloutLifecycle(valid([hook({ name: 'ok' }), hook({ name: 'ok', failurePolicy: 'x' as never, jobSpec: undefined })])), [
      'spec.hooks[1].name: Duplicate value: "ok"',
      'spec.hooks[1].failurePolicy: Unsupported value: "x": supported values: "Abort", "Ignore"',
      'spec.hooks[1].jobSpec: Required value',
    ]);
  });
});

describe('validateRolloutLifecycleUpdate', () => {
  test('the target is immutable: the workload it holds is released only when the RolloutLifecycle goes', () => {
    const old = valid([hook()]);
    assert.deepEqual(validateRolloutLifecycleUpdate(rl({ targetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'api' }, hooks: [hook()] }), old), [
      'spec.targetRef: Invalid value: "Deployment/api": field is immutable (it targets Deployment/web: delete this RolloutLifecycle and create one for the other workload)',
    ]);
    assert.equal(validateRolloutLifecycleUpdate(rl({ targetRef: { apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'web' } }), old).length, 1);
  });

  test('anything else may change; the defaulted apiVersion is no change', () => {
    assert.deepEqual(validateRolloutLifecycleUpdate(valid([]), valid([hook()])), []);
    assert.deepEqual(validateRolloutLifecycleUpdate(rl({ targetRef: { kind: 'Deployment', name: 'web' } }), valid([])), []);
  });
});

describe('defaultRolloutLifecycle', () => {
  test("the target's apiVersion, each hook's trigger type and policies", () => {
    const given = rl({ targetRef: { kind: 'Deployment', name: 'web' }, hooks: [hook(), hook({ name: 'pre', failurePolicy: 'Ignore', retainPolicy: 'Never', trigger: { type: 'ProgressAvailable', progressAvailableParams: { progressPoint: 0 } } })] });
    assert.deepEqual(defaultRolloutLifecycle(given), [
      { op: 'add', path: '/spec/targetRef/apiVersion', value: 'apps/v1' },
      { op: 'add', path: '/spec/hooks/0/trigger/type', value: 'ProgressAvailable' },
      { op: 'add', path: '/spec/hooks/0/failurePolicy', value: 'Abort' },
      { op: 'add', path: '/spec/hooks/0/retainPolicy', value: 'Always' },
    ]);
  });

  test('nothing to default: no operations', () => {
    assert.deepEqual(defaultRolloutLifecycle(valid([hook({ failurePolicy: 'Abort', retainPolicy: 'Always', trigger: { type: 'ProgressAvailable', progressAvailableParams: { progressPoint: 1 } } })])), []);
    assert.deepEqual(defaultRolloutLifecycle(rl(undefined)), []);
  });

  test('a hook without a trigger is left to validation', () => {
    assert.deepEqual(defaultRolloutLifecycle(valid([hook({ trigger: undefined })])), []);
  });
});
