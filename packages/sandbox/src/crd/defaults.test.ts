import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { compileSchema } from './compile.ts';
import { applySchemaDefaults } from './defaults.ts';
import { podTransitionRuleSchema } from './podtransitionrule-crd.fixture.ts';

describe('applySchemaDefaults', () => {
  test('fills missing fields, inside list items too', () => {
    const schema = compileSchema(podTransitionRuleSchema());
    const out = applySchemaDefaults(schema, { spec: { rules: [{ name: 'a' }, { name: 'b', stage: 'PostCheck', webhook: { clientConfig: { poll: {} } } }] } });
    assert.deepEqual(out, {
      spec: {
        rules: [
          { name: 'a', stage: 'PreCheck' },
          { name: 'b', stage: 'PostCheck', webhook: { clientConfig: { poll: { intervalSeconds: 5 } }, failurePolicy: 'Fail' } },
        ],
      },
    });
  });

  test('an object default is applied, then the defaults inside it', () => {
    const schema = compileSchema({
      type: 'object',
      properties: { spec: { type: 'object', properties: { strategy: { type: 'object', default: { type: 'Rolling' }, properties: { type: { type: 'string' }, maxSurge: { type: 'integer', default: 1 } } } } } },
    });
    assert.deepEqual(applySchemaDefaults(schema, { spec: {} }), { spec: { strategy: { type: 'Rolling', maxSurge: 1 } } });
  });

  test('null takes the default unless the field is nullable', () => {
    const schema = compileSchema({
      type: 'object',
      properties: { spec: { type: 'object', properties: { a: { type: 'string', default: 'x' }, b: { type: 'string', nullable: true, default: 'y' } } } },
    });
    assert.deepEqual(applySchemaDefaults(schema, { spec: { a: null, b: null } }), { spec: { a: 'x', b: null } });
  });

  test('defaults of map values and list items replace nulls', () => {
    const schema = compileSchema({
      type: 'object',
      properties: {
        limits: { type: 'object', additionalProperties: { type: 'string', default: 'none' } },
        steps: { type: 'array', items: { type: 'integer', default: 0 } },
      },
    });
    assert.deepEqual(applySchemaDefaults(schema, { limits: { cpu: null, mem: '1Gi' }, steps: [null, 3] }), { limits: { cpu: 'none', mem: '1Gi' }, steps: [0, 3] });
  });
});
