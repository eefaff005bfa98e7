// TLS mode: a generated CA in the kubeconfig that kubectl and @kubernetes/client-node trust.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { CoreV1Api } from '@kubernetes/client-node';
import { eventually, skipWithoutKubectl, startHarness, type Harness } from './harness.ts';

let h: Harness;

before(async () => {
  h = await startHarness({ tls: true });
});
after(() => h.stop());

test('serves HTTPS with a certificate the kubeconfig CA verifies', async () => {
  assert.match(h.sandbox.url, /^https:\/\/127\.0\.0\.1:\d+$/);
  assert.match(h.sandbox.kubeconfig, /certificate-authority-data: /);
  assert.doesNotMatch(h.sandbox.kubeconfig, /insecure-skip-tls-verify/);
  const core = h.kc.makeApiClient(CoreV1Api);
  const list = await core.listNamespace();
  assert.ok(list.items.some((ns) => ns.metadata?.name === 'default'));
  const caBundle = await eventually(() => core.readNamespacedConfigMap({ name: 'kube-root-ca.crt', namespace: 'default' }).catch(() => undefined));
  assert.equal(caBundle.data?.['ca.crt'], h.sandbox.caCertificate);
});

test('kubectl talks to the TLS sandbox', { skip: skipWithoutKubectl }, async () => {
  const res = await h.kubectl(['get', 'namespace', 'default', '-o', 'name']);
  assert.equal(res.stdout.trim(), 'namespace/default', res.stderr);
});
