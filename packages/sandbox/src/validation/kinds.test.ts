// The smaller kinds through the entry points: Service, Namespace, Node, Secret, ConfigMap,
// Endpoints, EndpointSlice, Lease and the webhook configurations.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { JsonObject } from '../meta/object.ts';
import { applyDefaults } from '../defaults/index.ts';
import { goFieldErrorString as show } from './golang.ts';
import { validateCreate, validateStatusUpdate, validateUpdate } from './index.ts';

const gvk = (group: string, kind: string) => ({ group, version: 'v1', kind });

function make(kind: ReturnType<typeof gvk>, obj: JsonObject, namespaced = true): JsonObject {
  obj.metadata = { name: 'x', ...(namespaced ? { namespace: 'probe' } : {}), uid: 'u', resourceVersion: '1', ...(obj.metadata as JsonObject | undefined) };
  applyDefaults(kind, obj, { operation: 'create', random: () => 'abcde', allocateClusterIP: () => '10.96.0.10', allocateNodePort: () => 30080 });
  return obj;
}
const errorsOf = (kind: ReturnType<typeof gvk>, obj: JsonObject, namespaced = true): string[] => validateCreate(kind, make(kind, obj, namespaced)).map(show);

describe('Service', () => {
  const SERVICE = gvk('', 'Service');

  test('names are RFC 1035 labels; ports are required', () => {
    assert.deepEqual(errorsOf(SERVICE, { metadata: { name: 'web' }, spec: { ports: [{ port: 80 }] } }), []);
    assert.deepEqual(errorsOf(SERVICE, { metadata: { name: '1web' }, spec: { ports: [{ port: 80 }] } }), [
      "metadata.name: Invalid value: \"1web\": a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')",
    ]);
    assert.deepEqual(errorsOf(SERVICE, { spec: {} }), ['spec.ports: Required value']);
  });

  test('several ports need names; duplicates; bad type', () => {
    assert.deepEqual(errorsOf(SERVICE, { spec: { ports: [{ port: 80 }, { name: 'b', port: 80 }] } }), [
      'spec.ports[0].name: Required value',
      'spec.ports[1]: Duplicate value: core.ServicePort{Name:"", Protocol:"TCP", AppProtocol:(*string)(nil), Port:80, TargetPort:intstr.IntOrString{Type:0, IntVal:0, StrVal:""}, NodePort:0}',
    ]);
    assert.deepEqual(errorsOf(SERVICE, { spec: { type: 'Internal', ports: [{ port: 80 }] } }), [
      'spec.type: Unsupported value: "Internal": supported values: "ClusterIP", "ExternalName", "LoadBalancer", "NodePort"',
    ]);
  });

  test('ClusterIP services may not set node ports; ExternalName needs a name', () => {
    assert.deepEqual(errorsOf(SERVICE, { spec: { ports: [{ port: 80, nodePort: 30001 }] } }), ["spec.ports[0].nodePort: Forbidden: may not be used when `type` is 'ClusterIP'"]);
    assert.deepEqual(errorsOf(SERVICE, { spec: { type: 'ExternalName' } }), ['spec.externalName: Required value']);
  });

  test('the cluster IP may not change; it is kept when an update omits it', () => {
    const old = make(SERVICE, { spec: { ports: [{ port: 80 }] } });
    const changed = structuredClone(old);
    (changed.spec as JsonObject).clusterIP = '10.96.0.11';
    (changed.spec as JsonObject).clusterIPs = ['10.96.0.11'];
    assert.deepEqual(validateUpdate(SERVICE, changed, old).map(show), ['spec.clusterIPs[0]: Invalid value: []string{"10.96.0.11"}: may not change once set']);
    const omitted = structuredClone(old);
    delete (omitted.spec as JsonObject).clusterIP;
    delete (omitted.spec as JsonObject).clusterIPs;
    applyDefaults(SERVICE, omitted, { operation: 'update', random: () => '', old });
    assert.deepEqual(validateUpdate(SERVICE, omitted, old), []);
  });

  test('status: load balancer ingress addresses', () => {
    const old = make(SERVICE, { spec: { type: 'LoadBalancer', ports: [{ port: 80 }] } });
    const next = structuredClone(old);
    next.status = { loadBalancer: { ingress: [{ ip: 'nope' }, { hostname: '10.0.0.1' }] } };
    assert.deepEqual(validateStatusUpdate(SERVICE, next, old).map(show), [
      'status.loadBalancer.ingress[0].ip: Invalid value: "nope": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)',
      'status.loadBalancer.ingress[1].hostname: Invalid value: "10.0.0.1": must be a DNS name, not an IP address',
    ]);
  });
});

describe('Namespace and Node', () => {
  test('namespace names are DNS labels; status phase follows deletion', () => {
    assert.deepEqual(errorsOf(gvk('', 'Namespace'), { metadata: { name: 'team' } }, false), []);
    assert.deepEqual(errorsOf(gvk('', 'Namespace'), { metadata: { name: 'a.b' } }, false), ['metadata.name: Invalid value: "a.b": must not contain dots']);
    const ns = make(gvk('', 'Namespace'), { metadata: { name: 'team' } }, false);
    const terminating = structuredClone(ns);
    (terminating.status as JsonObject).phase = 'Terminating';
    assert.deepEqual(validateStatusUpdate(gvk('', 'Namespace'), terminating, ns).map(show), [
      "status.Phase: Invalid value: \"Terminating\": may only be 'Active' if `deletionTimestamp` is empty",
    ]);
  });

  test('node taints are reported under metadata (sic) and must be unique per key and effect', () => {
    const node = { spec: { taints: [{ key: 'k', effect: 'NoSchedule' }, { key: 'k', effect: 'NoSchedule' }, { key: 'j' }] } };
    assert.deepEqual(errorsOf(gvk('', 'Node'), node, false), [
      'metadata.taints[1]: Duplicate value: core.Taint{Key:"k", Value:"", Effect:"NoSchedule", TimeAdded:(*v1.Time)(nil)}: taints must be unique by key and effect pair',
      'metadata.taints[2].effect: Required value',
    ]);
  });

  test('node pod CIDRs can be set once', () => {
    const old = make(gvk('', 'Node'), { spec: { podCIDRs: ['10.0.0.0/24'] } }, false);
    const next = structuredClone(old);
    (next.spec as JsonObject).podCIDRs = ['10.0.1.0/24'];
    assert.deepEqual(validateUpdate(gvk('', 'Node'), next, old).map(show), ['spec.podCIDRs: Forbidden: node updates may not change podCIDR except from "" to valid']);
  });
});

describe('ConfigMap and Secret', () => {
  test('data keys and sizes', () => {
    assert.deepEqual(errorsOf(gvk('', 'ConfigMap'), { data: { 'a b': '1' } }), [
      "data[a b]: Invalid value: \"a b\": a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')",
    ]);
    assert.deepEqual(errorsOf(gvk('', 'ConfigMap'), { data: { a: 'x'.repeat(1048577) } }), [': Too long: may not be more than 1048576 bytes']);
    assert.deepEqual(errorsOf(gvk('', 'Secret'), { data: { a: Buffer.alloc(1048577).toString('base64') } }), ['data: Too long: may not be more than 1048576 bytes']);
  });

  test('typed secrets require their keys', () => {
    assert.deepEqual(errorsOf(gvk('', 'Secret'), { type: 'kubernetes.io/tls', data: {} }), ['data[tls.crt]: Required value', 'data[tls.key]: Required value']);
  });

  test('immutable data and type', () => {
    const old = make(gvk('', 'Secret'), { immutable: true, data: { a: 'eA==' } });
    const next = structuredClone(old);
    next.data = { a: 'eQ==' };
    next.type = 'kubernetes.io/tls';
    assert.deepEqual(
      validateUpdate(gvk('', 'Secret'), next, old).map(show).slice(0, 2),
      ['type: Invalid value: "kubernetes.io/tls": field is immutable', 'data: Forbidden: field is immutable when `immutable` is set'],
    );
  });
});

describe('Endpoints and EndpointSlice', () => {
  test('endpoint addresses must be usable IPs', () => {
    assert.deepEqual(errorsOf(gvk('', 'Endpoints'), { subsets: [{ addresses: [{ ip: '127.0.0.1' }], ports: [{ port: 80 }] }] }), [
      'subsets[0].addresses[0].ip: Invalid value: "127.0.0.1": may not be in the loopback range (127.0.0.0/8, ::1/128)',
    ]);
    assert.deepEqual(errorsOf(gvk('', 'Endpoints'), { subsets: [{ ports: [{ port: 80 }] }] }), ['subsets[0]: Required value: must specify `addresses` or `notReadyAddresses`']);
  });

  test('slices: address type and addresses', () => {
    const SLICE = gvk('discovery.k8s.io', 'EndpointSlice');
    assert.deepEqual(errorsOf(SLICE, { addressType: 'IPv4', endpoints: [{ addresses: ['10.0.0.1'] }], ports: [{ port: 80 }] }), []);
    assert.deepEqual(errorsOf(SLICE, { addressType: 'IPv4', endpoints: [{ addresses: ['::1'] }, { addresses: [] }] }), [
      'endpoints[0].addresses[0]: Invalid value: "::1": must be a valid IPv4 address',
      'endpoints[0].addresses[0]: Invalid value: "::1": may not be in the loopback range (127.0.0.0/8, ::1/128)',
      'endpoints[1].addresses: Required value: must contain at least 1 address',
    ]);
    assert.deepEqual(errorsOf(SLICE, { addressType: 'Any' }), ['addressType: Unsupported value: "Any": supported values: "FQDN", "IPv4", "IPv6"']);
  });
});

describe('Lease', () => {
  test('durations must be positive', () => {
    assert.deepEqual(errorsOf(gvk('coordination.k8s.io', 'Lease'), { spec: { leaseDurationSeconds: 0, leaseTransitions: -1 } }), [
      'spec.leaseDurationSeconds: Invalid value: 0: must be greater than 0',
      'spec.leaseTransitions: Invalid value: -1: must be greater than or equal to 0',
    ]);
  });
});

describe('webhook configurations', () => {
  const VALIDATING = gvk('admissionregistration.k8s.io', 'ValidatingWebhookConfiguration');
  const MUTATING = gvk('admissionregistration.k8s.io', 'MutatingWebhookConfiguration');
  const hook = (extra: JsonObject = {}): JsonObject => ({
    name: 'check.example.com',
    clientConfig: { url: 'https://hooks.example.com/check' },
    sideEffects: 'None',
    admissionReviewVersions: ['v1'],
    rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'] }],
    ...extra,
  });

  test('a valid configuration', () => {
    assert.deepEqual(errorsOf(VALIDATING, { webhooks: [hook()] }, false), []);
  });

  test('sideEffects and admissionReviewVersions are required; names need three segments and must be unique', () => {
    const bare = hook({ name: 'check' });
    delete bare.sideEffects;
    delete bare.admissionReviewVersions;
    assert.deepEqual(errorsOf(VALIDATING, { webhooks: [bare, hook(), hook()] }, false), [
      'webhooks[0].name: Invalid value: "check": should be a domain with at least three segments separated by dots',
      'webhooks[0].sideEffects: Required value: must specify one of None, NoneOnDryRun',
      'webhooks[0].admissionReviewVersions: Required value: must specify one of v1, v1beta1',
      'webhooks[2].name: Duplicate value: "check.example.com"',
    ]);
  });

  test('policies and timeouts', () => {
    assert.deepEqual(errorsOf(MUTATING, { webhooks: [hook({ failurePolicy: 'Maybe', matchPolicy: 'Loose', timeoutSeconds: 31, reinvocationPolicy: 'Always', sideEffects: 'Some' })] }, false), [
      'webhooks[0].failurePolicy: Unsupported value: "Maybe": supported values: "Fail", "Ignore"',
      'webhooks[0].matchPolicy: Unsupported value: "Loose": supported values: "Equivalent", "Exact"',
      'webhooks[0].sideEffects: Unsupported value: "Some": supported values: "None", "NoneOnDryRun"',
      'webhooks[0].timeoutSeconds: Invalid value: 31: the timeout value must be between 1 and 30 seconds',
      'webhooks[0].reinvocationPolicy: Unsupported value: "Always": supported values: "IfNeeded", "Never"',
    ]);
  });

  test('client config: url xor service; https only; the service name/namespace swap of the real server', () => {
    assert.deepEqual(errorsOf(VALIDATING, { webhooks: [hook({ clientConfig: {} })] }, false), ['webhooks[0].clientConfig: Required value: exactly one of url or service is required']);
    assert.deepEqual(errorsOf(VALIDATING, { webhooks: [hook({ clientConfig: { url: 'http://hooks.example.com/x?a=1' } })] }, false), [
      "webhooks[0].clientConfig.url: Invalid value: \"http\": 'https' is the only allowed URL scheme; desired format: https://host[/path]",
      'webhooks[0].clientConfig.url: Invalid value: "a=1": query parameters are not permitted in the URL',
    ]);
    assert.deepEqual(errorsOf(VALIDATING, { webhooks: [hook({ clientConfig: { service: { namespace: 'n' } } })] }, false), ['webhooks[0].clientConfig.service.namespace: Required value']);
  });

  test('rules: operations and wildcards', () => {
    assert.deepEqual(errorsOf(VALIDATING, { webhooks: [hook({ rules: [{ operations: ['PATCH'], apiGroups: ['*', 'apps'], apiVersions: ['v1'], resources: ['*', 'pods'] }] })] }, false), [
      'webhooks[0].rules[0].operations[0]: Unsupported value: "PATCH": supported values: "*", "CONNECT", "CREATE", "DELETE", "UPDATE"',
      'webhooks[0].rules[0].apiGroups: Invalid value: []string{"*", "apps"}: if \'*\' is present, must not specify other API groups',
      'webhooks[0].rules[0].resources: Invalid value: []string{"*", "pods"}: if \'*\' is present, must not specify other resources without subresources',
    ]);
  });

  test('updates tolerate what the stored object already had', () => {
    const old = make(VALIDATING, { webhooks: [hook({ sideEffects: 'Unknown' })] }, false);
    const next = structuredClone(old);
    ((next.webhooks as JsonObject[])[0] as JsonObject).timeoutSeconds = 5;
    assert.deepEqual(validateUpdate(VALIDATING, next, old), []);
  });
});
