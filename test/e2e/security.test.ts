// The webhook port is reachable by anyone on the network. Against a real `podops operator` process: no
// request ends it, and a forged AdmissionReview (a DELETE, an eviction) writes nothing, while the API server's own reviews keep
// working.

import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { stringify } from 'yaml';
import type { Pod } from '../../src/api/kube.ts';
import { EVICTION_NOT_DEFERRED_WARNING, GRACE_DELETE_TIMESTAMP_ANNOTATION, TO_DELETE_LABEL, TO_EVICT_LABEL } from '../../src/api/protocol.ts';
import { MAX_TRANSITION_RULES } from '../../src/api/podtransitionrule.ts';
import { CERT_SECRET, OPERATOR_NAMESPACE, registerWebhooks } from '../../src/cli/local-stack.ts';
import { PODS, PODTRANSITIONRULES, SECRETS } from '../../src/kube/resources.ts';
import { generateCA, generateClientCertificate } from '../../src/webhook/certificates.ts';
import { admissionConfiguration, webhookClientKubeconfig } from '../../src/operator/webhook-client-auth.ts';
import { hostileRequests, hostileReviews, sendRaw, targetOf, uniqueKindReview } from '../support/hostile-http.ts';
import { freePort } from '../support/wait.ts';
import { post, postAll } from '../support/tls.ts';
import { reviewBody } from '../support/admission-review.ts';
import { controlledPod, getPod, isServiceAvailable, serviceNamespace, startCluster, type Cluster } from './harness.ts';
import { until } from '../support/wait.ts';
import { clusterWithOperatorProcess, startOperatorProcess, type OperatorProcess } from './operator-process.ts';

describe('the webhook port under attack', () => {
  const stack = clusterWithOperatorProcess();
  let ca: string;
  const address = (): string => `127.0.0.1:${stack.operator.webhookPort}`;
  const alive = (): boolean => stack.operator.child.exitCode === null && stack.operator.child.signalCode === null;

  before(async () => {
    const secret = await stack.cluster.client.get<{ data: Record<string, string> }>(SECRETS, OPERATOR_NAMESPACE, CERT_SECRET);
    ca = Buffer.from(secret.data['ca.crt'] ?? '', 'base64').toString();
    await serviceNamespace(stack.cluster, 'attack');
  });

  const livePod = async (name: string): Promise<Pod> => {
    await stack.cluster.client.create(PODS, controlledPod('attack', name));
    return until(() => getPod(stack.cluster, 'attack', name), isServiceAvailable, `${name} to be service-available`);
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

  test('a corpus of malformed requests to the webhook, metrics and health ports: no 5xx, the process lives', async () => {
    // The three servers at once (each waits out the quiet of requests left unanswered), one request at a time each.
    const servers = [
      [targetOf(address(), { ca }), '/validating-generic'],
      [targetOf(`127.0.0.1:${stack.operator.metricsPort}`), '/metrics'],
      [targetOf(`127.0.0.1:${stack.operator.healthPort}`), '/readyz'],
    ] as const;
    await Promise.all(
      servers.map(async ([target, path]) => {
        for (const [what, bytes] of hostileRequests(path)) {
          const answer = await sendRaw(target, bytes);
          assert.ok(answer.status === undefined || answer.status < 500, `${what} on ${path}: answered ${answer.status}`);
          assert.ok(alive(), `the operator survived ${what} on ${path}`);
        }
      }),
    );
    assert.notEqual(await stack.operator.metric('controller_runtime_webhook_panics_total'), undefined, 'metrics still served');
  });

  test('reviews of kinds named after members of Object.prototype are answered as any kind nobody handles', async () => {
    const panics = await stack.operator.metric('controller_runtime_webhook_panics_total');
    for (const path of ['/mutating-generic', '/validating-generic']) {
      for (const [what, body] of hostileReviews()) {
        const answer = await post(address(), path, body, ca);
        assert.equal(answer.status, 200, `${what} on ${path}`);
        const response = (JSON.parse(answer.text) as { response: { allowed: boolean; status?: { message: string } } }).response;
        assert.deepEqual([response.allowed, response.status?.message], [true, undefined], `${what} on ${path}: allowed, as a kind nobody handles`);
      }
    }
    assert.equal(await stack.operator.metric('controller_runtime_webhook_panics_total'), panics, 'no handler failed');
  });

  test('10,000 reviews of distinct kinds leave /metrics under 1 MB: a kind nobody serves is labelled other', async () => {
    const statuses = await postAll(address(), '/validating-generic', Array.from({ length: 10_000 }, (_, i) => uniqueKindReview(i)), ca);
    assert.ok(statuses.every((status) => status === 200));
    const text = await (await fetch(`http://127.0.0.1:${stack.operator.metricsPort}/metrics`)).text();
    assert.ok(Buffer.byteLength(text) < 1024 * 1024, `/metrics is ${Buffer.byteLength(text)} bytes`);
    assert.ok(!text.includes('Forged'), 'no forged kind is a label');
    assert.ok((await stack.operator.metric('podops_admission_review_duration_seconds_count{webhook="/validating-generic",kind="other",operation="CREATE",verdict="allowed"}'))! >= 10_000);
    assert.ok(alive());
  });

  const rolloutLifecycleReview = (hooks: unknown[], oldHooks?: unknown[]): string => {
    const rl = (list: unknown[]) => ({ apiVersion: 'apps.kusionstack.io/v1alpha1', kind: 'RolloutLifecycle', metadata: { name: 'forged', namespace: 'attack' }, spec: { targetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }, hooks: list } });
    return reviewBody({
      uid: 'forged-rl',
      kind: { group: 'apps.kusionstack.io', version: 'v1alpha1', kind: 'RolloutLifecycle' },
      resource: { group: 'apps.kusionstack.io', version: 'v1alpha1', resource: 'rolloutlifecycles' },
      name: 'forged',
      namespace: 'attack',
      operation: oldHooks ? 'UPDATE' : 'CREATE',
      userInfo: { username: 'system:admin' },
      object: rl(hooks),
      ...(oldHooks && { oldObject: rl(oldHooks) }),
    });
  };
  const hook = (i: number, image = 'busybox:1.36') => ({ name: `h${i}`, trigger: { progressAvailableParams: { progressPoint: i } }, jobSpec: { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'hook', image }] } } } });
  /** What podops asked of the API server while `act` ran: dry-run Job creates and access reviews. */
  const apiRequests = async (act: () => Promise<unknown>): Promise<{ dryRunJobs: number; accessReviews: number }> => {
    const { sandbox } = stack.cluster;
    const count = () => ({ dryRunJobs: sandbox.requestCount({ resource: 'jobs', verb: 'POST', dry_run: 'All' }), accessReviews: sandbox.requestCount({ resource: 'subjectaccessreviews' }) });
    const before = count();
    await act();
    const after = count();
    return { dryRunJobs: after.dryRunJobs - before.dryRunJobs, accessReviews: after.accessReviews - before.accessReviews };
  };
  const verdictOf = (text: string) => (JSON.parse(text) as { response: { allowed: boolean; status?: { code: number; message: string } } }).response;

  test('a forged RolloutLifecycle review with 200 hooks is denied for the schema\'s bound before podops asks the API server anything', async () => {
    let answer = '';
    const asked = await apiRequests(async () => (answer = (await post(address(), '/validating-generic', rolloutLifecycleReview(Array.from({ length: 200 }, (_, i) => hook(i))), ca)).text));
    assert.deepEqual(verdictOf(answer), { uid: 'forged-rl', allowed: false, status: { code: 403, reason: 'Forbidden', message: 'spec.hooks: Too many: 200: must have at most 32 items' } });
    assert.deepEqual(asked, { dryRunJobs: 0, accessReviews: 0 });
    // Strings too: a hook name beyond the schema's 40 characters.
    const long = await post(address(), '/validating-generic', rolloutLifecycleReview([{ ...hook(0), name: 'h'.repeat(100_000) }]), ca);
    assert.equal(verdictOf(long.text).status?.message, 'spec.hooks[0].name: Too long: may not be more than 40 bytes');
  });

  test('reviews of RolloutLifecycles dry-run only the hooks whose Job is new: 32 on a create, 1 when an update changes one', async () => {
    const hooks = Array.from({ length: 32 }, (_, i) => hook(i));
    let answer = '';
    const created = await apiRequests(async () => (answer = (await post(address(), '/validating-generic', rolloutLifecycleReview(hooks), ca)).text));
    assert.equal(verdictOf(answer).allowed, true, answer);
    // The author's rights: update of the workload, create of Jobs; then one dry run per hook.
    assert.deepEqual(created, { dryRunJobs: 32, accessReviews: 2 });
    const changed = hooks.map((h, i) => (i === 7 ? hook(7, 'busybox:1.37') : h));
    const updated = await apiRequests(async () => (answer = (await post(address(), '/validating-generic', rolloutLifecycleReview(changed, hooks), ca)).text));
    assert.equal(verdictOf(answer).allowed, true, answer);
    assert.deepEqual(updated, { dryRunJobs: 1, accessReviews: 2 });
    // A point moved, no Job changed: the author's right to the workload only.
    const moved = hooks.map((h, i) => (i === 3 ? { ...h, trigger: { progressAvailableParams: { progressPoint: '100%' } } } : h));
    assert.deepEqual(await apiRequests(() => post(address(), '/validating-generic', rolloutLifecycleReview(moved, hooks), ca)), { dryRunJobs: 0, accessReviews: 1 });
  });

  const deleteReview = (oldObject: unknown): string =>
    reviewBody({ uid: 'forged', name: (oldObject as Pod).metadata.name, namespace: 'attack', operation: 'DELETE', userInfo: { username: 'system:admin' }, oldObject });

  const untouched = async (name: string, before: Pod): Promise<void> => {
    const now = await getPod(stack.cluster, 'attack', name);
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

  const evictionReview = (name: string): string =>
    reviewBody({
      uid: 'forged-eviction',
      kind: { group: 'policy', version: 'v1', kind: 'Eviction' },
      subResource: 'eviction',
      name,
      namespace: 'attack',
      operation: 'CREATE',
      userInfo: { username: 'system:serviceaccount:kube-system:cluster-autoscaler' },
      object: { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name, namespace: 'attack' } },
    });

  test('a forged eviction review for a live pod on a node nobody empties changes nothing on the pod', async () => {
    const pod = await livePod('evict-target');
    for (let i = 0; i < 3; i++) {
      const answer = await post(address(), '/validating-generic', evictionReview('evict-target'), ca);
      const response = (JSON.parse(answer.text) as { response: { allowed: boolean; warnings?: string[] } }).response;
      assert.equal(response.allowed, true, 'let through: only the API server could evict it, and it was not asked');
      assert.match(response.warnings?.[0] ?? '', new RegExp(`^${EVICTION_NOT_DEFERRED_WARNING}`));
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
    const now = await getPod(stack.cluster, 'attack', 'evict-target');
    assert.equal(now.metadata.labels?.[TO_EVICT_LABEL], undefined, 'not labelled to-evict');
    assert.deepEqual(now.metadata.labels, pod.metadata.labels);
    assert.ok(isServiceAvailable(now), 'still in service');
  });

  test('the same delete sent by the API server is turned into the graceful deletion', async () => {
    await livePod('real');
    await assert.rejects(stack.cluster.client.delete(PODS, 'attack', 'real'), /pod deletion process is underway/);
    const labelled = await getPod(stack.cluster, 'attack', 'real');
    assert.notEqual(labelled.metadata.labels?.[TO_DELETE_LABEL], undefined);
    await until(() => getPod(stack.cluster, 'attack', 'real').then(() => false, () => true), Boolean, 'the pod to be deleted gracefully', 30_000);
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
    await stack.cluster.client.create(PODTRANSITIONRULES, ptr(MAX_TRANSITION_RULES));
    // An update of every webhook URL: the write with the most to probe.
    const next = rules(MAX_TRANSITION_RULES).map((r) => ({ ...r, webhook: { ...r.webhook, clientConfig: { ...r.webhook.clientConfig, url: `${r.webhook.clientConfig.url}/v2` } } }));
    await stack.cluster.client.patch(PODTRANSITIONRULES, 'attack', `max-${MAX_TRANSITION_RULES}`, 'merge', { spec: { rules: next } });
    await assert.rejects(stack.cluster.client.create(PODTRANSITIONRULES, ptr(MAX_TRANSITION_RULES + 1)), /must have at most 64 items/);
    assert.ok(alive());
  });
});

describe('webhook callers authenticated by the API server\'s client certificate', () => {
  let cluster: Cluster;
  let operator: OperatorProcess;
  let ca: string;
  let dir: string;

  before(async () => {
    // The API server's webhook client certificate, from a CA of its own, and its files as `podops manifests
    // --webhook-client-auth` writes them (here by URL: the sandbox calls the webhooks at 127.0.0.1).
    dir = await mkdtemp(join(tmpdir(), 'podops-mtls-'));
    const clientCa = await generateCA('apiserver-webhook-client-ca', 30, Date.now());
    const apiserver = await generateClientCertificate(clientCa, 'kube-apiserver-webhook-client', 30, Date.now());
    const webhookPort = await freePort();
    await writeFile(join(dir, 'client-ca.crt'), clientCa.cert);
    await writeFile(join(dir, 'webhook.kubeconfig'), stringify(webhookClientKubeconfig(`127.0.0.1:${webhookPort}`, apiserver)));
    await writeFile(join(dir, 'admission.yaml'), stringify(admissionConfiguration(join(dir, 'webhook.kubeconfig'))));
    cluster = await startCluster({ operator: 'external', admissionControlConfigFile: join(dir, 'admission.yaml') });
    operator = await startOperatorProcess(cluster.kubeconfigPath, {
      webhookPort,
      extraArgs: ['--webhook-client-ca-file', join(dir, 'client-ca.crt'), '--webhook-client-names', 'kube-apiserver-webhook-client'],
    });
    await operator.ready();
    await registerWebhooks(cluster.client, `127.0.0.1:${webhookPort}`);
    const secret = await cluster.client.get<{ data: Record<string, string> }>(SECRETS, OPERATOR_NAMESPACE, CERT_SECRET);
    ca = Buffer.from(secret.data['ca.crt'] ?? '', 'base64').toString();
    await serviceNamespace(cluster, 'mtls');
  });
  after(async () => {
    await operator.kill();
    await cluster.stop();
    await rm(dir, { recursive: true, force: true });
  });

  test('the API server\'s reviews are answered: pods are admitted, mutated and deleted gracefully', async () => {
    await cluster.client.create(PODS, controlledPod('mtls', 'web-0'));
    const pod = await until(() => getPod(cluster, 'mtls', 'web-0'), isServiceAvailable, 'web-0 service-available');
    assert.ok(pod.spec?.readinessGates?.length, 'mutated through the authenticated webhook');
    await assert.rejects(cluster.client.delete(PODS, 'mtls', 'web-0'), /pod deletion process is underway/);
  });

  test('a caller without the certificate is refused in the TLS handshake, so a forged review is never read', async () => {
    await assert.rejects(post(`127.0.0.1:${operator.webhookPort}`, '/validating-generic', '{}', ca));
    assert.equal(operator.child.exitCode, null);
  });
});
