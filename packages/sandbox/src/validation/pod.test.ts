import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { fieldErrorString, type FieldError } from '../errors.ts';
import type { JsonObject } from '../meta/object.ts';
import { applyDefaults } from '../defaults/index.ts';
import { validatePodCreate, validatePodUpdate } from './pod.ts';

const POD = { group: '', version: 'v1', kind: 'Pod' };

function pod(spec: JsonObject, metadata: JsonObject = {}): JsonObject {
  const p: JsonObject = { metadata: { name: 'p', namespace: 'probe', uid: 'u', resourceVersion: '1', ...metadata }, spec };
  applyDefaults(POD, p, { operation: 'create', random: () => 'abcde' });
  return p;
}

const errorsOf = (spec: JsonObject): string[] => validatePodCreate(pod(spec)).map(fieldErrorString);
const only = (errors: FieldError[]): string[] => errors.map(fieldErrorString);

describe('pod create: containers', () => {
  test('container names and ports', () => {
    assert.deepEqual(errorsOf({ containers: [{ name: 'C', image: 'x' }] }), [
      "spec.containers[0].name: Invalid value: \"C\": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
    ]);
    assert.deepEqual(errorsOf({ containers: [{ name: 'c', image: 'x', ports: [{ containerPort: 70000, protocol: 'HTTP' }, { name: 'p', containerPort: 80 }, { name: 'p', containerPort: 81 }] }] }), [
      'spec.containers[0].ports[0].containerPort: Invalid value: 70000: must be between 1 and 65535, inclusive',
      'spec.containers[0].ports[0].protocol: Unsupported value: "HTTP": supported values: "SCTP", "TCP", "UDP"',
      'spec.containers[0].ports[2].name: Duplicate value: "p"',
    ]);
  });

  test('host port conflicts across containers', () => {
    assert.deepEqual(
      errorsOf({
        containers: [
          { name: 'a', image: 'x', ports: [{ containerPort: 80, hostPort: 8080 }] },
          { name: 'b', image: 'x', ports: [{ containerPort: 81, hostPort: 8080 }] },
        ],
      }),
      ['spec.containers[1].ports[0].hostPort: Duplicate value: "TCP//8080"'],
    );
  });

  test('a mount of an unknown volume, an env var without a name, a request above its limit', () => {
    assert.deepEqual(
      errorsOf({
        containers: [
          {
            name: 'c',
            image: 'x',
            volumeMounts: [{ name: 'nope', mountPath: '/data' }],
            env: [{ value: 'v' }],
            resources: { requests: { cpu: '2' }, limits: { cpu: '1' } },
          },
        ],
      }),
      [
        'spec.containers[0].env[0].name: Required value',
        'spec.containers[0].volumeMounts[0].name: Not found: "nope"',
        'spec.containers[0].resources.requests: Invalid value: "2": must be less than or equal to cpu limit of 1',
      ],
    );
  });

  test('probes need a handler; liveness probes need successThreshold 1', () => {
    assert.deepEqual(errorsOf({ containers: [{ name: 'c', image: 'x', livenessProbe: { successThreshold: 2 } }] }), [
      'spec.containers[0].livenessProbe: Required value: must specify a handler type',
      'spec.containers[0].livenessProbe.successThreshold: Invalid value: 2: must be 1',
    ]);
  });

  test('init containers may not share a name with a container nor carry probes', () => {
    assert.deepEqual(errorsOf({ initContainers: [{ name: 'c', image: 'x', readinessProbe: { exec: { command: ['true'] } } }], containers: [{ name: 'c', image: 'x' }] }), [
      'spec.initContainers[0].name: Duplicate value: "c"',
      'spec.initContainers[0].readinessProbe: Forbidden: may not be set for init containers without restartPolicy=Always',
    ]);
  });

  test('images with surrounding whitespace, readiness gates, tolerations', () => {
    assert.deepEqual(errorsOf({ containers: [{ name: 'c', image: ' x' }] }), ['spec.containers[0].image: Invalid value: " x": must not have leading or trailing whitespace']);
    assert.equal(errorsOf({ readinessGates: [{ conditionType: 'bad type!' }], containers: [{ name: 'c', image: 'x' }] })[0]?.startsWith('spec.readinessGates[0].conditionType: Invalid value: "bad type!": name part must consist'), true);
    assert.deepEqual(errorsOf({ tolerations: [{ key: 'k', operator: 'Exists', value: 'v', effect: 'Never' }], containers: [{ name: 'c', image: 'x' }] }), [
      "spec.tolerations[0].operator: Invalid value: \"v\": value must be empty when `operator` is 'Exists'",
      'spec.tolerations[0].effect: Unsupported value: "Never": supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"',
    ]);
  });

  test('ephemeral containers cannot be set on create', () => {
    assert.deepEqual(errorsOf({ containers: [{ name: 'c', image: 'x' }], ephemeralContainers: [{ name: 'e', image: 'x' }] }).slice(-1), ['spec.ephemeralContainers: Forbidden: cannot be set on create']);
  });

  test('restartPolicy and dnsPolicy values', () => {
    assert.deepEqual(errorsOf({ restartPolicy: 'Sometimes', dnsPolicy: 'Nope', containers: [{ name: 'c', image: 'x' }] }), [
      'spec.restartPolicy: Unsupported value: "Sometimes": supported values: "Always", "OnFailure", "Never"',
      'spec.dnsPolicy: Unsupported value: "Nope": supported values: "ClusterFirstWithHostNet", "ClusterFirst", "Default", "None"',
    ]);
  });
});

describe('pod update', () => {
  const base = pod({ terminationGracePeriodSeconds: -1, containers: [{ name: 'c', image: 'x' }] });
  const changed = (edit: (spec: JsonObject) => void): JsonObject => {
    const next = structuredClone(base);
    edit(next.spec as JsonObject);
    return next;
  };

  test('terminationGracePeriodSeconds may go from negative to 1 only', () => {
    assert.deepEqual(validatePodUpdate(changed((s) => (s.terminationGracePeriodSeconds = 1)), base), []);
    assert.equal(validatePodUpdate(changed((s) => (s.terminationGracePeriodSeconds = 2)), base)[0]?.field, 'spec');
  });

  test('containers may not be added or removed; validation stops there', () => {
    assert.deepEqual(only(validatePodUpdate(changed((s) => (s.containers as JsonObject[]).push({ name: 'd', image: 'x' })), base)).slice(-1), [
      'spec.containers: Forbidden: pod updates may not add or remove containers',
    ]);
  });

  test('tolerationSeconds of an existing toleration may change', () => {
    const next = changed((s) => ((s.tolerations as JsonObject[])[0]!.tolerationSeconds = 60));
    assert.deepEqual(validatePodUpdate(next, base), []);
  });

  test('scheduling gates may only be removed', () => {
    const gated = pod({ schedulingGates: [{ name: 'example.com/a' }], containers: [{ name: 'c', image: 'x' }] });
    const removed = structuredClone(gated);
    (removed.spec as JsonObject).schedulingGates = [];
    assert.deepEqual(validatePodUpdate(removed, gated), []);
    const added = structuredClone(gated);
    (added.spec as JsonObject).schedulingGates = [{ name: 'example.com/a' }, { name: 'example.com/b' }];
    assert.deepEqual(only(validatePodUpdate(added, gated)), ["spec.schedulingGates[1].name: Forbidden: only deletion is allowed, but found new scheduling gate 'example.com/b'"]);
  });

  test('the mirror-pod annotation cannot be added', () => {
    const next = structuredClone(base);
    (next.metadata as JsonObject).annotations = { 'kubernetes.io/config.mirror': 'x' };
    assert.deepEqual(only(validatePodUpdate(next, base)), [
      'metadata.annotations[kubernetes.io/config.mirror]: Invalid value: "x": must set spec.nodeName if mirror pod annotation is set',
      'metadata.annotations[kubernetes.io/config.mirror]: Forbidden: may not add mirror pod annotation',
      'metadata.annotations[kubernetes.io/config.mirror]: Invalid value: "x": must set spec.nodeName if mirror pod annotation is set',
    ]);
  });
});
