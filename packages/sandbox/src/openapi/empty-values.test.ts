import { test } from 'node:test';
import assert from 'node:assert/strict';
import { builtinSchemaName, builtinSchemas } from './builtin-schemas.ts';
import { dropEmptyValues } from './empty-values.ts';

test('empty maps and ObjectMeta’s empty lists go, at any depth; empty structs and other lists stay', () => {
  const name = builtinSchemaName('apps', 'v1', 'Deployment') ?? '';
  const deployment = {
    metadata: { name: 'd', labels: {}, annotations: { a: 'b' }, finalizers: [], ownerReferences: [] },
    spec: {
      selector: { matchLabels: {} },
      template: {
        metadata: { labels: { app: 'd' }, annotations: {} },
        spec: { nodeSelector: {}, securityContext: {}, containers: [{ name: 'c', image: 'x', env: [], resources: { limits: {}, requests: { cpu: '1' } } }] },
      },
    },
  };
  dropEmptyValues(builtinSchemas, name, deployment);
  assert.deepEqual(deployment, {
    metadata: { name: 'd', annotations: { a: 'b' } },
    spec: {
      selector: {},
      template: { metadata: { labels: { app: 'd' } }, spec: { securityContext: {}, containers: [{ name: 'c', image: 'x', env: [], resources: { requests: { cpu: '1' } } }] } },
    },
  });
});
