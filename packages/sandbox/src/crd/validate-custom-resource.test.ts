import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { fieldErrorString, invalidStatus } from '../errors.ts';
import { compileSchema } from './compile.ts';
import { podTransitionRuleSchema } from './podtransitionrule-crd.fixture.ts';
import { validateCustomResource, type CustomResourceContext } from './validate-custom-resource.ts';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const ptrSchema = compileSchema(podTransitionRuleSchema());
const ptrContext: CustomResourceContext = { kind: 'PodTransitionRule', group: 'apps.kusionstack.io', version: 'v1alpha1' };

function rule(spec: Json): Json {
  return { apiVersion: 'apps.kusionstack.io/v1alpha1', kind: 'PodTransitionRule', metadata: { name: 'r1', namespace: 'default' }, spec };
}

const errorsOf = (schema: ReturnType<typeof compileSchema>, obj: unknown, ctx: CustomResourceContext): string[] => validateCustomResource(schema, obj, ctx).map(fieldErrorString);

function widgetSchema(spec: Json): ReturnType<typeof compileSchema> {
  return compileSchema({ type: 'object', properties: { apiVersion: { type: 'string' }, kind: { type: 'string' }, metadata: { type: 'object' }, spec } });
}
const widget = (spec: unknown): Json => ({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w1' }, spec });
const widgetContext: CustomResourceContext = { kind: 'Widget', group: 'example.com' };

describe('validateCustomResource: a PodTransitionRule', () => {
  test('a valid rule has no errors', () => {
    const ok = rule({
      selector: { matchLabels: { app: 'web' } },
      rules: [
        { name: 'available', stage: 'PreCheck', availablePolicy: { maxUnavailableValue: '50%' } },
        { name: 'hook', webhook: { clientConfig: { url: 'https://hook', caBundle: 'Y2E=', poll: { intervalSeconds: 5 } }, failurePolicy: 'Ignore' } },
      ],
    });
    assert.deepEqual(errorsOf(ptrSchema, ok, ptrContext), []);
  });

  test('several causes come out in the real order: by property name, required last, list keys after the schema', () => {
    const bad = rule({
      selector: { matchLabels: { app: 3 } },
      rules: [
        { name: 'Bad_Name', stage: 'Later', availablePolicy: { maxUnavailableValue: 1.5 } },
        { name: 'Bad_Name', webhook: { failurePolicy: 'Retry', clientConfig: { poll: { intervalSeconds: 0 } } } },
      ],
    });
    const errs = validateCustomResource(ptrSchema, bad, ptrContext);
    // The duplicate's value is an object, which the shared error vocabulary renders in its own way.
    assert.deepEqual([errs.at(-1)?.type, errs.at(-1)?.field, errs.at(-1)?.value], ['FieldValueDuplicate', 'spec.rules[1]', { name: 'Bad_Name' }]);
    assert.deepEqual(errs.slice(0, -1).map(fieldErrorString), [
      `spec.rules[0].availablePolicy.maxUnavailableValue: Invalid value: "number": spec.rules[0].availablePolicy.maxUnavailableValue in body must be of type integer,string: "number"`,
      `<nil>: Invalid value: "": "spec.rules[0].availablePolicy.maxUnavailableValue" must validate at least one schema (anyOf)`,
      `spec.rules[0].availablePolicy.maxUnavailableValue: Invalid value: "number": spec.rules[0].availablePolicy.maxUnavailableValue in body must be of type integer: "number"`,
      `spec.rules[0].name: Invalid value: "Bad_Name": spec.rules[0].name in body should match '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$'`,
      'spec.rules[0].stage: Unsupported value: "Later": supported values: "PreCheck", "PostCheck"',
      'spec.rules[1].name: Invalid value: "Bad_Name": spec.rules[1].name in body should match \'^[a-z0-9]([-a-z0-9]*[a-z0-9])?$\'',
      'spec.rules[1].webhook.clientConfig.poll.intervalSeconds: Invalid value: 0: spec.rules[1].webhook.clientConfig.poll.intervalSeconds in body should be greater than or equal to 1',
      'spec.rules[1].webhook.failurePolicy: Unsupported value: "Retry": supported values: "Ignore", "Fail"',
      'spec.selector.matchLabels.app: Invalid value: "integer": spec.selector.matchLabels.app in body must be of type string: "integer"',
    ]);
  });

  test('a missing required field and a wrong kind', () => {
    assert.deepEqual(errorsOf(ptrSchema, rule({ selector: {} }), ptrContext), ['spec.rules: Required value']);
    assert.deepEqual(errorsOf(ptrSchema, { ...rule({}), kind: 'Other' }, ptrContext), ['kind: Invalid value: "Other": must be PodTransitionRule']);
  });

  test('the 422 message of one error has no brackets, of several has them', () => {
    const one = validateCustomResource(ptrSchema, rule({ rules: 'all' }), ptrContext);
    assert.equal(
      invalidStatus({ kind: 'PodTransitionRule', group: 'apps.kusionstack.io', name: 'r1' }, one).message,
      'PodTransitionRule.apps.kusionstack.io "r1" is invalid: spec.rules: Invalid value: "string": spec.rules in body must be of type array: "string"',
    );
  });
});

describe('validateCustomResource: value checks', () => {
  test('integer versus number, and the message of the brief', () => {
    const schema = widgetSchema({ type: 'object', properties: { replicas: { type: 'integer' }, ratio: { type: 'number' } } });
    assert.deepEqual(errorsOf(schema, widget({ replicas: 'string', ratio: 2 }), widgetContext), [
      'spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string"',
    ]);
    assert.deepEqual(errorsOf(schema, widget({ replicas: 1.5 }), widgetContext), ['spec.replicas: Invalid value: "number": spec.replicas in body must be of type integer: "number"']);
  });

  test('null is only accepted where the schema is nullable', () => {
    const schema = widgetSchema({ type: 'object', properties: { a: { type: 'string', nullable: true }, b: { type: 'string' } } });
    assert.deepEqual(errorsOf(schema, widget({ a: null, b: null }), widgetContext), ['spec.b: Invalid value: "null": spec.b in body must be of type string: "null"']);
  });

  test('string lengths, number bounds, list and map sizes', () => {
    const schema = widgetSchema({
      type: 'object',
      properties: {
        name: { type: 'string', maxLength: 3 },
        code: { type: 'string', minLength: 2 },
        weight: { type: 'number', exclusiveMaximum: true, maximum: 1.5 },
        count: { type: 'integer', multipleOf: 5 },
        tags: { type: 'array', maxItems: 1, items: { type: 'string' } },
        hosts: { type: 'array', minItems: 1, items: { type: 'string' } },
        labels: { type: 'object', maxProperties: 1, additionalProperties: { type: 'string' } },
      },
    });
    const errs = validateCustomResource(schema, widget({ name: 'long', code: 'x', weight: 1.5, count: 7, tags: ['a', 'b'], hosts: [], labels: { a: 'x', b: 'y' } }), widgetContext);
    assert.deepEqual(
      errs.map((e) => [e.type, e.field]),
      [
        ['FieldValueInvalid', 'spec.code'],
        ['FieldValueInvalid', 'spec.count'],
        ['FieldValueInvalid', 'spec.hosts'],
        ['FieldValueTooMany', 'spec.labels'],
        ['FieldValueTooLong', 'spec.name'],
        ['FieldValueTooMany', 'spec.tags'],
        ['FieldValueInvalid', 'spec.weight'],
      ],
    );
    const [code, count, hosts, labels, name, tags, weight] = errs.map(fieldErrorString);
    assert.equal(code, 'spec.code: Invalid value: "x": spec.code in body should be at least 2 chars long');
    assert.equal(count, 'spec.count: Invalid value: 7: spec.count in body should be a multiple of 5');
    assert.equal(hosts, 'spec.hosts: Invalid value: 0: spec.hosts in body should have at least 1 items');
    assert.equal(name, 'spec.name: Too long: may not be more than 3 bytes');
    assert.equal(weight, 'spec.weight: Invalid value: 1.5: spec.weight in body should be less than 1.5');
    // Too many: the real server prints `Too many: 2: must have at most 1 item`; the count is the value.
    assert.ok(labels?.endsWith('must have at most 1 item') && tags?.endsWith('must have at most 1 item'));
    assert.deepEqual(
      errs.filter((e) => e.type === 'FieldValueTooMany').map((e) => [e.value, e.detail]),
      [
        [2, 'must have at most 1 item'],
        [2, 'must have at most 1 item'],
      ],
    );
  });

  test('formats the real server checks, and the ones it ignores', () => {
    const schema = widgetSchema({
      type: 'object',
      properties: { at: { type: 'string', format: 'date-time' }, id: { type: 'string', format: 'uuid' }, n: { type: 'integer', format: 'int32' }, any: { type: 'string', format: 'made-up' } },
    });
    assert.deepEqual(errorsOf(schema, widget({ at: '2024-01-01T00:00:00Z', id: '3fa85f64-5717-4562-b3fc-2c963f66afa6', n: 2 ** 40, any: 'x' }), widgetContext), []);
    assert.deepEqual(errorsOf(schema, widget({ at: 'yesterday', id: 'nope' }), widgetContext), [
      'spec.at: Invalid value: "yesterday": spec.at in body must be of type date-time: "yesterday"',
      'spec.id: Invalid value: "nope": spec.id in body must be of type uuid: "nope"',
    ]);
  });

  test('oneOf, allOf and not report through the composite <nil> field', () => {
    const schema = widgetSchema({
      type: 'object',
      properties: { a: { type: 'string' }, b: { type: 'string' } },
      oneOf: [{ required: ['a'] }, { required: ['b'] }],
      not: { required: ['c'] },
    });
    assert.deepEqual(errorsOf(schema, widget({ a: 'x', b: 'y' }), widgetContext), ['<nil>: Invalid value: "": "spec" must validate one and only one schema (oneOf). Found 2 valid alternatives']);
    assert.deepEqual(errorsOf(schema, widget({}), widgetContext), [
      '<nil>: Invalid value: "": "spec" must validate one and only one schema (oneOf). Found none valid',
      'spec.a: Required value',
    ]);
  });
});

describe('validateCustomResource: Kubernetes extensions', () => {
  test('list-type set and map uniqueness', () => {
    const schema = widgetSchema({
      type: 'object',
      properties: {
        tags: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string' } },
        ports: {
          type: 'array',
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['port', 'protocol'],
          items: { type: 'object', properties: { port: { type: 'integer' }, protocol: { type: 'string' } } },
        },
      },
    });
    const errs = validateCustomResource(
      schema,
      widget({ tags: ['a', 'b', 'a', 'a'], ports: [{ port: 80, protocol: 'TCP' }, { port: 80, protocol: 'UDP' }, { port: 80, protocol: 'TCP' }] }),
      widgetContext,
    );
    assert.deepEqual(
      errs.map((e) => [e.type, e.field, e.value]),
      [
        ['FieldValueDuplicate', 'spec.tags[2]', 'a'],
        ['FieldValueDuplicate', 'spec.ports[2]', { port: 80, protocol: 'TCP' }],
      ],
    );
  });

  test('an existing list with duplicates is not reported again on update (ratcheting)', () => {
    const schema = widgetSchema({ type: 'object', properties: { tags: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string' } } } });
    const old = widget({ tags: ['a', 'a'] });
    assert.deepEqual(errorsOf(schema, widget({ tags: ['a', 'a', 'b'] }), { ...widgetContext, old }), []);
  });

  test('embedded resources need apiVersion and kind', () => {
    const schema = widgetSchema({ type: 'object', properties: { template: { type: 'object', 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true } } });
    assert.deepEqual(errorsOf(schema, widget({ template: { metadata: { name: 'a/b' } } }), widgetContext), [
      'spec.template.apiVersion: Required value',
      'spec.template.kind: Required value',
      "spec.template.metadata.name: Invalid value: \"a/b\": may not contain '/'",
    ]);
  });

  test('scale replica paths must hold integers', () => {
    const schema = widgetSchema({ type: 'object', 'x-kubernetes-preserve-unknown-fields': true });
    const scale = { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas' };
    assert.deepEqual(errorsOf(schema, widget({ replicas: -1 }), { ...widgetContext, scale }), ['.spec.replicas: Invalid value: -1: should be a non-negative integer']);
    assert.deepEqual(errorsOf(schema, widget({ replicas: '2' }), { ...widgetContext, scale }), [
      '.spec.replicas: Invalid value: 0: .spec.replicas accessor error: 2 is of the type string, expected int64',
    ]);
    assert.deepEqual(errorsOf(schema, widget({ replicas: '2' }), { ...widgetContext, scale, subresource: 'status' }), []);
  });
});
