import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { statusOf } from './status-error.test-support.ts';
import type { JsonObject } from '../meta/object.ts';
import { strategicSchemaFor } from './builtin-schemas.ts';
import { recordUpdateManagedFields } from './managed-fields.ts';
import { patchSchemaFromOpenAPI } from './openapi-schema.ts';
import { applyServerSideApply, type ServerSideApplyInput } from './server-side-apply.ts';

const configMapSchema = strategicSchemaFor('v1', 'ConfigMap');
const deploymentSchema = strategicSchemaFor('apps/v1', 'Deployment');
const T0 = '2025-03-01T10:00:00Z';
const T1 = '2025-03-01T10:00:01Z';
const T2 = '2025-03-01T10:00:02Z';

const configMap = (data?: Record<string, string>): JsonObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'ssa1', namespace: 'probe' },
  ...(data ? { data } : {}),
});

function apply(live: JsonObject | undefined, applied: unknown, fieldManager: string, extra: Partial<ServerSideApplyInput> = {}): JsonObject {
  return applyServerSideApply({ live, applied, fieldManager, force: false, schema: configMapSchema, now: T0, ...extra });
}

const managedFieldsOf = (o: JsonObject): JsonObject[] => ((o.metadata as JsonObject).managedFields ?? []) as JsonObject[];
const ownership = (o: JsonObject): Record<string, unknown> =>
  Object.fromEntries(managedFieldsOf(o).map((e) => [`${String(e.manager)}/${String(e.operation)}`, e.fieldsV1]));

describe('server-side apply: the cases of reference N.2', () => {
  test('without fieldManager: 422 on PatchOptions', () => {
    assert.deepEqual(statusOf(() => apply(undefined, configMap({ a: '1' }), '')), {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch',
      reason: 'Invalid',
      details: {
        group: 'meta.k8s.io',
        kind: 'PatchOptions',
        causes: [{ reason: 'FieldValueRequired', message: 'Required value: is required for apply patch', field: 'fieldManager' }],
      },
      code: 422,
    });
  });

  test('creating by apply: the applier owns what it sent', () => {
    const created = apply(undefined, configMap({ a: '1', b: '2' }), 'm1');
    assert.deepEqual(created, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: {
        name: 'ssa1',
        namespace: 'probe',
        managedFields: [
          { manager: 'm1', operation: 'Apply', apiVersion: 'v1', time: T0, fieldsType: 'FieldsV1', fieldsV1: { 'f:data': { 'f:a': {}, 'f:b': {} } } },
        ],
      },
      data: { a: '1', b: '2' },
    });
  });

  test('another manager changing an owned field: 409 with one FieldManagerConflict cause', () => {
    const live = apply(undefined, configMap({ a: '1' }), 'm1');
    assert.deepEqual(statusOf(() => apply(live, configMap({ a: '2' }), 'm2')), {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'Apply failed with 1 conflict: conflict with "m1": .data.a',
      reason: 'Conflict',
      details: { causes: [{ reason: 'FieldManagerConflict', message: 'conflict with "m1"', field: '.data.a' }] },
      code: 409,
    });
  });

  test('force moves ownership; a manager left with nothing disappears', () => {
    const live = apply(undefined, configMap({ a: '1' }), 'm1');
    const forced = apply(live, configMap({ a: '2' }), 'm2', { force: true, now: T1 });
    assert.deepEqual((forced as { data?: unknown }).data, { a: '2' });
    assert.deepEqual(managedFieldsOf(forced), [
      { manager: 'm2', operation: 'Apply', apiVersion: 'v1', time: T1, fieldsType: 'FieldsV1', fieldsV1: { 'f:data': { 'f:a': {} } } },
    ]);
  });

  test('a field the applier stops sending is removed when nobody else owns it', () => {
    const live = apply(apply(undefined, configMap({ b: '1' }), 'm1'), configMap({ a: '1' }), 'm2');
    const after = apply(live, configMap({ c: '3' }), 'm2', { now: T1 });
    assert.deepEqual(after.data, { b: '1', c: '3' });
    assert.deepEqual(ownership(after), { 'm1/Apply': { 'f:data': { 'f:b': {} } }, 'm2/Apply': { 'f:data': { 'f:c': {} } } });
  });

  test('a body without apiVersion and kind: 400 invalid object type', () => {
    assert.equal(statusOf(() => apply(undefined, { metadata: { name: 'ssa1' } }, 'm1')).message, 'invalid object type: /, Kind=');
  });
});

describe('server-side apply: ownership', () => {
  test('applying the value another manager set shares ownership without conflict', () => {
    const live = apply(undefined, configMap({ a: '1' }), 'm1');
    const shared = apply(live, configMap({ a: '1' }), 'm2', { now: T1 });
    assert.deepEqual(ownership(shared), { 'm1/Apply': { 'f:data': { 'f:a': {} } }, 'm2/Apply': { 'f:data': { 'f:a': {} } } });
    // Nothing changed, so the new entry carries no time (and sorts first) and the object is as it was.
    assert.deepEqual(managedFieldsOf(shared).map((e) => [e.manager, e.time]), [['m2', undefined], ['m1', T0]]);
    assert.deepEqual(shared.data, { a: '1' });
    // m1 dropping the field now keeps it: m2 still owns it.
    const kept = apply(shared, configMap({ z: '9' }), 'm1', { now: T2 });
    assert.deepEqual(kept.data, { a: '1', z: '9' });
  });

  test('re-applying the same configuration changes nothing, not even the time', () => {
    const live = apply(undefined, configMap({ a: '1' }), 'm1');
    assert.deepEqual(apply(live, configMap({ a: '1' }), 'm1', { now: T2 }), live);
  });

  test('conflict with a field an ordinary write set names its operation and version', () => {
    const created = recordUpdateManagedFields({ live: undefined, updated: configMap({ a: '1' }), manager: 'kubectl-create', apiVersion: 'v1', schema: configMapSchema, now: T0 });
    const status = statusOf(() => apply(created, configMap({ a: '2' }), 'm1'));
    assert.equal(status.message, 'Apply failed with 1 conflict: conflict with "kubectl-create" using v1: .data.a');
  });

  test('an object without managedFields gives its fields to before-first-apply first', () => {
    const status = statusOf(() => apply(configMap({ a: '1' }), configMap({ a: '2' }), 'm1'));
    assert.equal(status.message, 'Apply failed with 1 conflict: conflict with "before-first-apply" using v1: .data.a');
    const adding = apply(configMap({ a: '1' }), configMap({ b: '2' }), 'm1', { now: T1 });
    assert.deepEqual(ownership(adding), { 'm1/Apply': { 'f:data': { 'f:b': {} } }, 'before-first-apply/Update': { 'f:data': { '.': {}, 'f:a': {} } } });
  });

  test('several conflicts are listed by manager', () => {
    const live = apply(apply(undefined, configMap({ a: '1', b: '1' }), 'm1'), configMap({ c: '1' }), 'm2');
    const status = statusOf(() => apply(live, configMap({ a: '2', b: '2', c: '2' }), 'm3'));
    assert.equal(status.message, 'Apply failed with 3 conflicts: conflicts with "m1"\n- .data.a\n- .data.b\nconflicts with "m2"\n- .data.c');
    assert.deepEqual(status.details?.causes?.map((c) => [c.message, c.field]), [
      ['conflict with "m1"', '.data.a'],
      ['conflict with "m1"', '.data.b'],
      ['conflict with "m2"', '.data.c'],
    ]);
  });

  test('fields the endpoint resets are not owned', () => {
    const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { nodeName: 'n1' }, status: { phase: 'Running' } };
    const created = applyServerSideApply({ live: undefined, applied: pod, fieldManager: 'm1', force: false, schema: strategicSchemaFor('v1', 'Pod'), now: T0, ignoredFields: [['status']] });
    assert.deepEqual(managedFieldsOf(created)[0]?.fieldsV1, { 'f:spec': { 'f:nodeName': {} } });
  });

  test('a subresource apply is recorded with its subresource', () => {
    const created = apply(undefined, configMap({ a: '1' }), 'm1', { subresource: 'status' });
    assert.equal(managedFieldsOf(created)[0]?.subresource, 'status');
  });
});

describe('server-side apply: lists follow the schema', () => {
  const deployment = (containers: JsonObject[], extra: JsonObject = {}): JsonObject => ({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', namespace: 'probe' },
    spec: { template: { spec: { containers, ...extra } } },
  });
  const applyDeployment = (live: JsonObject | undefined, applied: JsonObject, manager: string, force = false): JsonObject =>
    applyServerSideApply({ live, applied, fieldManager: manager, force, schema: deploymentSchema, now: T0 });
  const containersOf = (d: JsonObject): JsonObject[] => ((((d.spec as JsonObject).template as JsonObject).spec as JsonObject).containers ?? []) as JsonObject[];

  test('containers merge by name across managers, new ones after the live ones', () => {
    const first = applyDeployment(undefined, deployment([{ name: 'a', image: 'img-a' }]), 'm1');
    const second = applyDeployment(first, deployment([{ name: 'b', image: 'img-b' }]), 'm2');
    assert.deepEqual(containersOf(second), [{ name: 'a', image: 'img-a' }, { name: 'b', image: 'img-b' }]);
    assert.deepEqual(ownership(second)['m2/Apply'], {
      'f:spec': { 'f:template': { 'f:spec': { 'f:containers': { 'k:{"name":"b"}': { '.': {}, 'f:image': {}, 'f:name': {} } } } } },
    });
    // m1 drops its container; m2's stays.
    const dropped = applyDeployment(second, deployment([]), 'm1');
    assert.deepEqual(containersOf(dropped), [{ name: 'b', image: 'img-b' }]);
  });

  test('a field inside another manager\'s item conflicts on its path', () => {
    const first = applyDeployment(undefined, deployment([{ name: 'a', image: 'img-a' }]), 'm1');
    const status = statusOf(() => applyDeployment(first, deployment([{ name: 'a', image: 'img-z' }]), 'm2'));
    assert.equal(status.message, 'Apply failed with 1 conflict: conflict with "m1": .spec.template.spec.containers[name="a"].image');
  });

  test('ports are keyed by containerPort and protocol, protocol defaulting to TCP', () => {
    const first = applyDeployment(undefined, deployment([{ name: 'a', image: 'i', ports: [{ containerPort: 80 }] }]), 'm1');
    const portKeys = Object.keys(
      ((((((ownership(first)['m1/Apply'] as JsonObject)['f:spec'] as JsonObject)['f:template'] as JsonObject)['f:spec'] as JsonObject)['f:containers'] as JsonObject)['k:{"name":"a"}'] as JsonObject)['f:ports'] as JsonObject,
    );
    assert.deepEqual(portKeys, ['k:{"containerPort":80,"protocol":"TCP"}']);
  });

  test('atomic lists conflict as a whole', () => {
    const first = applyDeployment(undefined, deployment([], { tolerations: [{ key: 'a', operator: 'Exists' }] }), 'm1');
    const status = statusOf(() => applyDeployment(first, deployment([], { tolerations: [{ key: 'b', operator: 'Exists' }] }), 'm2'));
    assert.equal(status.message, 'Apply failed with 1 conflict: conflict with "m1": .spec.template.spec.tolerations');
  });

  test('finalizers are a set: each manager owns its items', () => {
    const withFinalizers = (finalizers: string[]): JsonObject => ({ ...configMap(), metadata: { name: 'ssa1', namespace: 'probe', finalizers } });
    const first = apply(undefined, withFinalizers(['example.com/a']), 'm1');
    const second = apply(first, withFinalizers(['example.com/b']), 'm2');
    assert.deepEqual((second.metadata as JsonObject).finalizers, ['example.com/a', 'example.com/b']);
    assert.deepEqual(ownership(second)['m2/Apply'], { 'f:metadata': { 'f:finalizers': { 'v:"example.com/b"': {} } } });
    const dropped = apply(second, withFinalizers([]), 'm1');
    assert.deepEqual((dropped.metadata as JsonObject).finalizers, ['example.com/b']);
  });

  test('duplicate keys in the applied object: 500 naming the object and path', () => {
    const status = statusOf(() => applyDeployment(undefined, deployment([{ name: 'a', image: 'x' }, { name: 'a', image: 'y' }]), 'm1'));
    assert.deepEqual([status.code, status.reason, status.message], [
      500,
      undefined,
      'failed to create typed patch object (apps/v1, Kind=Deployment; probe/web): .spec.template.spec.containers: duplicate entries for key [name="a"]',
    ]);
  });

  test('an item without its key: 500', () => {
    const status = statusOf(() => applyDeployment(undefined, deployment([{ image: 'x' }]), 'm1'));
    assert.equal(
      status.message,
      'failed to create typed patch object (apps/v1, Kind=Deployment; probe/web): .spec.template.spec.containers: element 0: associative list with keys has an element that omits key field "name" (and doesn\'t have default value)',
    );
  });
});

describe('server-side apply: request errors', () => {
  test('an applied object of another kind than the endpoint', () => {
    const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'ssa1' } };
    assert.equal(statusOf(() => apply(undefined, pod, 'm1', { apiVersion: 'v1', kind: 'ConfigMap' })).message, 'invalid object type: /v1, Kind=Pod');
  });

  test('managedFields in the applied object', () => {
    const body = { ...configMap({ a: '1' }), metadata: { name: 'ssa1', managedFields: [] } };
    assert.deepEqual([statusOf(() => apply(undefined, body, 'm1')).code, statusOf(() => apply(undefined, body, 'm1')).message], [400, 'metadata.managedFields must be nil']);
  });

  test('a body that is not an object', () => {
    assert.equal(
      statusOf(() => apply(undefined, 'text', 'm1')).message,
      'error decoding YAML: error unmarshaling JSON: while decoding JSON: json: cannot unmarshal string into Go value of type map[string]interface {}',
    );
  });
});

describe('server-side apply on a custom resource', () => {
  const schema = patchSchemaFromOpenAPI({
    type: 'object',
    properties: {
      spec: {
        type: 'object',
        properties: {
          items: {
            type: 'array',
            'x-kubernetes-list-type': 'map',
            'x-kubernetes-list-map-keys': ['id'],
            items: { type: 'object', properties: { id: { type: 'string' }, value: { type: 'string' } } },
          },
          tags: { type: 'array', items: { type: 'string' } },
        },
      },
    },
  });
  const widget = (spec: JsonObject): JsonObject => ({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w1' }, spec });

  test('x-kubernetes-list-type map merges by its keys; other lists are atomic', () => {
    const first = applyServerSideApply({ live: undefined, applied: widget({ items: [{ id: 'a', value: '1' }], tags: ['x'] }), fieldManager: 'm1', force: false, schema, now: T0 });
    const second = applyServerSideApply({ live: first, applied: widget({ items: [{ id: 'b', value: '2' }] }), fieldManager: 'm2', force: false, schema, now: T1 });
    assert.deepEqual(second.spec, { items: [{ id: 'a', value: '1' }, { id: 'b', value: '2' }], tags: ['x'] });
    const status = statusOf(() => applyServerSideApply({ live: second, applied: widget({ tags: ['y'] }), fieldManager: 'm2', force: false, schema, now: T1 }));
    assert.equal(status.message, 'Apply failed with 1 conflict: conflict with "m1": .spec.tags');
  });
});
