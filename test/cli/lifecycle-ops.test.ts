// `podops begin|finish|undo POD --id ID --type TYPE` against the sandbox with the operator running: the labels
// each command writes (the operator's webhook answers in the same write) and what it tells the user.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Pod } from '../../src/api/kube.ts';
import { CONTROL_LABEL, TRANSITION_DETAIL_ANNOTATION_PREFIX, idLabelKey } from '../../src/api/protocol.ts';
import { nowNanos } from '../../src/kube/clock.ts';
import { PODS, PODTRANSITIONRULES } from '../../src/kube/resources.ts';
import { runCli } from '../support/cli.ts';
import { controlledPod, getPod, isServiceAvailable, lifecycleLabels, serviceNamespace, startCluster, type Cluster } from '../e2e/harness.ts';
import { until } from '../support/wait.ts';

const NS = 'cli';
const label = (pod: Pod, word: Parameters<typeof idLabelKey>[0], id = 'upgrade'): string | undefined => pod.metadata.labels?.[idLabelKey(word, id)];

describe('podops begin, finish and undo', () => {
  let cluster: Cluster;
  let podops: (verb: string, pod: string, ...extra: string[]) => ReturnType<typeof runCli>;

  before(async () => {
    cluster = await startCluster();
    podops = (verb, pod, ...extra) => runCli([verb, pod, '--kubeconfig', cluster.kubeconfigPath, '-n', NS, '--id', 'upgrade', '--type', 'update', ...extra]);
    await serviceNamespace(cluster, NS);
    // Pods labelled hold=true stay in PreCheck: their rule wants a label nobody sets.
    await cluster.client.create(PODTRANSITIONRULES, {
      apiVersion: 'apps.kusionstack.io/v1alpha1',
      kind: 'PodTransitionRule',
      metadata: { name: 'gate', namespace: NS },
      spec: { selector: { matchLabels: { hold: 'true' } }, rules: [{ name: 'approved', stage: 'PreCheck', labelCheck: { requires: { matchLabels: { approved: 'yes' } } } }] },
    });
    const held = controlledPod(NS, 'held');
    held.metadata.labels = { ...(held.metadata.labels as Record<string, string>), hold: 'true' };
    await cluster.client.create(PODS, controlledPod(NS, 'web-0'));
    await cluster.client.create(PODS, held);
    for (const name of ['web-0', 'held']) await until(() => getPod(cluster, NS, name), isServiceAvailable, `${name} service-available`);
  });
  after(() => cluster.stop());

  test('begin writes operating and operation-type, finish removes operating once allowed, and the pod returns to service', async () => {
    const before = nowNanos();
    const begun = await podops('begin', 'web-0');
    assert.equal(begun.stderr, '');
    assert.equal(begun.code, 0);
    assert.equal(begun.stdout, 'pod/web-0: begin upgrade; now PreCheck (waiting for PodTransitionRules to pass stage PreCheck)\n');
    const started = await getPod(cluster, NS, 'web-0');
    const operating = BigInt(label(started, 'operating') ?? '0');
    assert.ok(operating >= before && operating <= nowNanos(), 'operating is the time of the begin, in Unix nanoseconds');
    assert.equal(label(started, 'operation-type'), 'update');

    // A second begin changes nothing and says so.
    const again = await podops('begin', 'web-0');
    assert.equal(again.code, 0);
    assert.match(again.stdout, /^pod\/web-0: upgrade unchanged; now \w+/);
    assert.equal(label(await getPod(cluster, NS, 'web-0'), 'operating'), operating.toString());

    await until(() => getPod(cluster, NS, 'web-0'), (p) => label(p, 'operate') !== undefined, 'the operation to be allowed');
    const finished = await podops('finish', 'web-0');
    assert.equal(finished.code, 0);
    assert.match(finished.stdout, /^pod\/web-0: finish upgrade; now PostCheck \(/);
    const done = await getPod(cluster, NS, 'web-0');
    assert.equal(label(done, 'operating'), undefined, 'finish removed operating');
    assert.ok(label(done, 'operated') !== undefined || isServiceAvailable(done), 'the webhook marked the lifecycle operated');
    await until(() => getPod(cluster, NS, 'web-0'), isServiceAvailable, 'web-0 back in service');
  });

  test('finish refuses until podops allows the operation; undo cancels the lifecycle in the same write', async () => {
    assert.equal((await podops('begin', 'held')).code, 0);
    const blocked = await until(
      () => getPod(cluster, NS, 'held'),
      (p) => {
        const detail = JSON.parse(p.metadata.annotations?.[`${TRANSITION_DETAIL_ANNOTATION_PREFIX}/gate`] ?? '{}') as { stage?: string; passed?: boolean };
        return detail.stage === 'PreCheck' && detail.passed === false;
      },
      'the rule to report the pod blocked in PreCheck',
    );

    const refused = await podops('finish', 'held');
    assert.equal(refused.code, 2);
    assert.equal(refused.stdout, '');
    assert.match(refused.stderr, /^podops finish: podops has not allowed the operation on pod cli\/held yet: it is in PreCheck: blocked by PodTransitionRule gate: approved: [^\n]*approved=yes; --force finishes anyway\n$/);
    assert.equal(label(await getPod(cluster, NS, 'held'), 'operating'), label(blocked, 'operating'), 'the refused finish wrote nothing');

    const undone = await podops('undo', 'held');
    assert.equal(undone.stderr, '');
    assert.equal(undone.code, 0);
    assert.equal(undone.stdout, 'pod/held: undo upgrade; now no lifecycle left\n');
    assert.deepEqual(lifecycleLabels(await getPod(cluster, NS, 'held')), [], 'every label of the lifecycle is gone');
    await until(() => getPod(cluster, NS, 'held'), isServiceAvailable, 'held back in service');

    const nothing = await podops('undo', 'held');
    assert.equal(nothing.code, 2);
    assert.equal(nothing.stderr, 'podops undo: pod cli/held has no lifecycle upgrade\n');
  });

  test('a pod not under PodOpsLifecycle: begin refuses and writes nothing, undo removes the labels of an ID left on it', async () => {
    const plain = controlledPod(NS, 'hook-job-pod');
    plain.metadata.labels = { app: 'web' };
    await cluster.client.create(PODS, plain);
    const begun = await podops('begin', 'hook-job-pod');
    assert.deepEqual(begun, {
      code: 2,
      stdout: '',
      stderr: `podops begin: pod cli/hook-job-pod is not under PodOpsLifecycle (it has no label ${CONTROL_LABEL}=true): no lifecycle would run on it\n`,
    });
    assert.deepEqual(lifecycleLabels(await getPod(cluster, NS, 'hook-job-pod')), [], 'begin wrote no label');

    // Labels an earlier version left (it began lifecycles on such pods): nothing finishes them, undo removes them.
    const stray = { [idLabelKey('operating', 'upgrade')]: nowNanos().toString(), [idLabelKey('operation-type', 'upgrade')]: 'update' };
    await cluster.client.patch(PODS, NS, 'hook-job-pod', 'merge', { metadata: { labels: stray } });
    for (const force of [[], ['--force']]) {
      const finished = await podops('finish', 'hook-job-pod', ...force);
      assert.equal(finished.code, 2, `finish ${force.join(' ')}`);
      assert.equal(finished.stderr, 'podops finish: pod cli/hook-job-pod has no lifecycle upgrade (it is not under PodOpsLifecycle): nothing to finish\n');
    }
    const undone = await podops('undo', 'hook-job-pod');
    assert.equal(undone.stderr, '');
    assert.equal(undone.code, 0);
    assert.equal(undone.stdout, `pod/hook-job-pod: removed ${Object.keys(stray).join(', ')} (no lifecycle upgrade runs on it)\n`);
    assert.deepEqual(lifecycleLabels(await getPod(cluster, NS, 'hook-job-pod')), [], 'undo removed every label of the ID');
  });

  test('finish with nothing to finish fails, forced or not, and says so without a hint', async () => {
    for (const force of [[], ['--force']]) {
      const result = await runCli(['finish', 'web-0', '--kubeconfig', cluster.kubeconfigPath, '-n', NS, '--id', 'none', '--type', 'update', ...force]);
      assert.deepEqual(result, { code: 2, stdout: '', stderr: 'podops finish: pod cli/web-0 has no lifecycle none: nothing to finish\n' });
    }
  });

  test('a missing pod or a missing flag is a usage error, not a stack trace', async () => {
    const missing = await podops('begin', 'nope');
    assert.deepEqual(missing, { code: 2, stdout: '', stderr: 'podops begin: pod cli/nope not found\n' });
    const noType = await runCli(['begin', 'web-0', '--kubeconfig', cluster.kubeconfigPath, '-n', NS, '--id', 'upgrade']);
    assert.deepEqual(noType, { code: 2, stdout: '', stderr: 'podops begin: --type is required\n' });
  });
});
