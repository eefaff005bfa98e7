// The webhook port is reachable by anyone on the network. Against a real `podops operator` process: no
// request ends it, and a forged AdmissionReview writes nothing, while the API server's own reviews keep
// working.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Pod } from '../../src/api/kube.ts';
import { GRACE_DELETE_TIMESTAMP_ANNOTATION, TO_DELETE_LABEL } from '../../src/api/protocol.ts';
import { MAX_TRANSITION_RULES } from '../../src/api/podtransitionrule.ts';
import { CERT_SECRET, OPERATOR_NAMESPACE, registerWebhooks } from '../../src/cli/local-stack.ts';
import { PODTRANSITIONRULES } from '../../src/controllers/transition-controller.ts';
import { PODS, SECRETS } from '../../src/kube/resources.ts';
import { hostileRequests, sendRaw, targetOf } from '../support/hostile-http.ts';
import { post } from '../support/tls.ts';
import { controlledPod, getPod, isServiceAvailable, serviceNamespace, startCluster, type Cluster } from './harness.ts';
import { until } from '../support/wait.ts';
import { startOperatorProcess, type OperatorProcess } from './operator-process.ts';

describe('the webhook port under attack', () => {
  let cluster: Cluster;
  let operator: OperatorProcess;
  let ca: string;
  const address = (): string => `127.0.0.1:${operator.webhookPort}`;
  const alive = (): boolean => operator.child.exitCode === null && operator.child.signalCode === null;

  before(async () => {
    cluster = await startCluster({ operator: 'external' });
    operator = await startOperatorProcess(cluster.kubeconfigPath);
    await operator.ready();
    await registerWebhooks(cluster.client, address());
    const secret = await cluster.client.get<{ data: Record<string, string> }>(SECRETS, OPERATOR_NAMESPACE, CERT_SECRET);
    ca = Buffer.from(secret.data['ca.crt'] ?? '', 'base64').toString();
    await serviceNamespace(cluster, 'attack');
  });
  after(async () => {
    await operator.kill();
    await cluster.stop();
  });

  const livePod = async (name: string): Promise<Pod> => {
    await cluster.client.create(PODS, controlledPod('attack', name));
    return until(() => getPod(cluster, 'attack', name), isServiceAvailable, `${name} to be service-available`);
  };

  test('the request line that used to end the process is answered 400, and the process serves on', async () => {
    const answer = await sendRaw(targetOf(address(), { ca }), 'GET http://[ HTTP/1.1\r\nHost: x\r\n\r\n');
    assert.equal(answer.status, 400);
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.ok(alive(), 'the operator is still running');
    // The API server's reviews still pass through it: a controlled pod is admitted and mutated.
    const pod = await livePod('after-bad-line');
    assert.ok(pod.spec?.readinessGates?.length, 'the mutating webhook answered');
  });

  test('a corpus of malformed requests to the webhook and metrics ports: no 5xx, the process lives', async () => {
    for (const [target, path] of [
      [targetOf(address(), { ca }), '/validating-generic'],
      [targetOf(`127.0.0.1:${operator.metricsPort}`), '/metrics'],
    ] as const) {
      for (const [what, bytes] of hostileRequests(path)) {
        const answer = await sendRaw(target, bytes);
        assert.ok(answer.status === undefined || answer.status < 500, `${what} on ${path}: answered ${answer.status}`);
        assert.ok(alive(), `the operator survived ${what} on ${path}`);
      }
    }
    assert.notEqual(await operator.metric('controller_runtime_webhook_panics_total'), undefined, 'metrics still served');
  });

  const deleteReview = (oldObject: unknown): string =>
    JSON.stringify({
      apiVersion: 'admission.k8s.io/v1',
      kind: 'AdmissionReview',
      request: {
        uid: 'forged',
        kind: { group: '', version: 'v1', kind: 'Pod' },
        resource: { group: '', version: 'v1', resource: 'pods' },
        name: (oldObject as Pod).metadata.name,
        namespace: 'attack',
        operation: 'DELETE',
        userInfo: { username: 'system:admin' },
        oldObject,
      },
    });

  const untouched = async (name: string, before: Pod): Promise<void> => {
    const now = await getPod(cluster, 'attack', name);
    assert.equal(now.metadata.labels?.[TO_DELETE_LABEL], undefined, 'not labelled to-delete');
    assert.equal(now.metadata.annotations?.[GRACE_DELETE_TIMESTAMP_ANNOTATION], undefined);
    assert.deepEqual(now.metadata.labels, before.metadata.labels);
  };

  test('a forged DELETE review naming a live pod changes nothing on the pod', async () => {
    const pod = await livePod('target');
    // What an attacker without read access knows: the name, the namespace, the labels of the workload.
    const guessed = { metadata: { name: 'target', namespace: 'attack', labels: pod.metadata.labels }, spec: pod.spec };
    const answer = await post(address(), '/validating-generic', deleteReview(guessed), ca);
    const response = (JSON.parse(answer.text) as { response: { allowed: boolean; status?: { message: string } } }).response;
    assert.equal(response.allowed, false);
    assert.match(response.status?.message ?? '', /is not the live pod: nothing done/);
    // A guessed uid changes nothing either.
    const guessedUid = { ...pod, metadata: { ...pod.metadata, uid: '6c1d1b52-0000-4000-8000-000000000001' } };
    const replay = await post(address(), '/validating-generic', deleteReview(guessedUid), ca);
    assert.match(replay.text, /is not the live pod: nothing done/);
    await new Promise((resolve) => setTimeout(resolve, 500));
    await untouched('target', pod);
  });

  test('the same delete sent by the API server is turned into the graceful deletion', async () => {
    await livePod('real');
    await assert.rejects(cluster.client.delete(PODS, 'attack', 'real'), /pod deletion process is underway/);
    const labelled = await getPod(cluster, 'attack', 'real');
    assert.notEqual(labelled.metadata.labels?.[TO_DELETE_LABEL], undefined);
    await until(() => getPod(cluster, 'attack', 'real').then(() => false, () => true), Boolean, 'the pod to be deleted gracefully', 30_000);
  });

  test('a PodTransitionRule with the most webhook rules the schema allows is admitted and stays updatable; one more is refused', async () => {
    const rules = (count: number) =>
      Array.from({ length: count }, (_, i) => ({
        name: `w${i}`,
        webhook: { clientConfig: { url: `http://127.0.0.1:${20_000 + i}/check`, poll: { url: `http://127.0.0.1:${30_000 + i}/poll` } } },
      }));
    const ptr = (count: number) => ({
      apiVersion: 'apps.kusionstack.io/v1alpha1',
      kind: 'PodTransitionRule',
      metadata: { name: `max-${count}`, namespace: 'attack' },
      spec: { selector: { matchLabels: { app: 'none' } }, rules: rules(count) },
    });
    await cluster.client.create(PODTRANSITIONRULES, ptr(MAX_TRANSITION_RULES));
    // An update of every webhook URL: the write with the most to probe.
    const next = rules(MAX_TRANSITION_RULES).map((r) => ({ ...r, webhook: { ...r.webhook, clientConfig: { ...r.webhook.clientConfig, url: `${r.webhook.clientConfig.url}/v2` } } }));
    await cluster.client.patch(PODTRANSITIONRULES, 'attack', `max-${MAX_TRANSITION_RULES}`, 'merge', { spec: { rules: next } });
    await assert.rejects(cluster.client.create(PODTRANSITIONRULES, ptr(MAX_TRANSITION_RULES + 1)), /must have at most 64 items/);
    assert.ok(alive());
  });
});
