// `podops rollout status|retry|undo` and the rollouts `podops status` lists, against the sandbox with the
// operator; and the admission of RolloutLifecycles (defaults, the refusals and their messages).

import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { after, before, describe, test } from 'node:test';
import { RL_WORKLOAD_LABEL, type RolloutLifecycle } from '../../src/api/rolloutlifecycle.ts';
import { DEPLOYMENTS, NAMESPACES, ROLLOUTLIFECYCLES } from '../../src/kube/resources.ts';
import { runCli } from '../support/cli.ts';
import { kubectlPath, skipWithoutKubectl } from '../support/kubectl.ts';
import { until } from '../support/wait.ts';
import { startCluster, type Cluster } from '../e2e/harness.ts';

const NS = 'rcli';
const template = (image: string) => ({ metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image }] } });
const jobSpec = (script: string) => ({ backoffLimit: 0, template: { spec: { restartPolicy: 'Never', containers: [{ name: 'hook', image: 'busybox:1.36', command: ['sh', '-c', script] }] } } });
/**
 * A rollout to a hook's point, its Job failing and the Job controller's 1 s batch: a few seconds on an idle
 * machine, several times that with other test files sharing its cores.
 */
const ROLLOUT_DEADLINE_MS = 60_000;
type Deployment = { metadata: { labels?: Record<string, string> }; spec: { paused?: boolean; template: { spec: { containers: { image: string }[] } } }; status?: Record<string, number> };

describe('podops rollout', () => {
  let cluster: Cluster;
  let podops: (...args: string[]) => ReturnType<typeof runCli>;
  const rl = () => cluster.client.get<RolloutLifecycle>(ROLLOUTLIFECYCLES, NS, 'web');
  const deployment = () => cluster.client.get<Deployment>(DEPLOYMENTS, NS, 'web');

  before(async () => {
    cluster = await startCluster({ startDelayMs: 100 });
    podops = (...args) => runCli([...args, '--kubeconfig', cluster.kubeconfigPath, '-n', NS]);
    await cluster.client.create(NAMESPACES, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
    await cluster.client.create(DEPLOYMENTS, { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: NS }, spec: { replicas: 2, selector: { matchLabels: { app: 'web' } }, template: template('nginx:1.27') } });
    await cluster.client.create(ROLLOUTLIFECYCLES, {
      apiVersion: 'apps.kusionstack.io/v1alpha1',
      kind: 'RolloutLifecycle',
      metadata: { name: 'web', namespace: NS },
      spec: { targetRef: { kind: 'Deployment', name: 'web' }, hooks: [{ name: 'smoke', trigger: { progressAvailableParams: { progressPoint: '50%' } }, jobSpec: jobSpec('echo smoke failed; exit 1') }] },
    });
    // Labelled by podops: only then does its webhook hold the Deployment in the write that changes its template.
    await until(deployment, (d) => d.status?.availableReplicas === 2 && d.metadata.labels?.[RL_WORKLOAD_LABEL] === 'web', 'the Deployment available and labelled', ROLLOUT_DEADLINE_MS);
  });
  after(() => cluster.stop());

  test('defaults are filled at admission', async () => {
    const hook = (await rl()).spec?.hooks?.[0];
    assert.deepEqual([hook?.trigger?.type, hook?.failurePolicy, hook?.retainPolicy], ['ProgressAvailable', 'Abort', 'Always']);
    assert.equal((await rl()).spec?.targetRef?.apiVersion, 'apps/v1');
  });

  test('a failed hook: status shows where it is held and why, podops status lists it, retry runs it again, undo rolls back', async () => {
    await cluster.client.patch(DEPLOYMENTS, NS, 'web', 'merge', { spec: { template: template('nginx:1.28') } });
    await until(rl, (r) => r.status?.rollout?.phase === 'Failed', 'the hook to fail', ROLLOUT_DEADLINE_MS);
    const status = await podops('rollout', 'status', 'deployment/web');
    // A failed rollout is a failure for scripts, as kubectl rollout status exits non-zero on one.
    assert.equal(status.code, 1, status.stderr);
    assert.match(status.stdout, /^Deployment\/web: ROLLOUT Failed, points 1\/1: hook smoke failed \(Job web-smoke-[0-9a-f]{10}\): BackoffLimitExceeded/m);
    assert.match(status.stdout, /\[x\] 50% +\(1 new available\) +hooks: smoke/);
    assert.match(status.stdout, /smoke +Failed +Job web-smoke-/);
    assert.match(status.stdout, /to go on: fix the hook and podops rollout retry deployment\/web -n rcli, or roll back: podops rollout undo deployment\/web -n rcli \(kubectl rollout undo refuses a paused Deployment\)/);
    const overview = await podops('status');
    assert.match(overview.stdout, /Rollouts under hooks:\n {2}Deployment\/web: ROLLOUT Failed/);
    assert.equal(overview.code, 1, 'podops status exits with 1 when it lists a failed rollout');
    const json = await podops('status', '-o', 'json');
    assert.equal(json.code, 1, json.stderr);
    const { pods, rollouts } = JSON.parse(json.stdout) as { pods: unknown[]; rollouts: { namespace: string; rolloutLifecycle: string; target: string; summary: string; rollout: { phase: string }; hooks: { name: string; phase: string }[] }[] };
    assert.deepEqual(pods, [], 'no controlled pods here');
    assert.deepEqual(
      rollouts.map((r) => [r.namespace, r.rolloutLifecycle, r.target, r.rollout.phase, r.hooks.map((h) => `${h.name}:${h.phase}`)]),
      [[NS, 'web', 'Deployment/web', 'Failed', ['smoke:Failed']]],
    );
    assert.match(rollouts[0]?.summary ?? '', /^Deployment\/web: ROLLOUT Failed, points 1\/1: hook smoke failed/);

    const retry = await podops('rollout', 'retry', 'deployment/web', '--hook', 'smoke');
    assert.equal(retry.code, 0, retry.stderr);
    const retried = await until(rl, (r) => r.status?.hooks?.[0]?.attempt === 2 && r.status.hooks[0].phase === 'Failed', 'the second attempt to fail too', ROLLOUT_DEADLINE_MS);
    assert.match(retried.status?.hooks?.[0]?.job ?? '', /-2$/);

    assert.equal((await deployment()).spec.paused, true, 'held');
    const undo = await podops('rollout', 'undo', 'deployment/web');
    assert.equal(undo.code, 0, undo.stderr);
    assert.match(undo.stdout, /deployment\.apps\/web rolled back to revision 1/);
    const back = await until(rl, (r) => r.status?.rollout?.type === 'ROLLBACK', 'the rollback', ROLLOUT_DEADLINE_MS);
    assert.equal(back.status?.hooks?.filter((h) => h.phase === 'Cancelled').length, 0, 'the failed hook is no running hook to cancel');
    assert.equal((await deployment()).spec.template.spec.containers[0]?.image, 'nginx:1.27');
  });

  test('kubectl get rlc: the short name, and the printer columns of the rollout', { skip: skipWithoutKubectl }, async () => {
    // The rollback of the test before fails its hook too: a state that stays.
    const r = await until(rl, (x) => x.status?.rollout?.type === 'ROLLBACK' && x.status.rollout.phase === 'Failed', 'the rollback held by its failed hook', ROLLOUT_DEADLINE_MS);
    const { stdout } = await promisify(execFile)(kubectlPath!, ['--kubeconfig', cluster.kubeconfigPath, 'get', 'rlc', '-n', NS]);
    const [header, ...rows] = stdout.trimEnd().split('\n').map((line) => line.split(/\s+/));
    assert.deepEqual(header, ['NAME', 'TARGET', 'TYPE', 'TO-REVISION', 'POINT', 'PHASE', 'AGE']);
    assert.equal(rows.length, 1, stdout);
    const rollout = r.status?.rollout;
    assert.deepEqual(rows[0]?.slice(0, 6), ['web', 'Deployment/web', 'ROLLBACK', rollout?.toRevision, rollout?.pointReached, 'Failed']);
    assert.match(rows[0]?.[6] ?? '', /^\d+s$/);
  });

  test('usage errors name the problem', async () => {
    const typo = await podops('rollout', 'stauts', 'deployment/web');
    assert.equal(typo.code, 2);
    assert.match(typo.stderr, /expected "status", "retry" or "undo", got "stauts"; did you mean "status"\?/);
    const bad = await podops('rollout', 'status', 'pod/web');
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /expected KIND\/NAME such as deployment\/web/);
    const none = await podops('rollout', 'status', 'statefulset/db');
    assert.equal(none.code, 2);
    assert.match(none.stderr, /no RolloutLifecycle in namespace rcli targets StatefulSet\/db/);
  });

  test('admission refuses a bad RolloutLifecycle with messages naming each field', async () => {
    const create = (name: string, spec: unknown) =>
      cluster.client.create(ROLLOUTLIFECYCLES, { apiVersion: 'apps.kusionstack.io/v1alpha1', kind: 'RolloutLifecycle', metadata: { name, namespace: NS }, spec }).then(
        () => 'admitted',
        (err: Error) => err.message,
      );
    const hook = (name: string, point: unknown, spec = jobSpec('exit 0')) => ({ name, trigger: { progressAvailableParams: { progressPoint: point } }, jobSpec: spec });
    assert.match(await create('dup', { targetRef: { kind: 'Deployment', name: 'other' }, hooks: [hook('a', 0), hook('a', 1)] }), /spec\.hooks\[1\]\.name: Duplicate value: "a"/);
    assert.match(await create('bad-point', { targetRef: { kind: 'Deployment', name: 'other' }, hooks: [hook('a', '150%')] }), /progressPoint: Invalid value: "150%": must be a percentage from 0% to 100%/);
    assert.match(await create('bad-name', { targetRef: { kind: 'Deployment', name: 'other' }, hooks: [hook('Smoke_Test', 0)] }), /spec\.hooks\[0\]\.name: Invalid value: "Smoke_Test"/);
    const always = { template: { spec: { restartPolicy: 'Always', containers: [{ name: 'x', image: 'x' }] } } };
    assert.match(await create('bad-restart', { targetRef: { kind: 'Deployment', name: 'other' }, hooks: [hook('a', 0, always as never)] }), /restartPolicy: Unsupported value: "Always"/);
    const negative = { backoffLimit: -1, template: { spec: { restartPolicy: 'Never', containers: [{ name: 'x', image: 'x' }] } } };
    assert.match(await create('server-says-no', { targetRef: { kind: 'Deployment', name: 'other' }, hooks: [hook('a', 0, negative as never)] }), /a Job of hook "a" is refused by the API server: .*backoffLimit/);
    assert.match(await create('second', { targetRef: { kind: 'Deployment', name: 'web' }, hooks: [] }), /RolloutLifecycle web already targets it \(at most one per workload\)/);
    const retarget = await cluster.client.patch(ROLLOUTLIFECYCLES, NS, 'web', 'merge', { spec: { targetRef: { name: 'other' } } }).then(
      () => 'admitted',
      (err: Error) => err.message,
    );
    // The sandbox does not run CEL rules, so the webhook answers (quoting "Deployment/other"); kube-apiserver's rule
    // answers first, with the same message after `Invalid value: "object"`.
    assert.match(retarget, /spec\.targetRef: Invalid value: "[^"]+": field is immutable \(it targets Deployment\/web/);
  });
});
