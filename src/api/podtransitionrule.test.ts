// The CRD schema and the TypeScript types must not drift: a sample with every typed field (the compiler
// enforces "every field, no other") is walked against the schema both ways. Plus the structural rules
// the API server enforces on a CRD schema, and the manifest's names, defaults and printer columns.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { podTransitionRuleCRD, podTransitionRuleSchema, type PodTransitionRuleSpec, type PodTransitionRuleStatus } from './podtransitionrule.ts';

type DeepRequired<T> = T extends readonly (infer U)[]
  ? DeepRequired<U>[]
  : T extends object
    ? { [K in keyof T]-?: DeepRequired<NonNullable<T[K]>> }
    : T;

const selector = { matchLabels: { app: 'web' }, matchExpressions: [{ key: 'tier', operator: 'In', values: ['front'] }] };
const expFunc = { expFunc: { coeff: '1', pow: '0.5' } };
const task = { taskId: 't', processing: ['a'], approved: ['b'], beginTime: '2024-06-04T12:58:05Z', lastTime: '2024-06-04T12:58:10Z', message: 'm' };

const fullSpec: DeepRequired<PodTransitionRuleSpec> = {
  selector,
  rules: [
    {
      name: 'r',
      disabled: false,
      stage: 'PreCheck',
      conditions: ['c'],
      filter: { labelSelector: selector },
      availablePolicy: { maxUnavailableValue: '50%', maxUnavailablePolicy: expFunc, minAvailableValue: 1, minAvailablePolicy: expFunc },
      labelCheck: { requires: selector },
      webhook: {
        clientConfig: {
          url: 'https://rules.example',
          caBundle: 'Cg==',
          poll: { url: 'https://rules.example/poll', rawQueryKey: 'task-id', caBundle: 'Cg==', intervalSeconds: 5, timeoutSeconds: 60 },
        },
        failurePolicy: 'Fail',
        parameters: [{ key: 'ip', value: '', valueFrom: { type: 'pod', fieldRef: { apiVersion: 'v1', fieldPath: 'status.podIP' } } }],
      },
    },
  ],
};

const fullStatus: DeepRequired<PodTransitionRuleStatus> = {
  updateTime: '2024-06-04T12:58:05Z',
  observedGeneration: 2,
  targets: ['a'],
  ruleStates: [{ name: 'r', webhookStatus: { taskStates: [task], history: [task] } }],
  details: [{ name: 'a', stage: 'PreCheck', passed: false, passedRules: ['r'], rejectInfo: [{ ruleName: 'r', reason: 'no' }] }],
  summary: { targets: 1, checking: 1, passed: 0, blocked: 1 },
};

type Schema = Record<string, unknown>;

function conforms(value: unknown, schema: Schema, path: string): void {
  if (schema['x-kubernetes-int-or-string'] === true) {
    assert.ok(typeof value === 'number' || typeof value === 'string', `${path}: int-or-string`);
    return;
  }
  switch (schema.type) {
    case 'object': {
      assert.ok(value !== null && typeof value === 'object' && !Array.isArray(value), `${path}: object`);
      const record = value as Record<string, unknown>;
      if (schema.additionalProperties) {
        for (const [k, v] of Object.entries(record)) conforms(v, schema.additionalProperties as Schema, `${path}.${k}`);
        return;
      }
      const properties = (schema.properties ?? {}) as Record<string, Schema>;
      assert.deepEqual(Object.keys(record).sort(), Object.keys(properties).sort(), `${path}: typed fields vs schema properties`);
      for (const [k, v] of Object.entries(record)) conforms(v, properties[k] as Schema, `${path}.${k}`);
      return;
    }
    case 'array':
      assert.ok(Array.isArray(value) && value.length > 0, `${path}: a non-empty sample array`);
      for (const item of value as unknown[]) conforms(item, schema.items as Schema, `${path}[]`);
      return;
    case 'integer':
      assert.ok(Number.isInteger(value), `${path}: integer`);
      return;
    default:
      assert.equal(typeof value, schema.type, path);
  }
}

/** The structural-schema rules of apiextensions v1 that a hand-written schema can break. */
function assertStructural(schema: Schema, path: string): void {
  if (schema['x-kubernetes-int-or-string'] === true) {
    assert.deepEqual(schema.anyOf, [{ type: 'integer' }, { type: 'string' }], `${path}: int-or-string anyOf`);
    assert.equal(schema.type, undefined, path);
    return;
  }
  assert.ok(['object', 'array', 'string', 'integer', 'boolean', 'number'].includes(schema.type as string), `${path}: has a type`);
  if (schema.type === 'object') {
    assert.ok(!(schema.properties && schema.additionalProperties), `${path}: properties and additionalProperties are exclusive`);
    const properties = (schema.properties ?? {}) as Record<string, Schema>;
    for (const required of (schema.required ?? []) as string[]) assert.ok(required in properties, `${path}: required ${required} is a property`);
    for (const [k, v] of Object.entries(properties)) assertStructural(v, `${path}.${k}`);
    if (schema.additionalProperties) assertStructural(schema.additionalProperties as Schema, `${path}.*`);
  }
  if (schema.type === 'array') assertStructural(schema.items as Schema, `${path}[]`);
}

const properties = (schema: Schema): Record<string, Schema> => schema.properties as Record<string, Schema>;
const at = (schema: Schema, ...path: string[]): Schema => path.reduce((s, key) => (key === '[]' ? (s.items as Schema) : properties(s)[key] as Schema), schema);

describe('PodTransitionRule schema', () => {
  const schema = podTransitionRuleSchema();

  test('every typed spec field is in the schema and every schema field is typed', () => conforms(fullSpec, properties(schema).spec as Schema, 'spec'));
  test('every typed status field is in the schema and every schema field is typed', () => conforms(fullStatus, properties(schema).status as Schema, 'status'));
  test('the schema is structural', () => assertStructural(schema, ''));

  test('metadata is a bare object, as the API server requires', () => assert.deepEqual(at(schema, 'metadata'), { type: 'object' }));

  test('defaults: failurePolicy Fail, poll interval 5 s and timeout 60 s', () => {
    const webhook = at(schema, 'spec', 'rules', '[]', 'webhook');
    assert.equal(at(webhook, 'failurePolicy').default, 'Fail');
    assert.deepEqual(at(webhook, 'failurePolicy').enum, ['Ignore', 'Fail']);
    assert.equal(at(webhook, 'clientConfig', 'poll', 'intervalSeconds').default, 5);
    assert.equal(at(webhook, 'clientConfig', 'poll', 'timeoutSeconds').default, 60);
  });

  test('rule names and the selector are not required by the schema, so validation answers with upstream messages', () => {
    assert.equal(at(schema, 'spec').required, undefined);
    assert.equal(at(schema, 'spec', 'rules', '[]').required, undefined);
    assert.deepEqual(at(schema, 'status', 'details', '[]').required, ['passed']);
  });
});

describe('podTransitionRuleCRD', () => {
  const crd = podTransitionRuleCRD() as {
    apiVersion: string;
    kind: string;
    metadata: { name: string };
    spec: {
      group: string;
      scope: string;
      names: Record<string, unknown>;
      versions: { name: string; served: boolean; storage: boolean; schema: { openAPIV3Schema: Schema }; subresources: unknown; additionalPrinterColumns: { name: string; type: string; jsonPath: string }[] }[];
    };
  };

  test('names, scope, version and status subresource', () => {
    assert.equal(crd.apiVersion, 'apiextensions.k8s.io/v1');
    assert.equal(crd.kind, 'CustomResourceDefinition');
    assert.equal(crd.metadata.name, 'podtransitionrules.apps.kusionstack.io');
    assert.equal(crd.spec.group, 'apps.kusionstack.io');
    assert.equal(crd.spec.scope, 'Namespaced');
    assert.deepEqual(crd.spec.names, {
      plural: 'podtransitionrules',
      singular: 'podtransitionrule',
      kind: 'PodTransitionRule',
      listKind: 'PodTransitionRuleList',
      shortNames: ['ptr'],
    });
    const [version] = crd.spec.versions;
    assert.equal(crd.spec.versions.length, 1);
    assert.equal(version?.name, 'v1alpha1');
    assert.equal(version?.served && version.storage, true);
    assert.deepEqual(version?.subresources, { status: {} });
  });

  test('printer columns read fields the schema has, with matching types', () => {
    const version = crd.spec.versions[0]!;
    assert.deepEqual(
      version.additionalPrinterColumns.map((c) => c.name),
      ['Targets', 'Checking', 'Passed', 'Blocked', 'Age'],
    );
    for (const column of version.additionalPrinterColumns) {
      const path = column.jsonPath.split('.').slice(1);
      if (path[0] === 'metadata') continue;
      const field = at(version.schema.openAPIV3Schema, ...path);
      assert.equal(field.type, column.type, column.jsonPath);
    }
  });
});
