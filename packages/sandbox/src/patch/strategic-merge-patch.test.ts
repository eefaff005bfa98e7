import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { statusOf } from './status-error.test-support.ts';
import { strategicSchemaFor } from './builtin-schemas.ts';
import type { PatchSchema } from './schema.ts';
import { applyStrategicMergePatch } from './strategic-merge-patch.ts';

const schemaOf = (apiVersion: string, kind: string): PatchSchema => {
  const schema = strategicSchemaFor(apiVersion, kind);
  assert.ok(schema, `${apiVersion}/${kind} has a schema`);
  return schema;
};
const podSchema = schemaOf('v1', 'Pod');
const deploymentSchema = schemaOf('apps/v1', 'Deployment');

type Json = Record<string, unknown>;
const smp = (original: Json, patch: unknown, schema = podSchema): Json => applyStrategicMergePatch(original, patch, schema) as Json;

const cond = (type: string, status: string, extra: Json = {}): Json => ({ type, status, ...extra });
const podWithConditions = (conditions: Json[]): Json => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'h1' }, status: { conditions } });
const conditionsOf = (pod: Json): unknown => (pod.status as Json).conditions;

describe('strategic merge patch: conditions merge by type (reference H.1)', () => {
  const initial = podWithConditions([]);
  const first = smp(initial, { status: { conditions: [cond('Ready', 'False', { reason: 'r1' }), cond('example.com/X', 'True')] } });

  test('a first patch sets both conditions in patch order', () => {
    assert.deepEqual(conditionsOf(first), [cond('Ready', 'False', { reason: 'r1' }), cond('example.com/X', 'True')]);
  });

  test('an element merges with the element of the same type, keeping its other fields', () => {
    const after = smp(first, { status: { conditions: [cond('Ready', 'True')] } });
    assert.deepEqual(conditionsOf(after), [cond('Ready', 'True', { reason: 'r1' }), cond('example.com/X', 'True')]);
  });

  test('a new element is prepended', () => {
    const after = smp(first, { status: { conditions: [cond('New', 'True')] } });
    assert.deepEqual(conditionsOf(after), [cond('New', 'True'), cond('Ready', 'False', { reason: 'r1' }), cond('example.com/X', 'True')]);
  });

  test('`$patch: delete` removes the element with that merge key', () => {
    const withB = podWithConditions([cond('A', 'True'), cond('B', 'True'), cond('C', 'True')]);
    const after = smp(withB, { status: { conditions: [{ type: 'B', $patch: 'delete' }] } });
    assert.deepEqual(conditionsOf(after), [cond('A', 'True'), cond('C', 'True')]);
  });

  test('`$setElementOrder` gives the final order', () => {
    const live = podWithConditions([cond('Ready', 'True'), cond('A', 'True')]);
    const after = smp(live, {
      status: { conditions: [cond('Z', 'True')], '$setElementOrder/conditions': [{ type: 'Z' }, { type: 'Ready' }, { type: 'A' }] },
    });
    assert.deepEqual(conditionsOf(after), [cond('Z', 'True'), cond('Ready', 'True'), cond('A', 'True')]);
  });

  test('`$setElementOrder` can reorder without changing content', () => {
    const live = podWithConditions([cond('A', 'True'), cond('B', 'False')]);
    const after = smp(live, { status: { '$setElementOrder/conditions': [{ type: 'B' }, { type: 'A' }] } });
    assert.deepEqual(conditionsOf(after), [cond('B', 'False'), cond('A', 'True')]);
  });

  test('a `{"$patch":"replace"}` element replaces the list with the other elements', () => {
    const after = smp(first, { status: { conditions: [cond('Only', 'True'), { $patch: 'replace' }] } });
    assert.deepEqual(conditionsOf(after), [cond('Only', 'True')]);
  });

  test('an empty list patch leaves a merging list unchanged', () => {
    assert.deepEqual(conditionsOf(smp(first, { status: { conditions: [] } })), conditionsOf(first));
  });
});

describe('strategic merge patch: finalizers are a merging list of scalars (reference H.1)', () => {
  const meta = (finalizers: string[]): Json => ({ metadata: { name: 'f', finalizers } });
  const finalizersOf = (o: Json): unknown => (o.metadata as Json).finalizers;

  test('union with the patch items first', () => {
    assert.deepEqual(finalizersOf(smp(meta(['example.com/a']), { metadata: { finalizers: ['example.com/b'] } })), ['example.com/b', 'example.com/a']);
  });

  test('an item already present is not duplicated: the list is unchanged', () => {
    const live = meta(['example.com/b', 'example.com/a']);
    assert.deepEqual(finalizersOf(smp(live, { metadata: { finalizers: ['example.com/a'] } })), ['example.com/b', 'example.com/a']);
  });

  test('`$deleteFromPrimitiveList` removes items', () => {
    const live = meta(['example.com/b', 'example.com/a']);
    assert.deepEqual(finalizersOf(smp(live, { metadata: { '$deleteFromPrimitiveList/finalizers': ['example.com/a'] } })), ['example.com/b']);
  });

  test('`$setElementOrder` with a deletion list (what kubectl apply sends)', () => {
    const live = meta(['a', 'b', 'c']);
    const after = smp(live, { metadata: { '$setElementOrder/finalizers': ['c', 'a'], '$deleteFromPrimitiveList/finalizers': ['b'] } });
    assert.deepEqual(finalizersOf(after), ['c', 'a']);
  });
});

describe('strategic merge patch: containers merge on name (reference H.1)', () => {
  const deployment = (): Json => ({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'h-dep' },
    spec: {
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' } },
      template: {
        spec: {
          containers: [
            { name: 'a', image: 'img-a', env: [{ name: 'X', value: '1' }] },
            { name: 'b', image: 'img-b' },
          ],
        },
      },
    },
  });
  const containersOf = (d: Json): Json[] => (((d.spec as Json).template as Json).spec as Json).containers as Json[];
  const patchContainers = (containers: unknown[]): Json => ({ spec: { template: { spec: { containers } } } });

  test('an existing container is patched in place', () => {
    const after = containersOf(smp(deployment(), patchContainers([{ name: 'b', image: 'img-b2' }]), deploymentSchema));
    assert.deepEqual(after.map((c) => [c.name, c.image]), [['a', 'img-a'], ['b', 'img-b2']]);
  });

  test('a new container goes first', () => {
    const after = containersOf(smp(deployment(), patchContainers([{ name: 'c', image: 'img-c' }]), deploymentSchema));
    assert.deepEqual(after.map((c) => c.name), ['c', 'a', 'b']);
  });

  test('env merges on name inside the container, new variables first', () => {
    const after = containersOf(smp(deployment(), patchContainers([{ name: 'a', env: [{ name: 'Y', value: '2' }] }]), deploymentSchema));
    assert.deepEqual(after[0], { name: 'a', image: 'img-a', env: [{ name: 'Y', value: '2' }, { name: 'X', value: '1' }] });
  });

  test('`$patch: delete` of a container', () => {
    const after = containersOf(smp(deployment(), patchContainers([{ name: 'b', $patch: 'delete' }]), deploymentSchema));
    assert.deepEqual(after.map((c) => c.name), ['a']);
  });

  test('deleting a container that does not exist changes nothing', () => {
    const after = containersOf(smp(deployment(), patchContainers([{ name: 'c', $patch: 'delete' }]), deploymentSchema));
    assert.deepEqual(after.map((c) => c.name), ['a', 'b']);
  });

  test('`$retainKeys` clears the keys it does not list', () => {
    const after = smp(deployment(), { spec: { strategy: { $retainKeys: ['type'], type: 'Recreate' } } }, deploymentSchema);
    assert.deepEqual((after.spec as Json).strategy, { type: 'Recreate' });
  });

  test('without `$retainKeys` the other keys stay', () => {
    const after = smp(deployment(), { spec: { strategy: { type: 'Recreate' } } }, deploymentSchema);
    assert.deepEqual((after.spec as Json).strategy, { type: 'Recreate', rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' } });
  });

  test('`$patch: replace` on a map replaces it', () => {
    const after = smp(deployment(), { spec: { strategy: { $patch: 'replace', type: 'Recreate' } } }, deploymentSchema);
    assert.deepEqual((after.spec as Json).strategy, { type: 'Recreate' });
  });

  test('`$patch: delete` on a map empties it', () => {
    const after = smp(deployment(), { spec: { strategy: { $patch: 'delete' } } }, deploymentSchema);
    assert.deepEqual((after.spec as Json).strategy, {});
  });

  test('a null removes a key; labels: null removes the labels', () => {
    const live = { metadata: { name: 'x', labels: { app: 'a', team: 't' } } };
    assert.deepEqual(smp(live, { metadata: { labels: { app: null } } }), { metadata: { name: 'x', labels: { team: 't' } } });
    assert.deepEqual(smp(live, { metadata: { labels: null } }), { metadata: { name: 'x' } });
  });
});

describe('strategic merge patch: kubectl patch --type strategic', () => {
  const pod = (): Json => ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'p', labels: { app: 'web' }, ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'rs', uid: 'u1' }] },
    spec: {
      containers: [{ name: 'c', image: 'nginx', ports: [{ containerPort: 80, protocol: 'TCP' }], volumeMounts: [{ name: 'v', mountPath: '/a' }] }],
      tolerations: [{ key: 'k1', operator: 'Exists' }],
      volumes: [{ name: 'v', emptyDir: {} }],
    },
  });
  const specOf = (p: Json): Json => p.spec as Json;

  test('the image of a container by name', () => {
    const after = smp(pod(), { spec: { containers: [{ name: 'c', image: 'nginx:1.27' }] } });
    assert.equal((specOf(after).containers as Json[])[0]?.image, 'nginx:1.27');
    assert.deepEqual((specOf(after).containers as Json[])[0]?.ports, [{ containerPort: 80, protocol: 'TCP' }]);
  });

  test('tolerations have no merge key: the list is replaced', () => {
    const after = smp(pod(), { spec: { tolerations: [{ key: 'k2', operator: 'Exists' }] } });
    assert.deepEqual(specOf(after).tolerations, [{ key: 'k2', operator: 'Exists' }]);
  });

  test('ports merge on containerPort, volumeMounts on mountPath', () => {
    const after = smp(pod(), {
      spec: { containers: [{ name: 'c', ports: [{ containerPort: 8080 }], volumeMounts: [{ name: 'v', mountPath: '/a', readOnly: true }] }] },
    });
    const c = (specOf(after).containers as Json[])[0];
    assert.deepEqual(c?.ports, [{ containerPort: 8080 }, { containerPort: 80, protocol: 'TCP' }]);
    assert.deepEqual(c?.volumeMounts, [{ name: 'v', mountPath: '/a', readOnly: true }]);
  });

  test('ownerReferences merge on uid', () => {
    const after = smp(pod(), { metadata: { ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: 'n', uid: 'u2' }] } });
    assert.deepEqual(((after.metadata as Json).ownerReferences as Json[]).map((o) => o.uid), ['u2', 'u1']);
  });

  test('volumes merge on name and honour `$retainKeys`', () => {
    const after = smp(pod(), { spec: { volumes: [{ name: 'v', $retainKeys: ['name', 'configMap'], configMap: { name: 'cm' } }] } });
    assert.deepEqual(specOf(after).volumes, [{ name: 'v', configMap: { name: 'cm' } }]);
  });

  test('service ports merge on port', () => {
    const service = { spec: { ports: [{ port: 80, targetPort: 8080 }, { port: 443 }] } };
    const after = smp(service, { spec: { ports: [{ port: 80, targetPort: 9090 }] } }, schemaOf('v1', 'Service'));
    assert.deepEqual((after.spec as Json).ports, [{ port: 80, targetPort: 9090 }, { port: 443 }]);
  });

  test('a null inside a new element is dropped', () => {
    const after = smp(pod(), { spec: { containers: [{ name: 'd', image: 'busybox', command: null }] } });
    assert.deepEqual((specOf(after).containers as Json[])[0], { name: 'd', image: 'busybox' });
  });

  test('a null body is a no-op', () => {
    assert.deepEqual(smp(pod(), null), pod());
  });

  test('the original is not modified', () => {
    const original = pod();
    smp(original, { spec: { containers: [{ name: 'c', $patch: 'delete' }] } });
    assert.deepEqual(original, pod());
  });
});

describe('strategic merge patch: errors as the server reports them', () => {
  const deployment = { metadata: { name: 'web' }, spec: { strategy: { type: 'RollingUpdate' }, template: { spec: { containers: [{ name: 'a', image: 'x' }] } } } };

  test('an unknown `$patch` on a map is a 500 naming the map', () => {
    assert.deepEqual(statusOf(() => smp(deployment, { spec: { $patch: 'bogus' } }, deploymentSchema)), {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'unknown patch type: bogus in map: map[$patch:bogus]',
      code: 500,
    });
  });

  test('`$patch: merge` on a map is refused like any unknown directive', () => {
    const status = statusOf(() => smp(deployment, { spec: { $patch: 'merge', replicas: 2 } }, deploymentSchema));
    assert.equal(status.code, 500);
    assert.equal(status.message, 'unknown patch type: merge in map: map[$patch:merge replicas:2]');
  });

  test('a `$patch: merge` list element is refused', () => {
    const status = statusOf(() => smp(deployment, { spec: { template: { spec: { containers: [{ $patch: 'merge' }] } } } }, deploymentSchema));
    assert.equal(status.message, 'merging lists cannot yet be specified in the patch');
    assert.equal(status.code, 500);
  });

  test('an element without its merge key is a 500', () => {
    const status = statusOf(() => smp(deployment, { spec: { template: { spec: { containers: [{ image: 'noname' }] } } } }, deploymentSchema));
    assert.equal(status.code, 500);
    assert.equal(status.reason, undefined);
    assert.equal(status.message, 'map: map[image:noname] does not contain declared merge key: name');
  });

  test('a body that is not an object is a 400', () => {
    assert.deepEqual(statusOf(() => smp(deployment, 'str')), {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'json: cannot unmarshal string into Go value of type map[string]interface {}',
      reason: 'BadRequest',
      code: 400,
    });
    assert.equal(statusOf(() => smp(deployment, [])).message, 'json: cannot unmarshal array into Go value of type map[string]interface {}');
  });

  test('a malformed `$retainKeys` is a 400', () => {
    const status = statusOf(() => smp(deployment, { spec: { strategy: { $retainKeys: 'type' } } }, deploymentSchema));
    assert.deepEqual([status.code, status.message], [400, 'invalid patch format of retainKeys']);
    const notListed = statusOf(() => smp(deployment, { spec: { strategy: { $retainKeys: ['type'], rollingUpdate: {} } } }, deploymentSchema));
    assert.deepEqual([notListed.code, notListed.message], [400, 'invalid patch format of retainKeys']);
  });

  test('malformed directive keys are 400s', () => {
    const list = statusOf(() => smp({ metadata: {} }, { metadata: { $deleteFromPrimitiveList: ['a'] } }));
    assert.deepEqual([list.code, list.message], [400, 'invalid patch format of primitive list']);
    const order = statusOf(() => smp({ metadata: {} }, { metadata: { '$setElementOrderX/finalizers': ['a'] } }));
    assert.deepEqual([order.code, order.message], [400, 'invalid patch format of setElementOrder list']);
  });

  test('a `$setElementOrder` that is not a list is a 500', () => {
    const status = statusOf(() => smp({ metadata: {} }, { metadata: { '$setElementOrder/finalizers': 'a' } }));
    assert.deepEqual([status.code, status.message], [500, 'expected a []interface {}, but received a string']);
  });

  test('a patch list out of step with `$setElementOrder` is a 500', () => {
    const status = statusOf(() =>
      smp(podWithConditions([]), { status: { conditions: [{ type: 'A' }, { type: 'B' }], '$setElementOrder/conditions': [{ type: 'B' }, { type: 'A' }] } }),
    );
    assert.equal(status.code, 500);
    assert.equal(status.message, "The order in patch list:\n[map[type:A] map[type:B]]\n doesn't match $setElementOrder list:\n[map[type:B] map[type:A]]\n");
  });

  test('mixed element types in a merging list are a 500; lists of lists the generic 422', () => {
    const mixed = statusOf(() => smp({ metadata: { finalizers: ['a'] } }, { metadata: { finalizers: [1] } }));
    assert.deepEqual([mixed.code, mixed.message], [500, 'list element types are not identical: [[a] [1]]']);
    const nested = statusOf(() => smp({ metadata: { finalizers: [['a']] } }, { metadata: { finalizers: [['b']] } }));
    assert.deepEqual([nested.code, nested.reason, nested.message], [422, 'Invalid', 'the server rejected our request due to an error in our request']);
  });
});
