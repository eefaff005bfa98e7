import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { objectMetaSchema } from './builtin-schemas.ts';
import { patchSchemaFromOpenAPI } from './openapi-schema.ts';
import { deducedSchema } from './schema.ts';

describe('merge metadata from a CRD structural schema', () => {
  const schema = patchSchemaFromOpenAPI({
    type: 'object',
    properties: {
      spec: {
        type: 'object',
        properties: {
          ports: {
            type: 'array',
            'x-kubernetes-list-type': 'map',
            'x-kubernetes-list-map-keys': ['port', 'protocol'],
            items: { type: 'object', properties: { port: { type: 'integer' }, protocol: { type: 'string', default: 'TCP' } } },
          },
          hosts: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string' } },
          args: { type: 'array', items: { type: 'string' } },
          selector: { type: 'object', 'x-kubernetes-map-type': 'atomic', additionalProperties: { type: 'string' } },
          config: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
        },
      },
    },
  });
  const spec = schema.fields.spec;

  test('metadata is ObjectMeta', () => {
    assert.equal(schema.fields.metadata, objectMetaSchema);
  });

  test('list types, map keys and key defaults', () => {
    assert.ok(spec?.type === 'struct');
    assert.deepEqual(spec.fields.ports && { ...spec.fields.ports, items: undefined }, {
      type: 'list',
      listType: 'map',
      listMapKeys: ['port', 'protocol'],
      keyDefaults: { protocol: 'TCP' },
      items: undefined,
    });
    assert.deepEqual(spec.fields.hosts, { type: 'list', listType: 'set' });
    assert.deepEqual(spec.fields.args, { type: 'list', listType: 'atomic' });
  });

  test('atomic maps, and preserved unknown fields read as deduced', () => {
    assert.ok(spec?.type === 'struct');
    assert.deepEqual(spec.fields.selector, { type: 'map', atomic: true });
    assert.equal(spec.fields.config, deducedSchema);
  });
});
