// Dynamic admission webhooks against real HTTPS webhook servers on 127.0.0.1: the AdmissionReview of
// each operation (reference section I.1), denials, warnings, failures and timeouts as the real server
// words them (I.2), JSONPatch mutation and the validation after it, reinvocation, selectors, dryRun
// with sideEffects, Services mapped to local addresses, and TLS verification against the caBundle.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { eventually, gadgetCrd, podManifest, skipWithoutKubectl, startHarness, type Harness } from './harness.ts';
import { createCertificateAuthority, startWebhookServer, type CertificateAuthority, type WebhookServer } from './webhook-server.ts';

let h: Harness;
let ca: CertificateAuthority;
let server: WebhookServer;

before(async () => {
  ca = await createCertificateAuthority('webhook-test-ca');
  server = await startWebhookServer(await ca.issue(['127.0.0.1', 'hook.webhooks.svc']));
  h = await startHarness({ webhookServices: { 'webhooks/hook': server.url } });
});
after(async () => {
  await h.stop();
  await server.close();
});

type Kind = 'mutating' | 'validating';
const configPath = (kind: Kind): string => `/apis/admissionregistration.k8s.io/v1/${kind}webhookconfigurations`;
const json = { 'Content-Type': 'application/merge-patch+json' };

/** A webhook calling `path` on the test server, for pods in namespace `ns` unless overridden. */
function hook(name: string, path: string, ns: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name,
    admissionReviewVersions: ['v1'],
    sideEffects: 'None',
    timeoutSeconds: 5,
    clientConfig: { url: `${server.url}${path}`, caBundle: ca.caBundle },
    rules: [{ operations: ['*'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'] }],
    namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': ns } },
    ...extra,
  };
}

/** Registers a configuration for the duration of `body`. */
async function withConfiguration(kind: Kind, name: string, webhooks: Record<string, unknown>[], body: () => Promise<void>): Promise<void> {
  const created = await h.http('POST', configPath(kind), { apiVersion: 'admissionregistration.k8s.io/v1', kind: `${kind === 'mutating' ? 'Mutating' : 'Validating'}WebhookConfiguration`, metadata: { name }, webhooks });
  assert.equal(created.status, 201, created.text);
  try {
    await body();
  } finally {
    await h.http('DELETE', `${configPath(kind)}/${name}`);
  }
}

async function namespace(name: string, labels: Record<string, string> = {}): Promise<void> {
  assert.equal((await h.http('POST', '/api/v1/namespaces', { metadata: { name, labels } })).status, 201);
}

const createPod = (ns: string, name: string, extra: Record<string, unknown> = {}) => h.http('POST', `/api/v1/namespaces/${ns}/pods`, podManifest(name, extra));

async function unusedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

describe('the AdmissionReview of each operation (I.1)', () => {
  test('CREATE: headers, timeout query, request fields; the object before BeforeCreate for mutating webhooks', async () => {
    await namespace('wh');
    server.handle('/create-m', () => ({ allowed: true }));
    server.handle('/create-v', () => ({ allowed: true }));
    await withConfiguration('mutating', 'create-m', [hook('m.example.com', '/create-m', 'wh', { rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'] }] })], async () => {
      await withConfiguration('validating', 'create-v', [hook('v.example.com', '/create-v', 'wh')], async () => {
        assert.equal((await createPod('wh', 'p1')).status, 201);
        const [mutating] = server.reviews('/create-m');
        assert.ok(mutating);
        assert.equal(mutating.headers['content-type'], 'application/json');
        assert.equal(mutating.headers.accept, 'application/json, */*');
        assert.equal(mutating.headers['user-agent'], 'kube-apiserver-admission');
        const { review } = mutating;
        assert.equal(review.kind, 'AdmissionReview');
        assert.equal(review.apiVersion, 'admission.k8s.io/v1');
        const r = review.request;
        assert.match(r.uid, /^[0-9a-f-]{36}$/);
        assert.deepEqual(r.kind, { group: '', version: 'v1', kind: 'Pod' });
        assert.deepEqual(r.resource, { group: '', version: 'v1', resource: 'pods' });
        assert.deepEqual(r.requestKind, r.kind);
        assert.deepEqual(r.requestResource, r.resource);
        assert.equal('subResource' in r, false);
        assert.equal('requestSubResource' in r, false);
        assert.equal(r.name, 'p1');
        assert.equal(r.namespace, 'wh');
        assert.equal(r.operation, 'CREATE');
        assert.deepEqual(r.userInfo, { username: 'admin', groups: ['system:masters', 'system:authenticated'] });
        assert.equal(r.object.metadata.uid, undefined);
        assert.equal(r.object.metadata.resourceVersion, undefined);
        assert.equal(r.object.metadata.creationTimestamp, null);
        assert.ok(r.object.metadata.managedFields.length > 0);
        assert.equal(r.object.spec.tolerations.length, 2, 'built-in admission ran before the webhooks');
        assert.equal(r.oldObject, null);
        assert.equal(r.dryRun, false);
        assert.deepEqual(r.options, { kind: 'CreateOptions', apiVersion: 'meta.k8s.io/v1' });
        // Validating webhooks see the object after BeforeCreate: uid and creationTimestamp set, still no resourceVersion.
        const validating = server.reviews('/create-v')[0]?.review.request;
        assert.match(validating.object.metadata.uid, /^[0-9a-f-]{36}$/);
        assert.ok(validating.object.metadata.creationTimestamp);
        assert.equal(validating.object.metadata.resourceVersion, undefined);
        assert.equal(mutating.query, '?timeout=5s', 'timeoutSeconds travels as the timeout query parameter');

        assert.equal((await h.http('POST', '/api/v1/namespaces/wh/pods?dryRun=All', podManifest('p-dry'))).status, 201);
        const dry = server.reviews('/create-m').at(-1)?.review.request;
        assert.equal(dry.dryRun, true);
        assert.deepEqual(dry.options, { kind: 'CreateOptions', apiVersion: 'meta.k8s.io/v1', dryRun: ['All'] });
      });
    });
  });

  test('a generated name is unknown to mutating webhooks and known to validating ones', async () => {
    await namespace('wh-gen');
    await withConfiguration('mutating', 'gen-m', [hook('m.example.com', '/gen-m', 'wh-gen')], async () => {
      await withConfiguration('validating', 'gen-v', [hook('v.example.com', '/gen-v', 'wh-gen')], async () => {
        const created = await h.http('POST', '/api/v1/namespaces/wh-gen/pods', { ...podManifest(''), metadata: { generateName: 'gen-' } });
        assert.equal(created.status, 201);
        const mutating = server.reviews('/gen-m')[0]?.review.request;
        assert.equal('name' in mutating, false);
        assert.equal(mutating.object.metadata.name, undefined);
        assert.equal(mutating.object.metadata.generateName, 'gen-');
        const validating = server.reviews('/gen-v')[0]?.review.request;
        assert.equal(validating.name, created.json.metadata.name);
        assert.equal(validating.object.metadata.name, created.json.metadata.name);
      });
    });
  });

  test('pod CREATE: mutating webhooks see the decoder\'s defaults but not PrepareForCreate\'s status; validating ones see both', async () => {
    await namespace('wh-defaults');
    const rule = { rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'] }] };
    // The mutating webhook gives the container a memory request: the QoS class is computed after it.
    const request = [{ op: 'add', path: '/spec/containers/0/resources', value: { requests: { memory: '64Mi' } } }];
    server.handle('/defaults-m', () => ({ allowed: true, patch: request }));
    await withConfiguration('mutating', 'defaults-m', [hook('m.example.com', '/defaults-m', 'wh-defaults', rule)], async () => {
      await withConfiguration('validating', 'defaults-v', [hook('v.example.com', '/defaults-v', 'wh-defaults', rule)], async () => {
        const created = await createPod('wh-defaults', 'p1');
        assert.equal(created.status, 201, created.text);
        const mutating = server.reviews('/defaults-m')[0]?.review.request.object;
        assert.deepEqual(mutating.status, {}, 'no phase and no qosClass before PrepareForCreate');
        assert.equal(mutating.spec.restartPolicy, 'Always');
        assert.equal(mutating.spec.dnsPolicy, 'ClusterFirst');
        assert.equal(mutating.spec.terminationGracePeriodSeconds, 30);
        assert.equal(mutating.spec.containers[0].imagePullPolicy, 'IfNotPresent');
        assert.equal(mutating.spec.serviceAccountName, 'default', 'the ServiceAccount plugin runs before the webhooks');
        const validating = server.reviews('/defaults-v')[0]?.review.request.object;
        assert.deepEqual(validating.status, { phase: 'Pending', qosClass: 'Burstable' });
        assert.deepEqual(created.json.status, { phase: 'Pending', qosClass: 'Burstable' });
      });
    });
  });

  test('UPDATE by merge PATCH: UpdateOptions, the new object at the old resourceVersion, the stored one as oldObject', async () => {
    await namespace('wh-upd');
    const created = await createPod('wh-upd', 'p1', { metadata: { labels: { a: '1' } } });
    await withConfiguration('validating', 'upd', [hook('v.example.com', '/upd', 'wh-upd')], async () => {
      const patched = await h.http('PATCH', '/api/v1/namespaces/wh-upd/pods/p1?fieldManager=tester', { metadata: { labels: { a: '2' } } }, json);
      assert.equal(patched.status, 200);
      const r = server.reviews('/upd')[0]?.review.request;
      assert.equal(r.operation, 'UPDATE');
      assert.deepEqual(r.options, { kind: 'UpdateOptions', apiVersion: 'meta.k8s.io/v1', fieldManager: 'tester' });
      assert.equal(r.object.metadata.labels.a, '2');
      assert.equal(r.oldObject.metadata.labels.a, '1');
      assert.equal(r.oldObject.metadata.resourceVersion, created.json.metadata.resourceVersion);
      assert.equal(r.object.metadata.resourceVersion, created.json.metadata.resourceVersion);
    });
  });

  test('pods/status UPDATE: subResource status; a mutating webhook adds a label and an annotation that persist (E.1)', async () => {
    await namespace('wh-status');
    const created = await createPod('wh-status', 'p1');
    server.handle('/status', (review) => ({
      allowed: true,
      patch: review.request.object.metadata.labels
        ? [{ op: 'add', path: '/metadata/labels/from-webhook', value: 'yes' }]
        : [
            { op: 'add', path: '/metadata/labels', value: { 'from-webhook': 'yes' } },
            { op: 'add', path: '/metadata/annotations', value: { 'from-webhook': 'yes' } },
          ],
    }));
    const statusRule = { rules: [{ operations: ['UPDATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods/status'] }] };
    await withConfiguration('mutating', 'status', [hook('status.example.com', '/status', 'wh-status', statusRule)], async () => {
      const pod = created.json;
      const updated = await h.http('PUT', '/api/v1/namespaces/wh-status/pods/p1/status', { ...pod, status: { ...pod.status, phase: 'Running' } });
      assert.equal(updated.status, 200, updated.text);
      const r = server.reviews('/status')[0]?.review.request;
      assert.equal(r.subResource, 'status');
      assert.equal(r.requestSubResource, 'status');
      assert.equal(r.operation, 'UPDATE');
      assert.equal(r.object.status.phase, 'Running');
      assert.equal(r.oldObject.status.phase, 'Pending');
      assert.equal(updated.json.metadata.labels['from-webhook'], 'yes');
      assert.equal(updated.json.metadata.annotations['from-webhook'], 'yes');
      const stored = await h.http('GET', '/api/v1/namespaces/wh-status/pods/p1');
      assert.equal(stored.json.metadata.labels['from-webhook'], 'yes');
      assert.equal(stored.json.status.phase, 'Running');
      // A main-resource update does not match a rule for pods/status.
      await h.http('PATCH', '/api/v1/namespaces/wh-status/pods/p1', { metadata: { labels: { other: 'x' } } }, json);
      assert.equal(server.reviews('/status').length, 1);
    });
  });

  test('deployments/status: the webhook\'s label is dropped, its annotation kept (E.2); rules with */status match', async () => {
    await namespace('wh-dstatus');
    const deployment = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'd1' },
      spec: { selector: { matchLabels: { app: 'd' } }, template: { metadata: { labels: { app: 'd' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
    };
    const created = await h.http('POST', '/apis/apps/v1/namespaces/wh-dstatus/deployments', deployment);
    assert.equal(created.status, 201);
    server.handle('/dstatus', () => ({
      allowed: true,
      patch: [
        { op: 'add', path: '/metadata/labels', value: { 'from-webhook': 'yes' } },
        { op: 'add', path: '/metadata/annotations', value: { 'from-webhook': 'yes' } },
      ],
    }));
    const rule = { rules: [{ operations: ['UPDATE'], apiGroups: ['apps'], apiVersions: ['v1'], resources: ['*/status'] }] };
    await withConfiguration('mutating', 'dstatus', [hook('dstatus.example.com', '/dstatus', 'wh-dstatus', rule)], async () => {
      const updated = await h.http('PUT', '/apis/apps/v1/namespaces/wh-dstatus/deployments/d1/status', { ...created.json, status: { observedGeneration: 1 } });
      assert.equal(updated.status, 200, updated.text);
      assert.equal(updated.json.metadata.labels?.['from-webhook'], undefined);
      assert.equal(updated.json.metadata.annotations['from-webhook'], 'yes');
      assert.deepEqual(server.reviews('/dstatus')[0]?.review.request.kind, { group: 'apps', version: 'v1', kind: 'Deployment' });
    });
  });

  test('deployments/scale: Scale objects, not Deployments; a webhook for deployments is not called; the Scale may be mutated', async () => {
    await namespace('wh-scale');
    const deployment = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'd1' },
      spec: { replicas: 1, selector: { matchLabels: { app: 'd' } }, template: { metadata: { labels: { app: 'd' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
    };
    assert.equal((await h.http('POST', '/apis/apps/v1/namespaces/wh-scale/deployments', deployment)).status, 201);
    server.handle('/scale', (review) => ({ allowed: true, patch: [{ op: 'replace', path: '/spec/replicas', value: review.request.object.spec.replicas + 1 }] }));
    const rule = (resources: string[]) => ({ rules: [{ operations: ['UPDATE'], apiGroups: ['apps'], apiVersions: ['v1'], resources }] });
    await withConfiguration('mutating', 'scale', [hook('scale.example.com', '/scale', 'wh-scale', rule(['deployments/scale'])), hook('main.example.com', '/scale-main', 'wh-scale', rule(['deployments']))], async () => {
      const scaled = await h.http('PATCH', '/apis/apps/v1/namespaces/wh-scale/deployments/d1/scale', { spec: { replicas: 3 } }, json);
      assert.equal(scaled.status, 200, scaled.text);
      assert.equal(scaled.json.spec.replicas, 4);
      const r = server.reviews('/scale')[0]?.review.request;
      assert.deepEqual(r.kind, { group: 'autoscaling', version: 'v1', kind: 'Scale' });
      assert.deepEqual(r.resource, { group: 'apps', version: 'v1', resource: 'deployments' });
      assert.equal(r.subResource, 'scale');
      assert.equal(r.object.kind, 'Scale');
      assert.equal(r.object.spec.replicas, 3);
      assert.equal(r.oldObject.spec.replicas, 1);
      assert.equal(server.reviews('/scale-main').length, 0);
      assert.equal((await h.http('GET', '/apis/apps/v1/namespaces/wh-scale/deployments/d1')).json.spec.replicas, 4);
    });
  });

  test('DELETE: object null, the computed grace period in options, two calls for an unscheduled pod, one for a ConfigMap', async () => {
    await namespace('wh-del');
    const created = await createPod('wh-del', 'p1');
    await h.http('POST', '/api/v1/namespaces/wh-del/configmaps', { metadata: { name: 'c1' } });
    const rules = { rules: [{ operations: ['DELETE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods', 'configmaps'] }] };
    await withConfiguration('mutating', 'del', [hook('del.example.com', '/del', 'wh-del', rules)], async () => {
      assert.equal((await h.http('DELETE', '/api/v1/namespaces/wh-del/pods/p1', { propagationPolicy: 'Background' })).status, 200);
      const calls = server.reviews('/del').map((x) => x.review.request);
      assert.equal(calls.length, 2);
      const [first, second] = calls;
      assert.equal(first.operation, 'DELETE');
      assert.equal(first.object, null);
      assert.equal(first.name, 'p1');
      assert.deepEqual(first.options, { kind: 'DeleteOptions', apiVersion: 'meta.k8s.io/v1', gracePeriodSeconds: 0, propagationPolicy: 'Background' });
      assert.equal(first.oldObject.metadata.deletionTimestamp, undefined);
      assert.equal(first.oldObject.metadata.resourceVersion, created.json.metadata.resourceVersion);
      assert.ok(second.oldObject.metadata.deletionTimestamp);
      assert.ok(Number(second.oldObject.metadata.resourceVersion) > Number(created.json.metadata.resourceVersion), 'the second call sees the written deletion');

      assert.equal((await h.http('DELETE', '/api/v1/namespaces/wh-del/configmaps/c1')).status, 200);
      assert.equal(server.reviews('/del').length, 3);
      assert.deepEqual(server.reviews('/del')[2]?.review.request.options, { kind: 'DeleteOptions', apiVersion: 'meta.k8s.io/v1' });
    });
  });

  test('a bound pod waiting out its grace period: the first DELETE is admitted, a repeat is answered without admission', async () => {
    await namespace('wh-grace');
    await createPod('wh-grace', 'p1', { spec: { nodeName: 'node-x', terminationGracePeriodSeconds: 30 } });
    const rules = { rules: [{ operations: ['DELETE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'] }] };
    await withConfiguration('validating', 'grace', [hook('grace.example.com', '/grace', 'wh-grace', rules)], async () => {
      await h.http('DELETE', '/api/v1/namespaces/wh-grace/pods/p1');
      assert.equal(server.reviews('/grace').length, 1);
      assert.equal(server.reviews('/grace')[0]?.review.request.options.gracePeriodSeconds, 30);
      await h.http('DELETE', '/api/v1/namespaces/wh-grace/pods/p1');
      assert.equal(server.reviews('/grace').length, 1);
      await h.http('DELETE', '/api/v1/namespaces/wh-grace/pods/p1?gracePeriodSeconds=0');
      assert.equal(server.reviews('/grace').length, 3, 'shortening the grace period updates, then deletes');
    });
  });
});

describe('denials, warnings, failures and timeouts (I.2)', () => {
  test('a validating webhook denies DELETE of pods: 400 without reason, then 403 Forbidden; the retry succeeds once it allows', async () => {
    await namespace('wh-deny');
    await createPod('wh-deny', 'p1');
    let answer: Record<string, unknown> | undefined = { message: 'nope' };
    server.handle('/deny', (review) => (review.request.operation === 'DELETE' && answer ? { allowed: false, status: answer } : { allowed: true }));
    await withConfiguration('validating', 'deny', [hook('deny.example.com', '/deny', 'wh-deny')], async () => {
      const denied = await h.http('DELETE', '/api/v1/namespaces/wh-deny/pods/p1');
      assert.equal(denied.status, 400);
      assert.deepEqual(denied.json, {
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message: 'admission webhook "deny.example.com" denied the request: nope',
        code: 400,
      });
      assert.equal((await h.http('GET', '/api/v1/namespaces/wh-deny/pods/p1')).json.metadata.deletionTimestamp, undefined, 'nothing was written');
      answer = { code: 403, reason: 'Forbidden', message: 'nope' };
      const forbidden = await h.http('DELETE', '/api/v1/namespaces/wh-deny/pods/p1');
      assert.equal(forbidden.status, 403);
      assert.equal(forbidden.json.reason, 'Forbidden');
      assert.equal(forbidden.json.message, 'admission webhook "deny.example.com" denied the request: nope');
      answer = undefined;
      assert.equal((await h.http('DELETE', '/api/v1/namespaces/wh-deny/pods/p1')).status, 200);
      await eventually(async () => ((await h.http('GET', '/api/v1/namespaces/wh-deny/pods/p1')).status === 404 ? true : undefined));
    });
  });

  test('kubectl prints denials as the real server words them', { skip: skipWithoutKubectl }, async () => {
    await namespace('wh-kdeny');
    await createPod('wh-kdeny', 'p1');
    let answer: Record<string, unknown> = { message: 'nope' };
    server.handle('/kdeny', (review) => (review.request.operation === 'DELETE' ? { allowed: false, status: answer } : { allowed: true }));
    await withConfiguration('validating', 'kdeny', [hook('deny.example.com', '/kdeny', 'wh-kdeny')], async () => {
      const plain = await h.kubectl(['delete', 'pod', 'p1', '-n', 'wh-kdeny']);
      assert.equal(plain.code, 1);
      assert.equal(plain.stderr.trim(), 'Error from server: admission webhook "deny.example.com" denied the request: nope');
      answer = { code: 403, reason: 'Forbidden', message: 'nope' };
      const forbidden = await h.kubectl(['delete', 'pod', 'p1', '-n', 'wh-kdeny']);
      assert.equal(forbidden.stderr.trim(), 'Error from server (Forbidden): admission webhook "deny.example.com" denied the request: nope');
    });
  });

  test('warnings become Warning: 299 headers (kubectl prints them)', async () => {
    await namespace('wh-warn');
    server.handle('/warn', () => ({ allowed: true, warnings: ['this is a webhook warning'] }));
    const rules = { rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }] };
    await withConfiguration('validating', 'warn', [hook('warn.example.com', '/warn', 'wh-warn', rules)], async () => {
      const created = await h.http('POST', '/api/v1/namespaces/wh-warn/configmaps', { metadata: { name: 'c1' } });
      assert.equal(created.status, 201);
      assert.equal(created.headers.get('warning'), '299 - "this is a webhook warning"');
      if (!skipWithoutKubectl) {
        const out = await h.kubectl(['create', 'configmap', 'c2', '-n', 'wh-warn']);
        assert.equal(out.code, 0);
        assert.equal(out.stderr.trim(), 'Warning: this is a webhook warning');
      }
    });
  });

  test('a denial\'s warnings, and those of earlier webhooks, still reach the client; so do DELETE\'s', async () => {
    await namespace('wh-warn-deny');
    await h.http('POST', '/api/v1/namespaces/wh-warn-deny/configmaps', { metadata: { name: 'c1' } });
    server.handle('/wd-first', () => ({ allowed: true, warnings: ['first'] }));
    server.handle('/wd-deny', (review) =>
      review.request.operation === 'DELETE' ? { allowed: true, warnings: ['deleting'] } : { allowed: false, status: { message: 'no' }, warnings: ['denying'] },
    );
    const rules = { rules: [{ operations: ['CREATE', 'DELETE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }] };
    await withConfiguration('mutating', 'wd-first', [hook('first.example.com', '/wd-first', 'wh-warn-deny', rules)], async () => {
      await withConfiguration('validating', 'wd-deny', [hook('deny.example.com', '/wd-deny', 'wh-warn-deny', rules)], async () => {
        const denied = await h.http('POST', '/api/v1/namespaces/wh-warn-deny/configmaps', { metadata: { name: 'c2' } });
        assert.equal(denied.status, 400);
        assert.equal(denied.headers.get('warning'), '299 - "first", 299 - "denying"');
        const deleted = await h.http('DELETE', '/api/v1/namespaces/wh-warn-deny/configmaps/c1');
        assert.equal(deleted.status, 200);
        assert.equal(deleted.headers.get('warning'), '299 - "first", 299 - "deleting"');
      });
    });
  });

  test('a webhook that refuses connections: 500 InternalError under Fail, created under Ignore', async () => {
    await namespace('wh-down');
    const port = await unusedPort();
    const down = (policy: string): Record<string, unknown> =>
      hook('down.example.com', '/x', 'wh-down', {
        failurePolicy: policy,
        clientConfig: { url: `https://127.0.0.1:${port}/x`, caBundle: ca.caBundle },
        rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }],
      });
    const cause = `failed calling webhook "down.example.com": failed to call webhook: Post "https://127.0.0.1:${port}/x?timeout=5s": dial tcp 127.0.0.1:${port}: connect: connection refused`;
    await withConfiguration('validating', 'down', [down('Fail')], async () => {
      const failed = await h.http('POST', '/api/v1/namespaces/wh-down/configmaps', { metadata: { name: 'c1' } });
      assert.equal(failed.status, 500);
      assert.deepEqual(failed.json, {
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message: `Internal error occurred: ${cause}`,
        reason: 'InternalError',
        details: { causes: [{ message: cause }] },
        code: 500,
      });
      if (!skipWithoutKubectl) {
        const out = await h.kubectl(['create', 'configmap', 'c3', '-n', 'wh-down']);
        assert.equal(out.stderr.trim(), `error: failed to create configmap: Internal error occurred: ${cause}`);
      }
    });
    await withConfiguration('validating', 'down', [down('Ignore')], async () => {
      assert.equal((await h.http('POST', '/api/v1/namespaces/wh-down/configmaps', { metadata: { name: 'c3' } })).status, 201);
    });
  });

  test('a webhook slower than timeoutSeconds 1: context deadline exceeded under Fail, created under Ignore', async () => {
    await namespace('wh-slow');
    server.handle('/slow', () => ({ allowed: true, delayMs: 3000 }));
    const slow = (policy: string): Record<string, unknown> =>
      hook('slow.example.com', '/slow', 'wh-slow', {
        failurePolicy: policy,
        timeoutSeconds: 1,
        rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }],
      });
    await withConfiguration('mutating', 'slow', [slow('Fail')], async () => {
      const failed = await h.http('POST', '/api/v1/namespaces/wh-slow/configmaps', { metadata: { name: 'c1' } });
      assert.equal(failed.status, 500);
      assert.equal(failed.json.reason, 'InternalError');
      assert.equal(
        failed.json.message,
        `Internal error occurred: failed calling webhook "slow.example.com": failed to call webhook: Post "${server.url}/slow?timeout=1s": context deadline exceeded`,
      );
      assert.equal(failed.json.details.causes[0].message, failed.json.message.replace('Internal error occurred: ', ''));
    });
    await withConfiguration('mutating', 'slow', [slow('Ignore')], async () => {
      assert.equal((await h.http('POST', '/api/v1/namespaces/wh-slow/configmaps', { metadata: { name: 'c1' } })).status, 201);
    });
  });

  test('answers that are not usable: wrong uid, no apiVersion/kind, non-200, not JSON, a validating patch, another patchType', async () => {
    await namespace('wh-bad');
    const cases: { answer: Parameters<WebhookServer['handle']>[1]; kind: Kind; reason: (uid: string) => string }[] = [
      { kind: 'validating', answer: () => ({ allowed: true, uid: 'other' }), reason: (uid) => `received invalid webhook response: expected response.uid="${uid}", got "other"` },
      {
        kind: 'validating',
        answer: () => ({ allowed: true, envelope: { apiVersion: undefined, kind: undefined } }),
        reason: () => 'received invalid webhook response: expected webhook response of admission.k8s.io/v1, Kind=AdmissionReview, got /, Kind=',
      },
      {
        kind: 'validating',
        answer: () => ({ raw: { status: 500, contentType: 'text/plain', body: 'boom' } }),
        reason: () => 'failed to call webhook: an error on the server ("boom") has prevented the request from succeeding',
      },
      {
        kind: 'validating',
        answer: () => ({ raw: { status: 200, body: 'not json' } }),
        reason: () => "failed to call webhook: couldn't get version/kind; json parse error: invalid character 'o' in literal null (expecting 'u')",
      },
      {
        kind: 'validating',
        answer: () => ({ allowed: true, patch: [{ op: 'add', path: '/metadata/labels', value: {} }] }),
        reason: () => 'received invalid webhook response: validating webhook may not return response.patch',
      },
      {
        kind: 'mutating',
        answer: () => ({ allowed: true, patch: [{ op: 'add', path: '/metadata/labels', value: {} }], patchType: 'MergePatch' }),
        reason: () => 'unsupported patch type "MergePatch"',
      },
    ];
    const rules = { rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }] };
    let i = 0;
    for (const c of cases) {
      const path = `/bad-${i++}`;
      server.handle(path, c.answer);
      await withConfiguration(c.kind, 'bad', [hook('bad.example.com', path, 'wh-bad', rules)], async () => {
        const failed = await h.http('POST', '/api/v1/namespaces/wh-bad/configmaps', { metadata: { name: 'c1' } });
        const uid = server.reviews(path)[0]?.review.request.uid;
        assert.equal(failed.status, 500, path);
        assert.equal(failed.json.message, `Internal error occurred: failed calling webhook "bad.example.com": ${c.reason(uid)}`);
      });
    }
  });
});

describe('mutation', () => {
  test('a JSONPatch is applied, unknown fields dropped, defaults applied again, and the result validated', async () => {
    await namespace('wh-mut');
    let patch: unknown[] = [];
    server.handle('/mut', () => ({ allowed: true, patch }));
    const rules = { rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'] }] };
    await withConfiguration('mutating', 'mut', [hook('mut.example.com', '/mut', 'wh-mut', rules)], async () => {
      patch = [
        { op: 'add', path: '/metadata/labels', value: { added: 'yes' } },
        { op: 'add', path: '/spec/containers/-', value: { name: 'sidecar', image: 'busybox:1.36' } },
        { op: 'add', path: '/spec/unknownField', value: 1 },
      ];
      const created = await createPod('wh-mut', 'p1');
      assert.equal(created.status, 201, created.text);
      assert.equal(created.json.metadata.labels.added, 'yes');
      const sidecar = created.json.spec.containers[1];
      assert.equal(sidecar.name, 'sidecar');
      assert.equal(sidecar.imagePullPolicy, 'IfNotPresent', 'the added container was defaulted');
      assert.equal(created.json.spec.unknownField, undefined);

      patch = [{ op: 'add', path: '/metadata/labels', value: { 'bad label': 'x' } }];
      const invalid = await createPod('wh-mut', 'p2');
      assert.equal(invalid.status, 422);
      assert.match(invalid.json.message, /^Pod "p2" is invalid: metadata\.labels: Invalid value: "bad label": /);

      patch = [{ op: 'add', path: '/metadata/annotations/x', value: 'y' }];
      const unapplicable = await createPod('wh-mut', 'p3');
      assert.equal(unapplicable.status, 500);
      assert.equal(unapplicable.json.message, 'Internal error occurred: add operation does not apply: doc is missing path: "/metadata/annotations/x": missing value');
    });
  });

  test('a patch on DELETE is refused: there is no object to modify', async () => {
    await namespace('wh-mdel');
    await h.http('POST', '/api/v1/namespaces/wh-mdel/configmaps', { metadata: { name: 'c1' } });
    server.handle('/mdel', () => ({ allowed: true, patch: [{ op: 'add', path: '/metadata/labels', value: {} }] }));
    const rules = { rules: [{ operations: ['DELETE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }] };
    await withConfiguration('mutating', 'mdel', [hook('mdel.example.com', '/mdel', 'wh-mdel', rules)], async () => {
      const refused = await h.http('DELETE', '/api/v1/namespaces/wh-mdel/configmaps/c1');
      assert.equal(refused.status, 500);
      assert.equal(refused.json.message, 'Internal error occurred: admission webhook "mdel.example.com" attempted to modify the object, which is not supported for this operation');
    });
  });

  test('reinvocationPolicy IfNeeded: an earlier webhook is called again after a later one changed the object', async () => {
    await namespace('wh-reinv');
    const setLabel = (key: string) => (review: { request: { object: { metadata: { labels?: Record<string, string> } } } }) =>
      review.request.object.metadata.labels?.[key] ? { allowed: true } : { allowed: true, patch: [{ op: 'add', path: `/metadata/labels/${key}`, value: 'yes' }] };
    server.handle('/reinv-a', setLabel('a'));
    server.handle('/reinv-b', setLabel('b'));
    server.handle('/reinv-c', () => ({ allowed: true }));
    const pods = (extra: Record<string, unknown>): Record<string, unknown> => ({
      rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'] }],
      ...extra,
    });
    const labelled = { metadata: { labels: { seed: '1' } } };
    await withConfiguration('mutating', 'reinv-1', [hook('a.example.com', '/reinv-a', 'wh-reinv', pods({ reinvocationPolicy: 'IfNeeded' })), hook('c.example.com', '/reinv-c', 'wh-reinv', pods({}))], async () => {
      await withConfiguration('mutating', 'reinv-2', [hook('b.example.com', '/reinv-b', 'wh-reinv', pods({}))], async () => {
        const created = await createPod('wh-reinv', 'p1', labelled);
        assert.equal(created.status, 201);
        assert.deepEqual(created.json.metadata.labels, { seed: '1', a: 'yes', b: 'yes' });
        const a = server.reviews('/reinv-a');
        assert.equal(a.length, 2, 'called again after b changed the object');
        assert.deepEqual(a[1]?.review.request.object.metadata.labels, { seed: '1', a: 'yes', b: 'yes' });
        assert.equal(server.reviews('/reinv-c').length, 1, 'Never: not called again');
        assert.deepEqual(server.reviews('/reinv-b')[0]?.review.request.object.metadata.labels, { seed: '1', a: 'yes' }, 'configurations in name order');
      });
    });
  });
});

describe('admission order', () => {
  const podCreates = { rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'] }] };

  test('an object failing validation never reaches a validating webhook, also when a mutating webhook\'s patch made it invalid', async () => {
    await namespace('wh-order-valid');
    let patch: unknown[] = [];
    server.handle('/order-mutate', () => ({ allowed: true, ...(patch.length ? { patch } : {}) }));
    server.handle('/order-validate', () => ({ allowed: true }));
    await withConfiguration('mutating', 'order-valid-m', [hook('m.example.com', '/order-mutate', 'wh-order-valid', podCreates)], async () => {
      await withConfiguration('validating', 'order-valid-v', [hook('v.example.com', '/order-validate', 'wh-order-valid', podCreates)], async () => {
        const invalid = await createPod('wh-order-valid', 'p1', { metadata: { labels: { 'bad label': 'x' } } });
        assert.equal(invalid.status, 422, invalid.text);
        assert.match(invalid.json.message, /^Pod "p1" is invalid: metadata\.labels: Invalid value: "bad label": /);
        assert.equal(server.reviews('/order-mutate').length, 1, 'mutating webhooks run before validation');
        assert.equal(server.reviews('/order-validate').length, 0);

        patch = [{ op: 'add', path: '/metadata/labels', value: { 'bad label': 'x' } }];
        const mutatedInvalid = await createPod('wh-order-valid', 'p2');
        assert.equal(mutatedInvalid.status, 422, mutatedInvalid.text);
        assert.match(mutatedInvalid.json.message, /^Pod "p2" is invalid: metadata\.labels: Invalid value: "bad label": /);
        assert.equal(server.reviews('/order-validate').length, 0, 'the patched object was validated first');

        // The control: a valid object does reach it, as the mutating webhook left it.
        patch = [{ op: 'add', path: '/metadata/labels', value: { mutated: 'yes' } }];
        assert.equal((await createPod('wh-order-valid', 'p3')).status, 201);
        const [validated] = server.reviews('/order-validate');
        assert.deepEqual(validated?.review.request.object.metadata.labels, { mutated: 'yes' });
      });
    });
  });

  test('mutating configurations run in name order whatever their creation order; their webhooks in list order', async () => {
    await namespace('wh-order-name');
    const calls: string[] = [];
    for (const name of ['b1', 'b2', 'a1', 'a2']) {
      server.handle(`/order-${name}`, () => {
        calls.push(name);
        return { allowed: true };
      });
    }
    const webhooks = (config: string): Record<string, unknown>[] =>
      // Listed against their own name order, so list order and name order differ.
      [`${config}2`, `${config}1`].map((name) => hook(`${name}.example.com`, `/order-${name}`, 'wh-order-name', podCreates));
    await withConfiguration('mutating', 'order-b', webhooks('b'), async () => {
      await withConfiguration('mutating', 'order-a', webhooks('a'), async () => {
        assert.equal((await createPod('wh-order-name', 'p1')).status, 201);
        assert.deepEqual(calls, ['a2', 'a1', 'b2', 'b1']);
      });
    });
  });
});

describe('selectors', () => {
  test('objectSelector: matched against the new and the old object (UPDATE and DELETE)', async () => {
    await namespace('wh-obj');
    await createPod('wh-obj', 'watched', { metadata: { labels: { watched: 'yes' } } });
    await createPod('wh-obj', 'other');
    await withConfiguration('validating', 'obj', [hook('obj.example.com', '/obj', 'wh-obj', { objectSelector: { matchLabels: { watched: 'yes' } } })], async () => {
      const names = (): string[] => server.reviews('/obj').map((r) => `${r.review.request.operation} ${r.review.request.name}`);
      await h.http('PATCH', '/api/v1/namespaces/wh-obj/pods/other', { metadata: { labels: { x: '1' } } }, json);
      assert.deepEqual(names(), []);
      await h.http('PATCH', '/api/v1/namespaces/wh-obj/pods/other', { metadata: { labels: { watched: 'yes' } } }, json);
      assert.deepEqual(names(), ['UPDATE other'], 'the new object matches');
      await h.http('PATCH', '/api/v1/namespaces/wh-obj/pods/watched', { metadata: { labels: { watched: null } } }, json);
      assert.deepEqual(names(), ['UPDATE other', 'UPDATE watched'], 'the old object matches');
      await h.http('DELETE', '/api/v1/namespaces/wh-obj/pods/other');
      assert.deepEqual(names(), ['UPDATE other', 'UPDATE watched', 'DELETE other', 'DELETE other']);
    });
  });

  test('namespaceSelector: the namespace\'s labels; a namespace being created by its own; cluster-scoped objects always', async () => {
    await namespace('wh-ns-in', { env: 'test' });
    await namespace('wh-ns-out');
    const nsRule = { rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps', 'namespaces', 'nodes'] }] };
    await withConfiguration('validating', 'nsel', [hook('nsel.example.com', '/nsel', '', { ...nsRule, namespaceSelector: { matchLabels: { env: 'test' } } })], async () => {
      await h.http('POST', '/api/v1/namespaces/wh-ns-in/configmaps', { metadata: { name: 'c' } });
      await h.http('POST', '/api/v1/namespaces/wh-ns-out/configmaps', { metadata: { name: 'c' } });
      await namespace('wh-ns-new', { env: 'test' });
      await namespace('wh-ns-new2');
      await h.http('POST', '/api/v1/nodes', { metadata: { name: 'wh-node' } });
      const seen = server.reviews('/nsel')
        .map((r) => `${r.review.request.resource.resource} ${r.review.request.namespace ?? ''}/${r.review.request.name}`)
        .filter((s) => !s.endsWith('/kube-root-ca.crt'));
      assert.deepEqual(seen, ['configmaps wh-ns-in/c', 'namespaces wh-ns-new/wh-ns-new', 'nodes /wh-node']);
    });
  });
});

describe('AdmissionReview versions', () => {
  test('a webhook listing v1beta1 first gets a v1beta1 review; its answer needs no uid, kind or patchType', async () => {
    await namespace('wh-beta');
    const patch = Buffer.from(JSON.stringify([{ op: 'add', path: '/metadata/labels', value: { beta: 'yes' } }])).toString('base64');
    server.handle('/beta', () => ({ raw: { status: 200, body: JSON.stringify({ response: { allowed: true, patch } }) } }));
    const rules = { rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }] };
    await withConfiguration('mutating', 'beta', [hook('beta.example.com', '/beta', 'wh-beta', { ...rules, admissionReviewVersions: ['v1beta1', 'v1'] })], async () => {
      const created = await h.http('POST', '/api/v1/namespaces/wh-beta/configmaps', { metadata: { name: 'c1' } });
      assert.equal(created.status, 201, created.text);
      assert.equal(created.json.metadata.labels.beta, 'yes');
      const review = server.reviews('/beta')[0]?.review;
      assert.equal(review.apiVersion, 'admission.k8s.io/v1beta1');
      assert.equal(review.request.operation, 'CREATE');
    });
  });
});

describe('matchPolicy', () => {
  test('Equivalent calls a webhook registered for another version of the resource, with the object in that version; Exact does not', async () => {
    await namespace('wh-equiv');
    const schema = { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { size: { type: 'integer' } } } } } };
    const crd = gadgetCrd([
      { name: 'v1', served: true, storage: true, schema },
      { name: 'v2', served: true, storage: false, schema },
    ]);
    assert.equal((await h.http('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd)).status, 201);
    await eventually(async () => ((await h.http('GET', '/apis/example.com/v2/namespaces/wh-equiv/gadgets')).status === 200 ? true : undefined));
    server.handle('/equiv', () => ({ allowed: true, patch: [{ op: 'add', path: '/spec/size', value: 3 }] }));
    const v1Rule = (matchPolicy: string): Record<string, unknown> =>
      hook('equiv.example.com', '/equiv', 'wh-equiv', { matchPolicy, rules: [{ operations: ['CREATE'], apiGroups: ['example.com'], apiVersions: ['v1'], resources: ['gadgets'] }] });
    const gadget = (name: string): Record<string, unknown> => ({ apiVersion: 'example.com/v2', kind: 'Gadget', metadata: { name }, spec: {} });
    await withConfiguration('mutating', 'equiv', [v1Rule('Exact')], async () => {
      assert.equal((await h.http('POST', '/apis/example.com/v2/namespaces/wh-equiv/gadgets', gadget('g0'))).status, 201);
      assert.equal(server.reviews('/equiv').length, 0);
    });
    await withConfiguration('mutating', 'equiv', [v1Rule('Equivalent')], async () => {
      const created = await h.http('POST', '/apis/example.com/v2/namespaces/wh-equiv/gadgets', gadget('g1'));
      assert.equal(created.status, 201, created.text);
      assert.equal(created.json.apiVersion, 'example.com/v2');
      assert.equal(created.json.spec.size, 3);
      const r = server.reviews('/equiv')[0]?.review.request;
      assert.deepEqual(r.kind, { group: 'example.com', version: 'v1', kind: 'Gadget' });
      assert.deepEqual(r.resource, { group: 'example.com', version: 'v1', resource: 'gadgets' });
      assert.deepEqual(r.requestKind, { group: 'example.com', version: 'v2', kind: 'Gadget' });
      assert.deepEqual(r.requestResource, { group: 'example.com', version: 'v2', resource: 'gadgets' });
      assert.equal(r.object.apiVersion, 'example.com/v1');
    });
  });
});

describe('dryRun and sideEffects', () => {
  test('webhooks with sideEffects None or NoneOnDryRun are called with dryRun true; nothing is stored', async () => {
    await namespace('wh-dry');
    const rules = { rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }] };
    await withConfiguration('validating', 'dry', [hook('none.example.com', '/dry-none', 'wh-dry', rules), hook('noneondryrun.example.com', '/dry-nodr', 'wh-dry', { ...rules, sideEffects: 'NoneOnDryRun' })], async () => {
      assert.equal((await h.http('POST', '/api/v1/namespaces/wh-dry/configmaps?dryRun=All', { metadata: { name: 'c' } })).status, 201);
      assert.equal(server.reviews('/dry-none')[0]?.review.request.dryRun, true);
      assert.equal(server.reviews('/dry-nodr')[0]?.review.request.dryRun, true);
      assert.equal((await h.http('GET', '/api/v1/namespaces/wh-dry/configmaps/c')).status, 404);
    });
  });
});

describe('clientConfig', () => {
  test('a Service is resolved through webhookServices; the certificate must be valid for <name>.<namespace>.svc', async () => {
    await namespace('webhooks');
    await namespace('wh-svc');
    const viaService = hook('svc.example.com', '', 'wh-svc', {
      clientConfig: { service: { namespace: 'webhooks', name: 'hook', path: '/svc' }, caBundle: ca.caBundle },
      rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }],
    });
    await withConfiguration('validating', 'svc', [viaService], async () => {
      const missing = await h.http('POST', '/api/v1/namespaces/wh-svc/configmaps', { metadata: { name: 'c1' } });
      assert.equal(missing.status, 500);
      assert.equal(
        missing.json.message,
        'Internal error occurred: failed calling webhook "svc.example.com": failed to call webhook: Post "https://hook.webhooks.svc:443/svc?timeout=5s": service "hook" not found',
      );
      const service = { metadata: { name: 'hook' }, spec: { ports: [{ port: 443, targetPort: 9443 }], selector: { app: 'hook' } } };
      assert.equal((await h.http('POST', '/api/v1/namespaces/webhooks/services', service)).status, 201);
      assert.equal((await h.http('POST', '/api/v1/namespaces/wh-svc/configmaps', { metadata: { name: 'c1' } })).status, 201);
      const received = server.reviews('/svc')[0];
      assert.equal(received?.headers.host, 'hook.webhooks.svc:443');
    });
  });

  test('a caBundle that did not sign the server certificate: x509: certificate signed by unknown authority', async () => {
    await namespace('wh-ca');
    const rules = { rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }] };
    const strangers = await createCertificateAuthority('some-other-ca');
    const namesake = await createCertificateAuthority('webhook-test-ca');
    const prefix = `Internal error occurred: failed calling webhook "ca.example.com": failed to call webhook: Post "${server.url}/ca?timeout=5s": tls: failed to verify certificate: `;
    await withConfiguration('validating', 'ca', [hook('ca.example.com', '/ca', 'wh-ca', { ...rules, clientConfig: { url: `${server.url}/ca`, caBundle: strangers.caBundle } })], async () => {
      const failed = await h.http('POST', '/api/v1/namespaces/wh-ca/configmaps', { metadata: { name: 'c1' } });
      assert.equal(failed.status, 500);
      assert.equal(failed.json.message, `${prefix}x509: certificate signed by unknown authority`);
    });
    await withConfiguration('validating', 'ca', [hook('ca.example.com', '/ca', 'wh-ca', { ...rules, clientConfig: { url: `${server.url}/ca`, caBundle: namesake.caBundle } })], async () => {
      const failed = await h.http('POST', '/api/v1/namespaces/wh-ca/configmaps', { metadata: { name: 'c1' } });
      assert.equal(
        failed.json.message,
        `${prefix}x509: certificate signed by unknown authority (possibly because of "x509: ECDSA verification failure" while trying to verify candidate authority certificate "webhook-test-ca")`,
      );
    });
    await withConfiguration('validating', 'ca', [hook('ca.example.com', '/ca', 'wh-ca', { ...rules, clientConfig: { url: `https://localhost:${server.port}/ca`, caBundle: ca.caBundle } })], async () => {
      const failed = await h.http('POST', '/api/v1/namespaces/wh-ca/configmaps', { metadata: { name: 'c1' } });
      assert.match(failed.json.message, /tls: failed to verify certificate: x509: certificate is valid for hook\.webhooks\.svc, not localhost$/);
    });
    assert.equal(server.reviews('/ca').length, 0, 'nothing was sent to an unverified server');
  });

  test('connections to a webhook are verified once and kept alive for the calls after', async () => {
    await namespace('wh-keepalive');
    const rules = { rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }] };
    await withConfiguration('validating', 'keepalive', [hook('keepalive.example.com', '/keepalive', 'wh-keepalive', rules)], async () => {
      const before = server.connections;
      for (let i = 0; i < 5; i++) assert.equal((await h.http('POST', '/api/v1/namespaces/wh-keepalive/configmaps', { metadata: { name: `c${i}` } })).status, 201);
      assert.equal(server.reviews('/keepalive').length, 5);
      assert.ok(server.connections - before <= 1, `5 sequential calls opened ${server.connections - before} connections`);
    });
  });
});

describe('the sandbox\'s own writers', () => {
  test('in-process clients (controllers) go through the webhooks for create, status update and delete', async () => {
    await namespace('wh-ctl');
    const client = h.sandbox.client({ username: 'system:serviceaccount:kube-system:replicaset-controller' });
    const pods = { group: '', version: 'v1', resource: 'pods' };
    await withConfiguration('validating', 'ctl', [hook('ctl.example.com', '/ctl', 'wh-ctl', { rules: [{ operations: ['*'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods', 'pods/status'] }] })], async () => {
      const pod = await client.create(pods, podManifest('p1') as never, { namespace: 'wh-ctl' });
      await client.update(pods, { ...pod, status: { ...(pod.status as object), phase: 'Running' } }, { namespace: 'wh-ctl', subresource: 'status' });
      await client.delete(pods, 'p1', { namespace: 'wh-ctl' });
      const seen = server.reviews('/ctl').map((r) => `${r.review.request.operation}${r.review.request.subResource ? `/${r.review.request.subResource}` : ''}`);
      assert.deepEqual(seen, ['CREATE', 'UPDATE/status', 'DELETE', 'DELETE']);
      assert.deepEqual(server.reviews('/ctl')[0]?.review.request.userInfo, {
        username: 'system:serviceaccount:kube-system:replicaset-controller',
        groups: ['system:serviceaccounts', 'system:serviceaccounts:kube-system', 'system:authenticated'],
      });
    });
  });

  test('webhook configurations themselves are never sent to webhooks', async () => {
    const everything = { rules: [{ operations: ['*'], apiGroups: ['*'], apiVersions: ['*'], resources: ['*'] }], namespaceSelector: {} };
    await withConfiguration('validating', 'all', [hook('all.example.com', '/all', '', everything)], async () => {
      await withConfiguration('mutating', 'other', [hook('other.example.com', '/other', 'nowhere')], async () => undefined);
      assert.deepEqual(server.reviews('/all').filter((r) => r.review.request.kind.group === 'admissionregistration.k8s.io'), []);
    });
  });
});
