// Sections A, B, D.1, H.3 and M of the apiserver reference, end to end through the entry points:
// defaults first (as the server applies them), then validation, rendered with the shared Status
// builder so the messages compare byte for byte with what kube-apiserver v1.32 answered.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { fieldErrorBody, invalidStatus, type FieldError } from '../errors.ts';
import type { JsonObject } from '../meta/object.ts';
import { applyDefaults } from '../defaults/index.ts';
import { hasKindValidation, validateCreate, validateStatusUpdate, validateUpdate, type GroupVersionKind } from './index.ts';

const POD: GroupVersionKind = { group: '', version: 'v1', kind: 'Pod' };
const DEPLOYMENT: GroupVersionKind = { group: 'apps', version: 'v1', kind: 'Deployment' };

function minimalPod(name: string, extra: { metadata?: JsonObject; spec?: JsonObject } = {}): JsonObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'probe', uid: `uid-${name}`, ...extra.metadata },
    spec: { containers: [{ name: 'c', image: 'nginx' }], ...extra.spec },
  };
}

function created(gvk: GroupVersionKind, obj: JsonObject): JsonObject {
  applyDefaults(gvk, obj, { operation: 'create', random: () => 'wxkrx', allocateClusterIP: () => '10.96.0.10' });
  return obj;
}

function stored(obj: JsonObject, resourceVersion = '100'): JsonObject {
  const copy = structuredClone(obj);
  (copy.metadata as JsonObject).resourceVersion = resourceVersion;
  (copy.metadata as JsonObject).creationTimestamp = '2026-01-01T00:00:00Z';
  return copy;
}

/** The update as the server sees it: the stored object changed by `edit`, defaulted again. */
function updated(gvk: GroupVersionKind, old: JsonObject, edit: (o: JsonObject) => void): JsonObject {
  const obj = structuredClone(old);
  edit(obj);
  applyDefaults(gvk, obj, { operation: 'update', random: () => 'zzzzz', old });
  return obj;
}

const message = (kind: string, group: string, name: string, errors: FieldError[]): string => invalidStatus({ kind, group, name }, errors).message ?? '';
const podCreateMessage = (pod: JsonObject): string => {
  const meta = pod.metadata as JsonObject;
  return message('Pod', '', String(meta.name ?? ''), validateCreate(POD, created(POD, pod)));
};

const NAME_PART =
  "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const SUBDOMAIN =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";

describe('A.1 labels', () => {
  const cases: Array<[string, Record<string, string>, string]> = [
    ['bad key', { 'bad key!': 'v' }, `metadata.labels: Invalid value: "bad key!": ${NAME_PART}`],
    ['value of 64 characters', { k: 'v'.repeat(64) }, `metadata.labels: Invalid value: "${'v'.repeat(64)}": must be no more than 63 characters`],
    [
      'bad value',
      { k: 'bad value!' },
      `metadata.labels: Invalid value: "bad value!": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')`,
    ],
    ['prefix of 254+ characters', { [`${'a'.repeat(254)}.com/k`]: 'v' }, `metadata.labels: Invalid value: "${'a'.repeat(254)}.com/k": prefix part must be no more than 253 characters`],
    ['name part of 64 characters', { [`example.com/${'k'.repeat(64)}`]: 'v' }, `metadata.labels: Invalid value: "example.com/${'k'.repeat(64)}": name part must be no more than 63 characters`],
    ['prefix not a subdomain', { 'Bad_Prefix/k': 'v' }, `metadata.labels: Invalid value: "Bad_Prefix/k": prefix part ${SUBDOMAIN}`],
    ['empty prefix', { '/k': 'v' }, 'metadata.labels: Invalid value: "/k": prefix part must be non-empty'],
  ];
  for (const [title, labels, expected] of cases) {
    test(title, () => assert.equal(podCreateMessage(minimalPod('a1', { metadata: { labels } })), `Pod "a1" is invalid: ${expected}`));
  }

  test('empty key: two causes in brackets', () => {
    const pod = created(POD, minimalPod('a1', { metadata: { labels: { '': 'v' } } }));
    const status = invalidStatus({ kind: 'Pod', group: '', name: 'a1' }, validateCreate(POD, pod));
    assert.equal(
      status.message,
      `Pod "a1" is invalid: [metadata.labels: Invalid value: "": name part must be non-empty, metadata.labels: Invalid value: "": ${NAME_PART}]`,
    );
    assert.deepEqual(
      status.details?.causes?.map((c) => c.field),
      ['metadata.labels', 'metadata.labels'],
    );
    assert.ok(status.details?.causes?.every((c) => c.reason === 'FieldValueInvalid'));
  });

  test('two slashes', () => {
    assert.equal(
      podCreateMessage(minimalPod('a1', { metadata: { labels: { 'a/b/c': 'v' } } })),
      `Pod "a1" is invalid: metadata.labels: Invalid value: "a/b/c": a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`,
    );
  });
});

describe('A.2 finalizers', () => {
  const finalizersOf = (finalizers: string[]): FieldError[] => validateCreate(POD, created(POD, minimalPod('a5', { metadata: { finalizers } })));

  test('a name without a domain is reported with an indexed field', () => {
    assert.equal(
      message('Pod', '', 'a5', finalizersOf(['nodomain'])),
      'Pod "a5" is invalid: metadata.finalizers[0]: Invalid value: "nodomain": name is neither a standard finalizer name nor is it fully qualified',
    );
    assert.deepEqual(
      finalizersOf(['nodomain', 'other']).map((e) => e.field),
      ['metadata.finalizers[0]', 'metadata.finalizers[1]'],
    );
  });
  test('a bad prefix or part is reported on the list field', () => {
    assert.equal(message('Pod', '', 'a5', finalizersOf(['Bad/x'])), `Pod "a5" is invalid: metadata.finalizers: Invalid value: "Bad/x": prefix part ${SUBDOMAIN}`);
    const long = `example.com/${'f'.repeat(64)}`;
    assert.equal(message('Pod', '', 'a5', finalizersOf([long])), `Pod "a5" is invalid: metadata.finalizers: Invalid value: "${long}": name part must be no more than 63 characters`);
    const longPrefix = `${'p'.repeat(300)}/x`;
    assert.equal(
      message('Pod', '', 'a5', finalizersOf([longPrefix])),
      `Pod "a5" is invalid: metadata.finalizers: Invalid value: "${longPrefix}": prefix part must be no more than 253 characters`,
    );
  });
  test('standard names, undotted prefixes and duplicates are accepted', () => {
    for (const finalizers of [['kubernetes'], ['orphan'], ['foregroundDeletion'], ['nodots/x'], ['example.com/dup', 'example.com/dup']])
      assert.deepEqual(finalizersOf(finalizers), [], finalizers.join(','));
  });
});

describe('A.3 annotations', () => {
  test('262144 bytes in total is the inclusive limit', () => {
    assert.deepEqual(validateCreate(POD, created(POD, minimalPod('a6', { metadata: { annotations: { a: 'x'.repeat(262143) } } }))), []);
    const errors = validateCreate(POD, created(POD, minimalPod('a6', { metadata: { annotations: { a: 'x'.repeat(262144) } } })));
    const status = invalidStatus({ kind: 'Pod', group: '', name: 'a6' }, errors);
    assert.equal(status.message, 'Pod "a6" is invalid: metadata.annotations: Too long: may not be more than 262144 bytes');
    assert.deepEqual(status.details?.causes, [
      { reason: 'FieldValueTooLong', message: 'Too long: may not be more than 262144 bytes', field: 'metadata.annotations' },
    ]);
  });
  test('keys follow the label key rules', () => {
    assert.equal(
      podCreateMessage(minimalPod('a6', { metadata: { annotations: { 'bad key!': 'free form value ✓' } } })),
      `Pod "a6" is invalid: metadata.annotations: Invalid value: "bad key!": ${NAME_PART}`,
    );
  });
});

describe('A.4 name and containers', () => {
  test('bad names', () => {
    assert.equal(podCreateMessage(minimalPod('BadName')), `Pod "BadName" is invalid: metadata.name: Invalid value: "BadName": ${SUBDOMAIN}`);
    assert.equal(podCreateMessage(minimalPod('bad_name')), `Pod "bad_name" is invalid: metadata.name: Invalid value: "bad_name": ${SUBDOMAIN}`);
    const long = 'a'.repeat(254);
    assert.equal(podCreateMessage(minimalPod(long)), `Pod "${long}" is invalid: metadata.name: Invalid value: "${long}": must be no more than 253 characters`);
  });
  test('no name and no generateName', () => {
    const pod = minimalPod('');
    delete (pod.metadata as JsonObject).name;
    const status = invalidStatus({ kind: 'Pod', group: '', name: '' }, validateCreate(POD, created(POD, pod)));
    assert.equal(status.message, 'Pod "" is invalid: metadata.name: Required value: name or generateName is required');
    assert.deepEqual(status.details, {
      kind: 'Pod',
      causes: [{ reason: 'FieldValueRequired', message: 'Required value: name or generateName is required', field: 'metadata.name' }],
    });
  });
  test('no containers', () => {
    for (const spec of [{ containers: [] }, {}]) {
      const pod = minimalPod('a7');
      pod.spec = spec;
      const status = invalidStatus({ kind: 'Pod', group: '', name: 'a7' }, validateCreate(POD, created(POD, pod)));
      assert.equal(status.message, 'Pod "a7" is invalid: spec.containers: Required value');
      assert.deepEqual(status.details?.causes, [{ reason: 'FieldValueRequired', message: 'Required value', field: 'spec.containers' }]);
    }
  });
  test('a container without image; two containers with one name', () => {
    assert.equal(podCreateMessage(minimalPod('a8', { spec: { containers: [{ name: 'c' }] } })), 'Pod "a8" is invalid: spec.containers[0].image: Required value');
    const dup = invalidStatus(
      { kind: 'Pod', group: '', name: 'a9' },
      validateCreate(POD, created(POD, minimalPod('a9', { spec: { containers: [{ name: 'c', image: 'a' }, { name: 'c', image: 'b' }] } }))),
    );
    assert.equal(dup.message, 'Pod "a9" is invalid: spec.containers[1].name: Duplicate value: "c"');
    assert.equal(dup.details?.causes?.[0]?.reason, 'FieldValueDuplicate');
  });
  test('bad label, bad finalizer and no containers: one error with three causes, in this order', () => {
    const pod = minimalPod('a10', { metadata: { labels: { 'bad key!': 'v' }, finalizers: ['nodomain'] } });
    pod.spec = {};
    const errors = validateCreate(POD, created(POD, pod));
    assert.deepEqual(
      errors.map((e) => e.field),
      ['metadata.labels', 'metadata.finalizers[0]', 'spec.containers'],
    );
  });
});

describe('N.3 generateName', () => {
  test('an invalid prefix is reported for generateName and for the generated name', () => {
    const pod = minimalPod('Bad_ckzb8', { metadata: { generateName: 'Bad_' } });
    const errors = validateCreate(POD, created(POD, pod));
    assert.deepEqual(
      errors.map((e) => [e.field, e.value]),
      [
        ['metadata.generateName', 'Bad_'],
        ['metadata.name', 'Bad_ckzb8'],
      ],
    );
    assert.ok(message('Pod', '', 'Bad_ckzb8', errors).startsWith('Pod "Bad_ckzb8" is invalid: [metadata.generateName: Invalid value: "Bad_": '));
  });
  test('a prefix ending in a dash is fine', () => {
    assert.deepEqual(validateCreate(POD, created(POD, minimalPod('gen-wxkrx', { metadata: { generateName: 'gen-' } }))), []);
  });
});

describe('B. pod spec immutability', () => {
  const base = stored(created(POD, minimalPod('b1')));
  const update = (edit: (o: JsonObject) => void): FieldError[] => validateUpdate(POD, updated(POD, base, edit), base);
  const spec = (o: JsonObject): JsonObject => o.spec as JsonObject;
  const GENERIC_FIRST_LINE =
    'pod updates may not change fields other than `spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)';

  test('the image may change; labels, annotations and finalizers too', () => {
    assert.deepEqual(
      update((o) => ((spec(o).containers as JsonObject[])[0]!.image = 'nginx:2')),
      [],
    );
    assert.deepEqual(
      update((o) => {
        const meta = o.metadata as JsonObject;
        meta.labels = { a: '1' };
        meta.annotations = { n: '1' };
        meta.finalizers = ['example.com/keep'];
      }),
      [],
    );
  });

  test('adding readinessGates is forbidden with the generic message and a go-cmp diff', () => {
    const errors = update((o) => (spec(o).readinessGates = [{ conditionType: 'example.com/ready' }]));
    assert.equal(errors.length, 1);
    const [err] = errors;
    assert.equal(err?.type, 'FieldValueForbidden');
    assert.equal(err?.field, 'spec');
    const body = fieldErrorBody(err!);
    assert.equal(body.split('\n')[0], `Forbidden: ${GENERIC_FIRST_LINE}`);
    assert.ok(body.includes('\n\u00a0\u00a0core.PodSpec{\n\u00a0\u00a0\t... // 23 identical fields\n'));
    assert.equal(message('Pod', '', 'b1', errors).split('\n')[0], `Pod "b1" is invalid: spec: Forbidden: ${GENERIC_FIRST_LINE}`);
  });

  test('activeDeadlineSeconds: set, then lowered; not raised, not removed, not zero', () => {
    const withDeadline = (n: number | undefined) => (o: JsonObject) => {
      if (n === undefined) delete spec(o).activeDeadlineSeconds;
      else spec(o).activeDeadlineSeconds = n;
    };
    assert.deepEqual(update(withDeadline(100)), []);
    const at100 = stored(updated(POD, base, withDeadline(100)), '101');
    assert.deepEqual(validateUpdate(POD, updated(POD, at100, withDeadline(50)), at100), []);
    const at50 = stored(updated(POD, at100, withDeadline(50)), '102');
    const msg = (edit: (o: JsonObject) => void): string => message('Pod', '', 'b1', validateUpdate(POD, updated(POD, at50, edit), at50));
    assert.equal(msg(withDeadline(200)), 'Pod "b1" is invalid: spec.activeDeadlineSeconds: Invalid value: 200: must be less than or equal to previous value');
    assert.equal(msg(withDeadline(undefined)), 'Pod "b1" is invalid: spec.activeDeadlineSeconds: Invalid value: "null": must not update from a positive integer to nil value');
    assert.equal(msg(withDeadline(0)), 'Pod "b1" is invalid: spec.activeDeadlineSeconds: Invalid value: 0: must be between 1 and 2147483647, inclusive');
  });

  test('a strategic-merge patch that replaces tolerations with a new one is accepted (defaults come back)', () => {
    const patched = updated(POD, base, (o) => (spec(o).tolerations = [{ key: 'a', operator: 'Exists', effect: 'NoSchedule' }]));
    assert.deepEqual(
      (spec(patched).tolerations as JsonObject[]).map((t) => t.key),
      ['a', 'node.kubernetes.io/not-ready', 'node.kubernetes.io/unreachable'],
    );
    assert.deepEqual(validateUpdate(POD, patched, base), []);
  });

  test('a merge patch that drops an existing toleration is forbidden', () => {
    const withA = stored(updated(POD, base, (o) => (spec(o).tolerations = [{ key: 'a', operator: 'Exists', effect: 'NoSchedule' }])), '103');
    const dropped = updated(POD, withA, (o) => (spec(o).tolerations = [{ key: 'b', operator: 'Exists', effect: 'NoSchedule' }]));
    assert.equal(
      message('Pod', '', 'b1', validateUpdate(POD, dropped, withA)),
      'Pod "b1" is invalid: spec.tolerations: Forbidden: existing toleration can not be modified except its tolerationSeconds',
    );
  });

  test('restartPolicy and nodeName get the generic message', () => {
    for (const edit of [(o: JsonObject) => (spec(o).restartPolicy = 'Never'), (o: JsonObject) => (spec(o).nodeName = 'node-1')]) {
      const errors = update(edit);
      assert.equal(errors.length, 1);
      assert.equal(fieldErrorBody(errors[0]!).split('\n')[0], `Forbidden: ${GENERIC_FIRST_LINE}`);
    }
  });
});

describe('D.1 finalizers on an object being deleted', () => {
  test('no new finalizers: Forbidden, with the cause twice (the message dedupes it in the real server)', () => {
    const deleting = stored(created(POD, minimalPod('d1', { metadata: { finalizers: ['example.com/f'] } })));
    (deleting.metadata as JsonObject).deletionTimestamp = '2026-01-01T00:01:00Z';
    (deleting.metadata as JsonObject).deletionGracePeriodSeconds = 0;
    const withG = updated(POD, deleting, (o) => ((o.metadata as JsonObject).finalizers = ['example.com/f', 'example.com/g']));
    const errors = validateUpdate(POD, withG, deleting);
    const expected = 'Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{"example.com/g"}';
    assert.deepEqual(
      errors.map((e) => [e.field, fieldErrorBody(e)]),
      [
        ['metadata.finalizers', expected],
        ['metadata.finalizers', expected],
      ],
    );
    const relabelled = updated(POD, deleting, (o) => ((o.metadata as JsonObject).labels = { x: '1' }));
    assert.deepEqual(validateUpdate(POD, relabelled, deleting), []);
  });
});

describe('H.3 immutable metadata and Deployment selectors', () => {
  const deployment = (): JsonObject =>
    created(DEPLOYMENT, {
      metadata: { name: 'h-dep', namespace: 'probe', uid: 'uid-dep' },
      spec: { selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
    });

  test('metadata.uid may not change', () => {
    const base = stored(deployment());
    const errors = validateUpdate(DEPLOYMENT, updated(DEPLOYMENT, base, (o) => ((o.metadata as JsonObject).uid = 'x')), base);
    assert.equal(message('Deployment', 'apps', 'h-dep', [errors[0]!]), 'Deployment.apps "h-dep" is invalid: metadata.uid: Invalid value: "x": field is immutable');
  });

  test('changing the selector: template labels no longer match, and the selector is immutable', () => {
    const base = stored(deployment());
    const errors = validateUpdate(
      DEPLOYMENT,
      updated(DEPLOYMENT, base, (o) => ((o.spec as JsonObject).selector = { matchLabels: { app: 'web2' } })),
      base,
    );
    assert.deepEqual(errors, [
      {
        type: 'FieldValueInvalid',
        field: 'spec.template.metadata.labels',
        value: { goLiteral: 'map[string]string{"app":"web"}' },
        detail: '`selector` does not match template `labels`',
      },
      {
        type: 'FieldValueInvalid',
        field: 'spec.selector',
        value: { goLiteral: 'v1.LabelSelector{MatchLabels:map[string]string{"app":"web2"}, MatchExpressions:[]v1.LabelSelectorRequirement(nil)}' },
        detail: 'field is immutable',
      },
    ]);
  });

  test('a Recreate strategy may not keep rollingUpdate; a container without image is reported in the template', () => {
    const base = stored(deployment());
    const recreate = updated(DEPLOYMENT, base, (o) => ((o.spec as JsonObject).strategy = { type: 'Recreate', rollingUpdate: { maxSurge: '25%' } }));
    assert.equal(
      message('Deployment', 'apps', 'web', validateUpdate(DEPLOYMENT, recreate, base)),
      "Deployment.apps \"web\" is invalid: spec.strategy.rollingUpdate: Forbidden: may not be specified when strategy `type` is 'Recreate'",
    );
    const noImage = updated(DEPLOYMENT, base, (o) => (((o.spec as JsonObject).template as JsonObject).spec = { containers: [{ name: 'z' }] }));
    assert.equal(
      message('Deployment', 'apps', 'h-dep', validateUpdate(DEPLOYMENT, noImage, base)),
      'Deployment.apps "h-dep" is invalid: spec.template.spec.containers[0].image: Required value',
    );
  });
});

describe('M. events', () => {
  const EVENTS: GroupVersionKind = { group: 'events.k8s.io', version: 'v1', kind: 'Event' };
  const CORE_EVENT: GroupVersionKind = { group: '', version: 'v1', kind: 'Event' };
  const regarding = { kind: 'Pod', namespace: 'probe', name: 'p', apiVersion: 'v1' };

  test('events.k8s.io/v1 requires eventTime', () => {
    const event = created(EVENTS, {
      metadata: { name: 'e1', namespace: 'probe' },
      regarding,
      reason: 'Started',
      note: 'n',
      type: 'Normal',
      reportingController: 'example.com/c',
      reportingInstance: 'i',
      action: 'Start',
    });
    // Both APIs share the core Event registry, so the Status names the kind without a group.
    assert.equal(message('Event', '', 'e1', validateCreate(EVENTS, event)), 'Event "e1" is invalid: eventTime: Required value');
  });

  test('events.k8s.io/v1 without the reporting fields and with a bad type: six causes', () => {
    const event = created(EVENTS, { metadata: { name: 'e2', namespace: 'probe' }, regarding, reason: 'R', eventTime: '2026-01-01T00:00:00.000000Z', type: 'Weird' });
    assert.deepEqual(
      validateCreate(EVENTS, event).map((e) => `${e.field}: ${fieldErrorBody(e)}`),
      [
        'reportingController: Required value',
        'reportingController: Invalid value: "": name part must be non-empty',
        `reportingController: Invalid value: "": ${NAME_PART}`,
        'reportingInstance: Required value',
        'action: Required value',
        'type: Invalid value: "": has invalid value: Weird',
      ],
    );
  });

  test('core/v1 events are lax, but the involved object must be in the same namespace', () => {
    const ok = created(CORE_EVENT, { metadata: { name: 'e3', namespace: 'probe' }, involvedObject: regarding, reason: 'R', message: 'm', type: 'Weird' });
    assert.deepEqual(validateCreate(CORE_EVENT, ok), []);
    const bad = created(CORE_EVENT, { metadata: { name: 'e4', namespace: 'probe' }, involvedObject: { kind: 'Pod', name: 'p' }, reason: 'R', message: 'm' });
    assert.equal(message('Event', '', 'e4', validateCreate(CORE_EVENT, bad)), 'Event "e4" is invalid: involvedObject.namespace: Invalid value: "": does not match event.namespace');
  });
});

describe('entry points', () => {
  test('kinds without rules get the metadata checks of a custom resource', () => {
    const widget: GroupVersionKind = { group: 'example.com', version: 'v1', kind: 'Widget' };
    assert.equal(hasKindValidation(widget), false);
    assert.deepEqual(validateCreate(widget, { metadata: { name: 'w1', namespace: 'probe' } }, { namespaced: true }), []);
    assert.deepEqual(
      validateCreate(widget, { metadata: { name: 'W1', namespace: 'probe' } }, { namespaced: true }).map((e) => e.field),
      ['metadata.name'],
    );
    assert.deepEqual(
      validateCreate(widget, { metadata: { name: 'w1', namespace: 'probe' } }, { namespaced: false }).map((e) => `${e.field}: ${fieldErrorBody(e)}`),
      ['metadata.namespace: Forbidden: not allowed on this type'],
    );
  });

  test('an update reports a metadata error from the generic pass and again from the kind (the server dedupes the message only)', () => {
    const base = stored(created(POD, minimalPod('u1')));
    const errors = validateUpdate(POD, updated(POD, base, (o) => ((o.metadata as JsonObject).labels = { 'bad key!': 'v' })), base);
    assert.equal(errors.length, 4);
    assert.ok(errors.every((e) => e.field === 'metadata.labels'));
  });

  test('pod status updates: spec is the old one, conditions are checked under metadata.conditions (sic)', () => {
    const base = stored(created(POD, minimalPod('s1')));
    const next = structuredClone(base);
    (next.status as JsonObject).conditions = [{ type: 'bad type!', status: 'True' }];
    assert.deepEqual(
      validateStatusUpdate(POD, next, base).map((e) => e.field),
      ['metadata.conditions[0].Type'],
    );
    const qos = structuredClone(base);
    (qos.status as JsonObject).qosClass = 'Burstable';
    assert.deepEqual(
      validateStatusUpdate(POD, qos, base).map((e) => `${e.field}: ${fieldErrorBody(e)}`),
      ['status.qosClass: Invalid value: "Burstable": field is immutable'],
    );
  });
});

describe('robustness', () => {
  const kinds: GroupVersionKind[] = [
    POD,
    DEPLOYMENT,
    { group: '', version: 'v1', kind: 'Service' },
    { group: '', version: 'v1', kind: 'Namespace' },
    { group: '', version: 'v1', kind: 'Node' },
    { group: '', version: 'v1', kind: 'Secret' },
    { group: '', version: 'v1', kind: 'Event' },
    { group: 'apps', version: 'v1', kind: 'StatefulSet' },
    { group: 'apps', version: 'v1', kind: 'DaemonSet' },
    { group: 'batch', version: 'v1', kind: 'Job' },
    { group: 'discovery.k8s.io', version: 'v1', kind: 'EndpointSlice' },
    { group: 'admissionregistration.k8s.io', version: 'v1', kind: 'ValidatingWebhookConfiguration' },
  ];

  test('objects of any shape are defaulted and validated without throwing (a bad body is a 422, never a 500)', () => {
    const anyObject = fc.dictionary(fc.constantFrom('metadata', 'spec', 'status', 'data', 'webhooks', 'involvedObject', 'type'), fc.jsonValue(), { maxKeys: 5 });
    fc.assert(
      fc.property(fc.constantFrom(...kinds), anyObject, anyObject, (kind, raw, rawOld) => {
        const obj = structuredClone(raw) as JsonObject;
        const old = structuredClone(rawOld) as JsonObject;
        applyDefaults(kind, obj, { operation: 'create', random: () => 'abcde', allocateClusterIP: () => '10.96.0.1' });
        applyDefaults(kind, old, { operation: 'update', random: () => 'abcde', old: obj });
        assert.ok(Array.isArray(validateCreate(kind, obj)));
        assert.ok(Array.isArray(validateUpdate(kind, old, obj)));
        assert.ok(Array.isArray(validateStatusUpdate(kind, old, obj)));
      }),
      { numRuns: 300 },
    );
  });
});

