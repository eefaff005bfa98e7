// The operator's /readyz: not ready until its caches have synced and its webhook server listens, so a
// Deployment's rollout waits for a replica that can actually answer admission requests.

import assert from 'node:assert/strict';
import { freePort } from '../support/wait.ts';
import { after, before, describe, test } from 'node:test';
import { podTransitionRuleCRD } from '../../src/api/podtransitionrule.ts';
import { KubeClient, type KubeObject } from '../../src/kube/client.ts';
import { silentLogger } from '../../src/kube/log.ts';
import { CUSTOM_RESOURCE_DEFINITIONS, NAMESPACES } from '../../src/kube/resources.ts';
import { startOperator, type RunningOperator } from '../../src/operator/operator.ts';
import { startSandbox, type Sandbox } from '@podops/sandbox';

const probe = async (url: string): Promise<{ status: number; body: string }> => {
  const res = await fetch(url);
  return { status: res.status, body: await res.text() };
};

describe('operator probes', () => {
  let sandbox: Sandbox;
  let client: KubeClient;
  let operator: RunningOperator;
  const abort = new AbortController();
  let base: string;

  before(async () => {
    sandbox = await startSandbox();
    client = KubeClient.fromKubeconfigText(sandbox.kubeconfig);
    await client.create(NAMESPACES, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'podops-system' } });
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    operator = startOperator(
      {
        client,
        namespace: 'podops-system',
        featureGates: { GraceDeleteWebhook: false, GracefulEviction: true },
        leaderElect: false,
        webhook: { host: '127.0.0.1', port: 0, hosts: ['127.0.0.1'], secretName: 'podops-webhook-certs' },
        metricsAddress: '0',
        probeAddress: `127.0.0.1:${port}`,
        logger: silentLogger(),
      },
      abort.signal,
    );
  });
  after(async () => {
    abort.abort();
    await operator.done;
    client.close();
    await sandbox.stop();
  });

  test('not ready while the PodTransitionRule cache cannot sync; ready once it can, with every check named, RolloutLifecycle CRD or not', async () => {
    let answer = { status: 0, body: '' };
    for (let i = 0; i < 100 && answer.status !== 500; i++) {
      answer = await probe(`${base}/readyz`).catch(() => answer);
      if (answer.status !== 500) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.equal(answer.status, 500);
    assert.match(answer.body, /\[-\]informers-synced failed/);
    assert.equal((await probe(`${base}/healthz`)).status, 200, 'alive all along');

    // The CRD the protocol needs appears (as `kubectl apply -f deploy/` would create it). The RolloutLifecycle
    // CRD does not (a `helm upgrade` adds no CRD): rollout hooks wait for it, readiness does not.
    await client.create(CUSTOM_RESOURCE_DEFINITIONS, podTransitionRuleCRD() as KubeObject);
    await operator.webhookAddress;
    for (let i = 0; i < 200 && answer.status !== 200; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      answer = await probe(`${base}/readyz?verbose`);
    }
    assert.equal(answer.status, 200);
    assert.match(answer.body, /\[\+\]informers-synced ok/);
    assert.match(answer.body, /\[\+\]webhook ok/);
    assert.equal((await probe(`${base}/readyz/webhook`)).status, 200);
  });
});
