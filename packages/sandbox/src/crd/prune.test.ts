import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { compileSchema } from './compile.ts';
import { podTransitionRuleSchema } from './podtransitionrule-crd.fixture.ts';
import { pruneUnknownFields } from './prune.ts';

const ptrSchema = compileSchema(podTransitionRuleSchema());

describe('pruneUnknownFields', () => {
  test('drops unknown fields and lists them as the Warning header does (sorted, metadata first)', () => {
    const input = {
      apiVersion: 'apps.kusionstack.io/v1alpha1',
      kind: 'PodTransitionRule',
      metadata: { name: 'r1', namespace: 'default', zzz: 1, labels: { a: 'b' } },
      junk: true,
      spec: { extra: 1, rules: [{ name: 'a', bogus: 'x', availablePolicy: { maxUnavailableValue: 1, typo: 2 } }] },
    };
    const { object, unknownFields } = pruneUnknownFields(ptrSchema, input);
    assert.deepEqual(unknownFields, ['metadata.zzz', 'junk', 'spec.extra', 'spec.rules[0].availablePolicy.typo', 'spec.rules[0].bogus']);
    assert.deepEqual(object, {
      apiVersion: 'apps.kusionstack.io/v1alpha1',
      kind: 'PodTransitionRule',
      metadata: { name: 'r1', namespace: 'default', labels: { a: 'b' } },
      spec: { rules: [{ name: 'a', availablePolicy: { maxUnavailableValue: 1 } }] },
    });
    assert.equal((input.spec as Record<string, unknown>).extra, 1, 'the input is not modified');
  });

  test('keeps unknown fields below x-kubernetes-preserve-unknown-fields, but prunes the specified ones', () => {
    const schema = compileSchema({
      type: 'object',
      properties: {
        spec: {
          type: 'object',
          'x-kubernetes-preserve-unknown-fields': true,
          properties: { strict: { type: 'object', properties: { a: { type: 'string' } } } },
        },
      },
    });
    const { object, unknownFields } = pruneUnknownFields(schema, { spec: { free: { any: 1 }, strict: { a: 'x', b: 'y' } } });
    assert.deepEqual(object, { spec: { free: { any: 1 }, strict: { a: 'x' } } });
    assert.deepEqual(unknownFields, ['spec.strict.b']);
  });

  test('reduces metadata to ObjectMeta at the root and in embedded resources', () => {
    const schema = compileSchema({
      type: 'object',
      properties: { spec: { type: 'object', properties: { template: { type: 'object', 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true } } } },
    });
    const { object, unknownFields } = pruneUnknownFields(schema, {
      metadata: { name: 'w', creationTimestamp: '2024-05-01T10:00:00.250+02:00', annotations: {}, ownerReferences: [{ kind: 'X', name: 'o', bogus: 1 }] },
      spec: { template: { apiVersion: 'v1', kind: 'Pod', metadata: { labels: { a: 'b' }, color: 'red' }, spec: { anything: true } } },
    });
    assert.deepEqual(object, {
      metadata: { name: 'w', creationTimestamp: '2024-05-01T08:00:00Z', ownerReferences: [{ apiVersion: '', kind: 'X', name: 'o', uid: '' }] },
      spec: { template: { apiVersion: 'v1', kind: 'Pod', metadata: { labels: { a: 'b' } }, spec: { anything: true } } },
    });
    assert.deepEqual(unknownFields, ['metadata.ownerReferences[0].bogus', 'spec.template.metadata.color']);
  });

  test('drops nulls the schema does not allow, unless a default will replace them', () => {
    const schema = compileSchema({
      type: 'object',
      properties: { spec: { type: 'object', properties: { a: { type: 'string' }, b: { type: 'string', nullable: true }, c: { type: 'string', default: 'x' } } } },
    });
    const { object, unknownFields } = pruneUnknownFields(schema, { spec: { a: null, b: null, c: null } });
    assert.deepEqual(object, { spec: { b: null, c: null } });
    assert.deepEqual(unknownFields, []);
  });
});
