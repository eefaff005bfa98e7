import { test } from 'node:test';
import assert from 'node:assert/strict';
import { builtinSchemaName, builtinSchemas } from './builtin-schemas.ts';
import { dropUnknownFields } from './unknown-fields.ts';

test('unknown fields of a built-in kind are dropped and reported by path; open types keep theirs', () => {
  const name = builtinSchemaName('', 'v1', 'Pod');
  assert.equal(name, 'io.k8s.api.core.v1.Pod');
  const pod = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'p', labels: { a: 'b' }, bogus: 1 },
    spec: { containers: [{ name: 'c', image: 'x', bogusField: true, livenessProbe: { anything: { goes: 1 } } }], bogus: 2 },
    status: { whatever: true },
  };
  assert.deepEqual(dropUnknownFields(builtinSchemas, name ?? '', pod), ['metadata.bogus', 'spec.bogus', 'spec.containers[0].bogusField']);
  assert.deepEqual(pod.spec.containers[0], { name: 'c', image: 'x', livenessProbe: { anything: { goes: 1 } } });
  assert.deepEqual(pod.status, { whatever: true });
});

test('every built-in kind served has a schema', () => {
  for (const [group, kind] of [['', 'ConfigMap'], ['apps', 'Deployment'], ['batch', 'Job'], ['coordination.k8s.io', 'Lease'], ['events.k8s.io', 'Event']] as const) {
    assert.ok(builtinSchemaName(group, 'v1', kind), `${group}/${kind}`);
  }
});
