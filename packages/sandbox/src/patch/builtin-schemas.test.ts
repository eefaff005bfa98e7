import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { strategicSchemaFor } from './builtin-schemas.ts';
import { childSchema, type SchemaNode } from './schema.ts';
import { strategicMergePatchUnsupportedStatus } from './status.ts';

/** The schema at a dotted path, stepping into list items with `[]`. */
function at(apiVersion: string, kind: string, path: string): SchemaNode | undefined {
  let node: SchemaNode | undefined = strategicSchemaFor(apiVersion, kind);
  for (const step of path.split('.')) {
    const [name = '', ...items] = step.split('[]');
    node = childSchema(node, name);
    for (let i = 0; i < items.length; i++) node = node?.type === 'list' ? node.items : undefined;
  }
  return node;
}

const strategy = (node: SchemaNode | undefined): string => {
  if (node?.type !== 'list') return node?.type === 'struct' && node.retainKeys ? 'retainKeys' : 'none';
  return [node.patchStrategy ?? 'none', node.patchMergeKey ?? '', node.retainKeys ? 'retainKeys' : ''].filter(Boolean).join(' ');
};

describe('merge metadata of the built-in kinds (Go struct tags)', () => {
  const expectations: [string, string, string, string][] = [
    ['v1', 'Pod', 'spec.containers', 'merge name'],
    ['v1', 'Pod', 'spec.initContainers', 'merge name'],
    ['v1', 'Pod', 'spec.ephemeralContainers', 'merge name'],
    ['v1', 'Pod', 'spec.containers[].env', 'merge name'],
    ['v1', 'Pod', 'spec.containers[].ports', 'merge containerPort'],
    ['v1', 'Pod', 'spec.containers[].volumeMounts', 'merge mountPath'],
    ['v1', 'Pod', 'spec.volumes', 'merge name retainKeys'],
    ['v1', 'Pod', 'spec.imagePullSecrets', 'merge name'],
    ['v1', 'Pod', 'spec.tolerations', 'none'],
    ['v1', 'Pod', 'spec.readinessGates', 'none'],
    ['v1', 'Pod', 'status.conditions', 'merge type'],
    ['v1', 'Pod', 'metadata.finalizers', 'merge'],
    ['v1', 'Pod', 'metadata.ownerReferences', 'merge uid'],
    ['v1', 'Service', 'spec.ports', 'merge port'],
    ['v1', 'Node', 'status.conditions', 'merge type'],
    ['v1', 'Namespace', 'status.conditions', 'merge type'],
    ['v1', 'ServiceAccount', 'secrets', 'merge name'],
    ['apps/v1', 'Deployment', 'spec.strategy', 'retainKeys'],
    ['apps/v1', 'Deployment', 'spec.template.spec.containers', 'merge name'],
    ['apps/v1', 'Deployment', 'spec.template.metadata.finalizers', 'merge'],
    ['apps/v1', 'Deployment', 'status.conditions', 'merge type'],
    ['apps/v1', 'StatefulSet', 'status.conditions', 'merge type'],
    ['apps/v1', 'DaemonSet', 'spec.template.spec.volumes', 'merge name retainKeys'],
    ['apps/v1', 'ReplicaSet', 'status.conditions', 'merge type'],
    ['batch/v1', 'Job', 'status.conditions', 'merge type'],
    ['admissionregistration.k8s.io/v1', 'MutatingWebhookConfiguration', 'webhooks', 'merge name'],
    ['admissionregistration.k8s.io/v1', 'ValidatingWebhookConfiguration', 'webhooks', 'merge name'],
  ];
  for (const [apiVersion, kind, path, expected] of expectations) {
    test(`${kind} ${path}: ${expected}`, () => assert.equal(strategy(at(apiVersion, kind, path)), expected));
  }

  test('server-side apply keys: container ports on containerPort+protocol, defaulting protocol', () => {
    const ports = at('v1', 'Pod', 'spec.containers[].ports');
    assert.ok(ports?.type === 'list');
    assert.deepEqual([ports.listType, ports.listMapKeys, ports.keyDefaults], ['map', ['containerPort', 'protocol'], { protocol: 'TCP' }]);
  });

  test('Job conditions and Node addresses merge for patches but are atomic for apply', () => {
    for (const node of [at('batch/v1', 'Job', 'status.conditions'), at('v1', 'Node', 'status.addresses')]) {
      assert.ok(node?.type === 'list');
      assert.equal(node.listType, 'atomic');
    }
  });

  test('every kind the sandbox serves has a schema; custom resources have none', () => {
    const served = [
      ['v1', ['Namespace', 'Pod', 'Node', 'Service', 'Endpoints', 'ConfigMap', 'Secret', 'ServiceAccount', 'Event']],
      ['apps/v1', ['Deployment', 'ReplicaSet', 'StatefulSet', 'DaemonSet', 'ControllerRevision']],
      ['batch/v1', ['Job']],
      ['coordination.k8s.io/v1', ['Lease']],
      ['events.k8s.io/v1', ['Event']],
      ['discovery.k8s.io/v1', ['EndpointSlice']],
      ['admissionregistration.k8s.io/v1', ['MutatingWebhookConfiguration', 'ValidatingWebhookConfiguration']],
      ['apiextensions.k8s.io/v1', ['CustomResourceDefinition']],
      ['autoscaling/v1', ['Scale']],
    ] as const;
    for (const [apiVersion, kinds] of served) for (const kind of kinds) assert.ok(strategicSchemaFor(apiVersion, kind), `${apiVersion} ${kind}`);
    assert.equal(strategicSchemaFor('example.com/v1', 'Widget'), undefined);
    assert.equal(strategicSchemaFor('apps/v1', 'Pod'), undefined);
  });

  test('the 415 a strategic merge patch on a custom resource gets (reference H.3)', () => {
    assert.deepEqual(strategicMergePatchUnsupportedStatus(), {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message:
        'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml',
      reason: 'UnsupportedMediaType',
      code: 415,
    });
  });
});
