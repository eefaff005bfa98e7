import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import type { JsonObject } from '../meta/object.ts';
import { strategicSchemaFor } from './builtin-schemas.ts';
import { FieldSet, pathString } from './field-set.ts';
import {
  capUpdateManagers,
  decodeManagedFields,
  fieldManagerName,
  patchOptionsInvalidStatus,
  recordUpdateManagedFields,
  validateFieldManager,
  validatePatchOptions,
  type UpdateRecord,
} from './managed-fields.ts';
import { applyServerSideApply } from './server-side-apply.ts';

const podSchema = strategicSchemaFor('v1', 'Pod');
const deploymentSchema = strategicSchemaFor('apps/v1', 'Deployment');
const T0 = '2025-03-01T10:00:00Z';
const T1 = '2025-03-01T10:05:00Z';

const managedFieldsOf = (o: JsonObject): JsonObject[] => ((o.metadata as JsonObject).managedFields ?? []) as JsonObject[];
const record = (input: Partial<UpdateRecord> & Pick<UpdateRecord, 'updated' | 'manager'>): JsonObject =>
  recordUpdateManagedFields({ live: undefined, apiVersion: 'v1', schema: podSchema, now: T0, ...input });

const pod = (labels: Record<string, string>, image = 'nginx'): JsonObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'p', namespace: 'probe', uid: 'u', resourceVersion: '5', creationTimestamp: T0, labels },
  spec: { containers: [{ name: 'c', image, ports: [{ containerPort: 80, protocol: 'TCP' }], resources: {} }], restartPolicy: 'Always' },
});

describe('managedFields of ordinary writes (operation Update)', () => {
  test('a create records every field the object sets, in the FieldsV1 shape', () => {
    const created = record({ updated: pod({ app: 'web' }), manager: 'kubectl-create' });
    assert.deepEqual(managedFieldsOf(created), [
      {
        manager: 'kubectl-create',
        operation: 'Update',
        apiVersion: 'v1',
        time: T0,
        fieldsType: 'FieldsV1',
        fieldsV1: {
          'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } },
          'f:spec': {
            'f:containers': {
              'k:{"name":"c"}': {
                '.': {},
                'f:image': {},
                'f:name': {},
                'f:ports': { '.': {}, 'k:{"containerPort":80,"protocol":"TCP"}': { '.': {}, 'f:containerPort': {}, 'f:protocol': {} } },
                'f:resources': {},
              },
            },
            'f:restartPolicy': {},
          },
        },
      },
    ]);
  });

  test('a write that changes nothing leaves managedFields as they were', () => {
    const created = record({ updated: pod({ app: 'web' }), manager: 'kubectl-create' });
    const again = record({ live: created, updated: created, manager: 'other', now: T1 });
    assert.deepEqual(managedFieldsOf(again), managedFieldsOf(created));
  });

  test('a label added by another writer becomes its own; changed fields move to the writer', () => {
    const created = record({ updated: pod({ app: 'web' }), manager: 'kubectl-create' });
    const labelled = record({ live: created, updated: { ...pod({ app: 'web', tier: 'a' }), metadata: { ...(pod({}).metadata as JsonObject), labels: { app: 'web', tier: 'a' }, managedFields: managedFieldsOf(created) } }, manager: 'kubectl-label', now: T1 });
    const entries = managedFieldsOf(labelled);
    assert.deepEqual(entries.map((e) => [e.manager, e.time]), [['kubectl-create', T0], ['kubectl-label', T1]]);
    assert.deepEqual(entries[1]?.fieldsV1, { 'f:metadata': { 'f:labels': { 'f:tier': {} } } });

    const retagged = record({ live: labelled, updated: pod({ app: 'api', tier: 'a' }), manager: 'kubectl-label', now: T1 });
    const create = managedFieldsOf(retagged).find((e) => e.manager === 'kubectl-create');
    // It still owns the labels map itself (a member without children is written `{}`).
    assert.deepEqual((create?.fieldsV1 as JsonObject)['f:metadata'], { 'f:labels': {} });
    assert.deepEqual(managedFieldsOf(retagged).find((e) => e.manager === 'kubectl-label')?.fieldsV1, { 'f:metadata': { 'f:labels': { 'f:app': {}, 'f:tier': {} } } });
  });

  test('a removed field leaves its owner, and an owner left with nothing disappears', () => {
    const created = record({ updated: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { a: '1' } }, manager: 'm1', schema: strategicSchemaFor('v1', 'ConfigMap') });
    const emptied = record({ live: created, updated: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' } }, manager: 'm2', schema: strategicSchemaFor('v1', 'ConfigMap'), now: T1 });
    assert.equal((emptied.metadata as JsonObject).managedFields, undefined);
  });

  test('an applier loses a field an ordinary write changes', () => {
    const applied = applyServerSideApply({ live: undefined, applied: pod({ app: 'web' }), fieldManager: 'm1', force: false, schema: podSchema, now: T0 });
    const edited = record({ live: applied, updated: pod({ app: 'web' }, 'nginx:2'), manager: 'kubectl-edit', now: T1 });
    const entries = managedFieldsOf(edited);
    assert.deepEqual(entries.map((e) => [e.manager, e.operation]), [['m1', 'Apply'], ['kubectl-edit', 'Update']]);
    assert.deepEqual(entries[1]?.fieldsV1, { 'f:spec': { 'f:containers': { 'k:{"name":"c"}': { 'f:image': {} } } } });
  });

  test('status writes: their own entry with the subresource, ignoring what the endpoint resets', () => {
    const created = record({ updated: pod({ app: 'web' }), manager: 'kubectl-create', ignoredFields: [['status']] });
    const withStatus = { ...created, status: { phase: 'Running' }, spec: { changed: true } };
    const after = record({ live: created, updated: withStatus, manager: 'kubelet', subresource: 'status', ignoredFields: [['spec']], now: T1 });
    const kubelet = managedFieldsOf(after).find((e) => e.manager === 'kubelet');
    assert.deepEqual(kubelet, { manager: 'kubelet', operation: 'Update', apiVersion: 'v1', time: T1, fieldsType: 'FieldsV1', fieldsV1: { 'f:status': { 'f:phase': {} } }, subresource: 'status' });
  });

  test('Go zero-value structs are present already: no "." on spec or template', () => {
    const deployment = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd' }, spec: { replicas: 1, template: { spec: { containers: [{ name: 'c', image: 'x' }] } } } };
    const created = recordUpdateManagedFields({ live: undefined, updated: deployment, manager: 'kubectl-create', apiVersion: 'apps/v1', schema: deploymentSchema, now: T0 });
    assert.deepEqual(managedFieldsOf(created)[0]?.fieldsV1, {
      'f:spec': { 'f:replicas': {}, 'f:template': { 'f:spec': { 'f:containers': { 'k:{"name":"c"}': { '.': {}, 'f:image': {}, 'f:name': {} } } } } },
    });
  });

  test('managedFields sent in the body: an empty list clears the history', () => {
    const created = record({ updated: pod({ app: 'web' }), manager: 'kubectl-create' });
    const cleared = record({ live: created, updated: { ...pod({ app: 'web', x: 'y' }), metadata: { ...(pod({ app: 'web', x: 'y' }).metadata as JsonObject), managedFields: [] } }, manager: 'm2', now: T1 });
    assert.deepEqual(managedFieldsOf(cleared).map((e) => e.manager), ['m2']);
  });

  test('undecodable stored managedFields are dropped rather than failing the write', () => {
    const broken = { ...pod({}), metadata: { name: 'p', managedFields: [{ manager: 'x', operation: 'Bogus', apiVersion: 'v1', fieldsType: 'FieldsV1', fieldsV1: {} }] } };
    const after = record({ live: broken, updated: broken, manager: 'm', subresource: 'status' });
    assert.equal((after.metadata as JsonObject).managedFields, undefined);
  });

  test('beyond ten Update managers the oldest merge into ancient-changes', () => {
    let object: JsonObject = record({ updated: pod({ l0: 'v' }), manager: 'w0' });
    for (let i = 1; i <= 11; i++) {
      const labels = Object.fromEntries(Array.from({ length: i + 1 }, (_, j) => [`l${j}`, 'v']));
      object = record({ live: object, updated: pod(labels), manager: `w${i}`, now: new Date(Date.parse(T0) + i * 1000).toISOString() });
    }
    const managers = managedFieldsOf(object).map((e) => e.manager);
    assert.equal(managers.length, 10);
    assert.ok(managers.includes('ancient-changes'));
    assert.ok(!managers.includes('w0') && !managers.includes('w1') && !managers.includes('w2'));
  });
});

describe('the manager name of a write', () => {
  test('the fieldManager parameter wins', () => {
    assert.equal(fieldManagerName('ctl', 'kubectl/v1.32.0'), 'ctl');
  });

  test('otherwise the User-Agent up to its first slash', () => {
    assert.equal(fieldManagerName(undefined, 'kubectl/v1.32.0 (linux/amd64) kubernetes/70d3cc9'), 'kubectl');
    assert.equal(fieldManagerName('', 'python-requests/2.31.0'), 'python-requests');
    assert.equal(fieldManagerName(undefined, undefined), '');
  });

  test('unprintable characters are dropped and the name is cut at 128 bytes', () => {
    assert.equal(fieldManagerName(undefined, 'a\u0007b/1'), 'ab');
    assert.equal(Buffer.byteLength(fieldManagerName(undefined, 'é'.repeat(100))), 128);
  });
});

describe('patch option validation', () => {
  test('apply needs a field manager', () => {
    assert.equal(
      patchOptionsInvalidStatus(validatePatchOptions('apply', {})).message,
      'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch',
    );
  });

  test('force is only for apply', () => {
    assert.equal(
      patchOptionsInvalidStatus(validatePatchOptions('merge', { force: true })).message,
      'PatchOptions.meta.k8s.io "" is invalid: force: Forbidden: may not be specified for non-apply patch',
    );
    assert.deepEqual(validatePatchOptions('apply', { fieldManager: 'm', force: false }), []);
  });

  test('field managers are at most 128 bytes of printable characters', () => {
    assert.deepEqual(validateFieldManager('x'.repeat(129)).map((e) => e.type), ['FieldValueTooLong']);
    assert.deepEqual(validateFieldManager('a\tb'), [{ type: 'FieldValueInvalid', field: 'fieldManager', value: 'a\tb', detail: 'invalid character U+0009 (at position 1)' }]);
  });
});

describe('FieldsV1 encoding', () => {
  test('decode and encode are inverse, with "." for members that have children', () => {
    const fields = { 'f:metadata': { 'f:labels': { '.': {}, 'f:a': {} } }, 'f:spec': { 'f:list': { 'k:{"id":1}': { '.': {}, 'f:id': {} }, 'v:"x"': {} } } };
    assert.deepEqual(FieldSet.fromFieldsV1(fields).toFieldsV1(), fields);
  });

  test('entries are listed in structured-merge-diff order, numbers before strings', () => {
    const set = FieldSet.of([['f:b'], ['f:a'], ['f:l', 'v:"x"'], ['f:l', 'v:2'], ['f:l', 'v:10']]);
    assert.deepEqual(JSON.stringify(set.toFieldsV1()), '{"f:a":{},"f:b":{},"f:l":{"v:2":{},"v:10":{},"v:\\"x\\"":{}}}');
  });

  test('paths print as structured-merge-diff prints them', () => {
    assert.equal(pathString(['f:spec', 'f:containers', 'k:{"name":"c"}', 'f:image']), '.spec.containers[name="c"].image');
    assert.equal(pathString(['f:metadata', 'f:finalizers', 'v:"a"']), '.metadata.finalizers[="a"]');
    assert.equal(pathString(['f:ports', 'k:{"port":80,"protocol":"TCP"}']), '.ports[port=80,protocol="TCP"]');
  });

  test('malformed entries are refused with the decoder\'s words', () => {
    assert.throws(() => decodeManagedFields([{ operation: 'Apply', apiVersion: 'v1' }]), /missing fieldsType in managed fields entry 0/);
    assert.throws(() => decodeManagedFields([{ operation: 'Apply', apiVersion: 'v1', fieldsType: 'FieldsV2' }]), /invalid fieldsType "FieldsV2" in managed fields entry 0/);
    assert.throws(() => decodeManagedFields([{ operation: 'Apply', fieldsType: 'FieldsV1' }]), /apiVersion must not be empty/);
    assert.throws(() => decodeManagedFields([{ operation: 'Delete', apiVersion: 'v1', fieldsType: 'FieldsV1' }]), /operation must be `Apply` or `Update`/);
  });

  const element = fc.oneof(
    fc.string({ maxLength: 3 }).map((s) => `f:${s}`),
    fc.string({ maxLength: 3 }).map((s) => `v:${JSON.stringify(s)}`),
    fc.integer({ min: 0, max: 3 }).map((i) => `k:{"i":${i}}`),
  );
  const paths = fc.array(fc.array(element, { minLength: 1, maxLength: 3 }), { maxLength: 8 });

  test('any set survives a FieldsV1 round trip', () => {
    fc.assert(
      fc.property(paths, (list) => {
        const set = FieldSet.of(list);
        const back = FieldSet.fromFieldsV1(JSON.parse(JSON.stringify(set.toFieldsV1())));
        assert.deepEqual(back.paths(), set.paths());
      }),
    );
  });

  test('set algebra: a = (a − b) ∪ (a ∩ b), and (a − b) ∩ b is empty', () => {
    fc.assert(
      fc.property(paths, paths, (la, lb) => {
        const a = FieldSet.of(la);
        const b = FieldSet.of(lb);
        assert.deepEqual(a.difference(b).union(a.intersection(b)).paths(), a.paths());
        assert.ok(a.difference(b).intersection(b).isEmpty());
      }),
    );
  });
});

describe('FieldSet sharing', () => {
  const element = fc.oneof(
    fc.constantFrom('f:a', 'f:b', 'f:c'),
    fc.integer({ min: 0, max: 2 }).map((i) => `k:{"i":${i}}`),
  );
  const paths = fc.array(fc.array(element, { minLength: 1, maxLength: 3 }), { maxLength: 8 });
  /** A set decoded from its own frozen encoding, as a stored object's managedFields are. */
  const reread = (set: FieldSet): FieldSet => FieldSet.fromFieldsV1(set.toFieldsV1());

  test('operations on a set decoded from a stored encoding encode exactly as on a fresh set', () => {
    fc.assert(
      fc.property(paths, paths, (la, lb) => {
        const a = FieldSet.of(la);
        const b = FieldSet.of(lb);
        const stored = reread(a);
        assert.deepEqual(stored.union(b).toFieldsV1(), a.union(b).toFieldsV1());
        assert.deepEqual(stored.difference(b).toFieldsV1(), a.difference(b).toFieldsV1());
        assert.deepEqual(b.difference(stored).toFieldsV1(), b.difference(a).toFieldsV1());
        assert.deepEqual(stored.excluding([['f:a'], ['f:b', 'f:c']]).toFieldsV1(), a.excluding([['f:a'], ['f:b', 'f:c']]).toFieldsV1());
      }),
    );
  });

  test('a change re-encodes only its own path; the rest of the encoding is shared, frozen', () => {
    const stored = reread(FieldSet.of([['f:metadata', 'f:labels', 'f:app'], ['f:spec', 'f:containers', 'k:{"name":"c"}', 'f:image']]));
    const before = stored.toFieldsV1() as Record<string, JsonObject>;
    const after = stored.union(FieldSet.of([['f:metadata', 'f:annotations', 'f:x']])).toFieldsV1() as Record<string, JsonObject>;
    assert.equal(after['f:spec'], before['f:spec']);
    assert.notEqual(after['f:metadata'], before['f:metadata']);
    assert.equal(after['f:metadata']?.['f:labels'], before['f:metadata']?.['f:labels']);
    assert.ok(Object.isFrozen(after) && Object.isFrozen(after['f:metadata']));
    assert.equal(stored.union(FieldSet.of([['f:metadata', 'f:labels', 'f:app']])), stored, 'a union that adds nothing is the set itself');
    assert.equal(stored.difference(FieldSet.of([['f:status']])), stored, 'a difference that removes nothing is the set itself');
  });

  test('a client-sent (unfrozen) FieldsV1 is never reused as an encoding', () => {
    const sent = { 'f:b': {}, 'f:a': {} };
    const encoded = FieldSet.fromFieldsV1(sent).toFieldsV1();
    assert.notEqual(encoded, sent);
    assert.equal(JSON.stringify(encoded), '{"f:a":{},"f:b":{}}');
  });
});

describe('capping Update managers', () => {
  test('ten or fewer are left alone', () => {
    const managers = decodeManagedFields(
      Array.from({ length: 10 }, (_, i) => ({ manager: `m${i}`, operation: 'Update', apiVersion: 'v1', time: T0, fieldsType: 'FieldsV1', fieldsV1: { [`f:f${i}`]: {} } })),
    );
    assert.equal(capUpdateManagers(managers).size, 10);
  });
});
