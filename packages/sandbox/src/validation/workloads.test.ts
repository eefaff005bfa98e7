import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { fieldErrorString } from '../errors.ts';
import { goFieldErrorString as show } from './golang.ts';
import type { JsonObject } from '../meta/object.ts';
import { applyDefaults } from '../defaults/index.ts';
import { validateCreate, validateStatusUpdate, validateUpdate } from './index.ts';

const gvk = (group: string, kind: string) => ({ group, version: 'v1', kind });
const DEPLOYMENT = gvk('apps', 'Deployment');
const REPLICASET = gvk('apps', 'ReplicaSet');
const STATEFULSET = gvk('apps', 'StatefulSet');
const DAEMONSET = gvk('apps', 'DaemonSet');
const JOB = gvk('batch', 'Job');

const template = (labels: Record<string, string> = { app: 'web' }, restartPolicy?: string): JsonObject => ({
  metadata: { labels },
  spec: { ...(restartPolicy ? { restartPolicy } : {}), containers: [{ name: 'c', image: 'nginx' }] },
});

function make(kind: ReturnType<typeof gvk>, spec: JsonObject, name = 'web'): JsonObject {
  const obj: JsonObject = { metadata: { name, namespace: 'probe', uid: 'uid-1', resourceVersion: '1' }, spec };
  applyDefaults(kind, obj, { operation: 'create', random: () => 'abcde' });
  return obj;
}

/** Go-printed values are shown as the real server prints them (errors.ts renders them differently). */
const errors = (kind: ReturnType<typeof gvk>, spec: JsonObject, name?: string): string[] => validateCreate(kind, make(kind, spec, name)).map(show);

describe('Deployment and ReplicaSet', () => {
  test('a valid deployment', () => {
    assert.deepEqual(errors(DEPLOYMENT, { selector: { matchLabels: { app: 'web' } }, template: template() }), []);
  });

  test('selector required, template labels must match, replicas not negative', () => {
    assert.deepEqual(errors(DEPLOYMENT, { replicas: -1, template: template() }), [
      'spec.replicas: Invalid value: -1: must be greater than or equal to 0',
      'spec.selector: Required value',
      'spec.template.metadata.labels: Invalid value: map[string]string{"app":"web"}: `selector` does not match template `labels`',
    ]);
  });

  test('an empty selector is invalid', () => {
    assert.deepEqual(errors(REPLICASET, { selector: {}, template: template() }), ['spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string(nil), MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: empty selector is invalid for deployment']);
  });

  test('the template must restart always and may not have a deadline', () => {
    const tpl = template({ app: 'web' }, 'Never');
    ((tpl.spec as JsonObject).activeDeadlineSeconds as unknown) = 10;
    assert.deepEqual(errors(DEPLOYMENT, { selector: { matchLabels: { app: 'web' } }, template: tpl }), [
      'spec.template.spec.restartPolicy: Unsupported value: "Never": supported values: "Always"',
      'spec.template.spec.activeDeadlineSeconds: Forbidden: activeDeadlineSeconds in ReplicaSet is not Supported',
    ]);
  });

  test('rolling update limits', () => {
    assert.deepEqual(
      errors(DEPLOYMENT, { selector: { matchLabels: { app: 'web' } }, template: template(), strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 0, maxSurge: 0 } } }),
      ['spec.strategy.rollingUpdate.maxUnavailable: Invalid value: intstr.IntOrString{Type:0, IntVal:0, StrVal:""}: may not be 0 when `maxSurge` is 0'],
    );
    assert.deepEqual(
      errors(DEPLOYMENT, { selector: { matchLabels: { app: 'web' } }, template: template(), strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '150%' } } }),
      ['spec.strategy.rollingUpdate.maxUnavailable: Invalid value: intstr.IntOrString{Type:1, IntVal:0, StrVal:"150%"}: must not be greater than 100%'],
    );
  });

  test('progressDeadlineSeconds must exceed minReadySeconds', () => {
    assert.deepEqual(errors(DEPLOYMENT, { selector: { matchLabels: { app: 'web' } }, template: template(), minReadySeconds: 600, progressDeadlineSeconds: 600 }), [
      'spec.progressDeadlineSeconds: Invalid value: 600: must be greater than minReadySeconds',
    ]);
  });

  test('status counters', () => {
    const dep = make(DEPLOYMENT, { selector: { matchLabels: { app: 'web' } }, template: template() });
    const next = structuredClone(dep);
    next.status = { replicas: 1, readyReplicas: 2, collisionCount: 0 };
    const old = structuredClone(dep);
    old.status = { collisionCount: 3 };
    assert.deepEqual(validateStatusUpdate(DEPLOYMENT, next, old).map(fieldErrorString), [
      'status.readyReplicas: Invalid value: 2: cannot be greater than status.replicas',
      'status.collisionCount: Invalid value: 0: cannot be decremented',
    ]);
  });
});

describe('StatefulSet', () => {
  const sts = (spec: JsonObject = {}): JsonObject => make(STATEFULSET, { selector: { matchLabels: { app: 'web' } }, serviceName: 'db', template: template(), ...spec }, 'db');

  test('names are DNS labels; the pod spec of the template is not validated', () => {
    assert.deepEqual(validateCreate(STATEFULSET, sts()), []);
    assert.deepEqual(errors(STATEFULSET, { selector: { matchLabels: { app: 'web' } }, template: template() }, 'a.b'), ['metadata.name: Invalid value: "a.b": must not contain dots']);
    const noImage = template();
    (noImage.spec as JsonObject).containers = [{ name: 'c' }];
    assert.deepEqual(validateCreate(STATEFULSET, make(STATEFULSET, { selector: { matchLabels: { app: 'web' } }, template: noImage })), []);
  });

  test('only some spec fields may change', () => {
    const old = sts();
    const scaled = structuredClone(old);
    (scaled.spec as JsonObject).replicas = 5;
    assert.deepEqual(validateUpdate(STATEFULSET, scaled, old), []);
    const renamed = structuredClone(old);
    (renamed.spec as JsonObject).serviceName = 'other';
    assert.deepEqual(validateUpdate(STATEFULSET, renamed, old).map(fieldErrorString), [
      "spec: Forbidden: updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden",
    ]);
  });

  test('management policy and update strategy values', () => {
    assert.deepEqual(
      errors(STATEFULSET, { selector: { matchLabels: { app: 'web' } }, template: template(), podManagementPolicy: 'Random', updateStrategy: { type: 'Sometimes' } }, 'db'),
      ["spec.podManagementPolicy: Invalid value: \"Random\": must be 'OrderedReady' or 'Parallel'", "spec.updateStrategy: Invalid value: apps.StatefulSetUpdateStrategy{Type:\"Sometimes\"}: must be 'RollingUpdate' or 'OnDelete'"],
    );
  });
});

describe('DaemonSet', () => {
  test('exactly one of maxUnavailable and maxSurge is non-zero', () => {
    const spec = (rollingUpdate: JsonObject): JsonObject => ({ selector: { matchLabels: { app: 'web' } }, template: template(), updateStrategy: { type: 'RollingUpdate', rollingUpdate } });
    assert.deepEqual(errors(DAEMONSET, spec({ maxUnavailable: 1, maxSurge: 1 })), ['spec.updateStrategy.rollingUpdate.maxSurge: Invalid value: intstr.IntOrString{Type:0, IntVal:1, StrVal:""}: may not be set when maxUnavailable is non-zero']);
    assert.deepEqual(errors(DAEMONSET, spec({ maxUnavailable: 0, maxSurge: 0 })), ['spec.updateStrategy.rollingUpdate.maxUnavailable: Required value: cannot be 0 when maxSurge is 0']);
  });

  test('a missing selector is only reported as a template mismatch', () => {
    assert.deepEqual(errors(DAEMONSET, { template: template() }), ['spec.template.metadata.labels: Invalid value: map[string]string{"app":"web"}: `selector` does not match template `labels`']);
  });

  test('the selector is immutable', () => {
    const old = make(DAEMONSET, { selector: { matchLabels: { app: 'web' } }, template: template() });
    const next = structuredClone(old);
    (next.spec as JsonObject).selector = { matchLabels: { app: 'web' }, matchExpressions: [{ key: 'x', operator: 'DoesNotExist' }] };
    assert.deepEqual(validateUpdate(DAEMONSET, next, old).map((e) => e.field), ['spec.selector']);
  });
});

describe('Job', () => {
  const job = (spec: JsonObject = {}): JsonObject => make(JOB, { template: template({ app: 'pi' }, 'Never'), ...spec }, 'pi');

  test('a defaulted job is valid; restartPolicy Always is not', () => {
    assert.deepEqual(validateCreate(JOB, job()), []);
    assert.deepEqual(errors(JOB, { template: template({ app: 'pi' }) }, 'pi'), ['spec.template.spec.restartPolicy: Required value: valid values: "OnFailure", "Never"']);
  });

  test('generated labels that the user changed are reported', () => {
    const bad = job({ template: { ...template({ app: 'pi', 'job-name': 'other' }, 'Never') } });
    assert.deepEqual(validateCreate(JOB, bad).map((e) => `${e.field}: ${e.detail}`), ["spec.template.metadata.labels[job-name]: must be 'pi'"]);
  });

  test('the template is immutable, unless the job is suspended and never started (scheduling directives only)', () => {
    const old = job();
    const next = structuredClone(old);
    ((next.spec as JsonObject).template as JsonObject).spec = { ...(((next.spec as JsonObject).template as JsonObject).spec as JsonObject), nodeSelector: { zone: 'a' } };
    assert.deepEqual(validateUpdate(JOB, next, old).map((e) => [e.field, e.detail]), [['spec.template', 'field is immutable']]);
    const suspended = job({ suspend: true });
    const moved = structuredClone(suspended);
    ((moved.spec as JsonObject).template as JsonObject).spec = { ...(((moved.spec as JsonObject).template as JsonObject).spec as JsonObject), nodeSelector: { zone: 'a' } };
    assert.deepEqual(validateUpdate(JOB, moved, suspended), []);
  });

  test('completions are immutable for non-indexed jobs', () => {
    const old = job();
    const next = structuredClone(old);
    (next.spec as JsonObject).completions = 3;
    assert.deepEqual(validateUpdate(JOB, next, old).map(fieldErrorString), ['spec.completions: Invalid value: 3: field is immutable']);
  });
});
