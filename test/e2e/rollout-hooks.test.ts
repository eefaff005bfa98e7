// Rollout lifecycle hooks over HTTP, on the sandbox and on a real control plane (kube-controller-manager's
// workload and Job controllers): the operator holds a hooked workload in the write that changes its template and
// steps it point by point, running hook Jobs at each. What happened is read off the watches' history: which pods
// existed when each Job was created. Every test has a namespace of its own; all
// but the first run at once (a Deployment's point is exact only while podops reacts faster than pods start, so
// that one runs alone).

import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { after, before, describe, test } from 'node:test';
import type { Pod } from '../../src/api/kube.ts';
import { CONTROL_LABEL, POD_DELETE_LIFECYCLE_ID, idLabelKey } from '../../src/api/protocol.ts';
import type { PodTransitionRule } from '../../src/api/podtransitionrule.ts';
import {
  RL_JOB_REVISION_LABEL,
  RL_JOB_WORKLOAD_KIND_LABEL,
  RL_JOB_WORKLOAD_NAME_LABEL,
  RL_ROLLOUT_ANNOTATION,
  RL_USER_SETTINGS_ANNOTATION,
  RL_WORKLOAD_LABEL,
  type LifecycleHook,
  type RolloutLifecycle,
} from '../../src/api/rolloutlifecycle.ts';
import type { KubeObject } from '../../src/kube/client.ts';
import { DAEMONSETS, DEPLOYMENTS, JOBS, NAMESPACES, PODTRANSITIONRULES, ROLLOUTLIFECYCLES, STATEFULSETS, type ResourceType } from '../../src/kube/resources.ts';
import { runCli } from '../support/cli.ts';
import { until } from '../support/wait.ts';
import { kubectlPath, skipWithoutKubectl } from '../support/kubectl.ts';
import { backends } from '../support/backends.ts';
import { serviceNamespace, startClusterOn, type Cluster } from './harness.ts';
import { clusterWithOperatorProcess } from './operator-process.ts';

type Kind = 'Deployment' | 'StatefulSet' | 'DaemonSet';
const KINDS: readonly Kind[] = ['Deployment', 'StatefulSet', 'DaemonSet'];
const TYPES: Record<Kind, ResourceType> = { Deployment: DEPLOYMENTS, StatefulSet: STATEFULSETS, DaemonSet: DAEMONSETS };
/** Four nodes: a DaemonSet has four pods. */
const NODES = 4;

type Workload = KubeObject & { metadata: { labels?: Record<string, string>; annotations?: Record<string, string> }; spec: Record<string, unknown>; status?: Record<string, number | string> };
type Job = KubeObject & { metadata: { labels?: Record<string, string> }; spec: { suspend?: boolean; template: { spec: { containers: { env?: { name: string; value: string }[] }[] } } }; status?: { conditions?: { type: string; status: string }[] } };

const template = (image: string, labels: Record<string, string> = {}) => ({ metadata: { labels: { app: 'web', ...labels } }, spec: { containers: [{ name: 'web', image }] } });
const jobSpec = (script: string) => ({ backoffLimit: 0, template: { spec: { restartPolicy: 'Never', containers: [{ name: 'hook', image: 'busybox:1.36', command: ['sh', '-c', script] }] } } });
const hook = (name: string, point: number | string, script = `echo ${name}`, extra: Partial<LifecycleHook> = {}): LifecycleHook => ({
  name,
  trigger: { progressAvailableParams: { progressPoint: point } },
  jobSpec: jobSpec(script),
  ...extra,
});
/** Fails a ROLLOUT and passes a ROLLBACK (`export ROLLOUT=1`, then `exit 3` only if it is set: the sandbox's shell has no `[`). */
const ONLY_A_ROLLBACK_PASSES = 'echo "$K8S_ROLLOUT_TYPE from $K8S_ROLLOUT_FROM_OBJECT to $K8S_ROLLOUT_TO_OBJECT"; export $K8S_ROLLOUT_TYPE=1; exit ${ROLLOUT:+3}';

interface HookedOptions {
  /** Replicas of a Deployment or StatefulSet (a DaemonSet has one pod per node). */
  replicas?: number;
  /** More of the workload's spec. */
  spec?: Record<string, unknown>;
  /** Controlled pods (PodOpsLifecycle) behind a controlled Service, with a PodTransitionRule letting one at a time out of service. */
  controlled?: boolean;
}

for (const backend of backends) describe(`rollout lifecycle hooks on the ${backend.name}`, { skip: backend.skip }, () => {
  let cluster: Cluster;
  let namespaces = 0;
  before(async () => {
    // Containers start in 300 ms, as a fast real node would (a Deployment is stepped by pausing it: see docs/rollout-hooks.md).
    cluster = await startClusterOn(backend, { startDelayMs: 300, nodes: NODES });
  });
  after(() => cluster.stop());

  const kubectl = (...args: string[]) => promisify(execFile)(kubectlPath!, ['--kubeconfig', cluster.kubeconfigPath, ...args]);

  /** A fresh namespace with a hooked workload, available and labelled by the operator. */
  async function hooked(kind: Kind, hooks: LifecycleHook[], { replicas = NODES, spec = {}, controlled = false }: HookedOptions = {}) {
    const namespace = `rl-${++namespaces}`;
    const { client } = cluster;
    if (controlled) {
      await serviceNamespace(cluster, namespace);
      await client.create(PODTRANSITIONRULES, {
        apiVersion: 'apps.kusionstack.io/v1alpha1',
        kind: 'PodTransitionRule',
        metadata: { name: 'budget', namespace },
        spec: { selector: { matchLabels: { app: 'web' } }, rules: [{ name: 'one-at-a-time', availablePolicy: { maxUnavailableValue: 1 } }] },
      } as KubeObject);
    } else {
      await client.create(NAMESPACES, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } });
    }
    const labels: Record<string, string> = controlled ? { [CONTROL_LABEL]: 'true' } : {};
    const type = TYPES[kind];
    await client.create(type, {
      apiVersion: 'apps/v1',
      kind,
      metadata: { name: 'web', namespace },
      spec: {
        ...(kind !== 'DaemonSet' && { replicas }),
        selector: { matchLabels: { app: 'web' } },
        template: template('nginx:1.27', labels),
        ...(kind === 'StatefulSet' && { serviceName: 'web' }),
        ...spec,
      },
    });
    await client.create(ROLLOUTLIFECYCLES, {
      apiVersion: 'apps.kusionstack.io/v1alpha1',
      kind: 'RolloutLifecycle',
      metadata: { name: 'web', namespace },
      spec: { targetRef: { kind, name: 'web' }, hooks },
    });
    const pods = kind === 'DaemonSet' ? NODES : replicas;
    const get = () => client.get<Workload>(type, namespace, 'web');
    const rolledOut = (w: Workload): boolean =>
      kind === 'DaemonSet'
        ? w.status?.numberAvailable === pods && w.status?.updatedNumberScheduled === pods && w.status?.currentNumberScheduled === pods
        : w.status?.availableReplicas === pods && w.status?.updatedReplicas === pods && w.status?.replicas === pods;
    await until(get, (w) => w.metadata.labels?.[RL_WORKLOAD_LABEL] === 'web' && rolledOut(w), 'the workload labelled and available', 30_000);
    const rollout = (image: string) => client.patch<Workload>(type, namespace, 'web', 'merge', { spec: { template: template(image, labels) } });
    const rl = () => client.get<RolloutLifecycle>(ROLLOUTLIFECYCLES, namespace, 'web');
    const jobs = async () => (await client.list<Job>(JOBS, { namespace })).items;
    const phase = (p: string) => until(rl, (r) => r.status?.rollout?.phase === p, `the rollout to be ${p}`, 60_000);
    /** The Job of a hook in the rollout the RolloutLifecycle's status is at. */
    const jobOf = async (r: RolloutLifecycle, name: string): Promise<Job | undefined> => {
      const record = r.status?.hooks?.find((h) => h.name === name && h.rollout === r.status?.rollout?.id);
      return (await jobs()).find((j) => j.metadata.name === record?.job);
    };
    return { kind, namespace, type, get, rollout, rolledOut, rl, jobs, jobOf, phase };
  }

  /** The pods of the namespace running `image` when the Job was created (from the history). */
  async function podsWhenCreated(namespace: string, job: string, image: string): Promise<{ exist: number; ready: number }> {
    const records = await cluster.history.records({ namespace });
    const at = records.findIndex((r) => r.resource === 'jobs.batch' && r.type === 'ADDED' && r.namespace === namespace && r.name === job);
    assert.ok(at >= 0, `Job ${job} was created`);
    const pods = new Map<string, Pod | undefined>();
    for (const record of records.slice(0, at)) {
      if (record.resource !== 'pods' || record.namespace !== namespace) continue;
      pods.set(record.name, record.type === 'DELETED' ? undefined : (record.object as unknown as Pod));
    }
    const running = [...pods.values()].filter((p): p is Pod => p !== undefined && imageOf(p) === image && !p.metadata.deletionTimestamp);
    return { exist: running.length, ready: running.filter((p) => p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True')).length };
  }

  const imageOf = (pod: Pod): string | undefined => (pod.spec?.containers as { image: string }[] | undefined)?.[0]?.image;
  const env = (job: Job | undefined): Record<string, string> => Object.fromEntries((job?.spec.template.spec.containers[0]?.env ?? []).map((e) => [e.name, e.value]));
  const holdFields = (kind: Kind, w: Workload) => JSON.stringify(kind === 'Deployment' ? { paused: w.spec.paused, strategy: w.spec.strategy } : { updateStrategy: w.spec.updateStrategy });

  async function hooksAtEachPoint(kind: Kind): Promise<void> {
    const w = await hooked(kind, [hook('migrate', 0), hook('smoke', '50%'), hook('notify', '100%')]);
    const before = await w.get();
    await w.rollout('nginx:1.28');
    const held = await w.get();
    assert.ok(held.metadata.annotations?.[RL_USER_SETTINGS_ANNOTATION], 'held in the write that changed the template');
    const done = await w.phase('Complete');
    assert.deepEqual(done.status?.hooks?.map((h) => `${h.name}:${h.phase}`), ['migrate:Succeeded', 'smoke:Succeeded', 'notify:Succeeded']);
    const [migrate, smoke, notify] = ['migrate', 'smoke', 'notify'].map((name) => done.status?.hooks?.find((h) => h.name === name)?.job ?? '');
    // Point 0 before any new pod exists; 50% with exactly 2 of 4 new pods ready; the end with all 4.
    assert.deepEqual(await podsWhenCreated(w.namespace, migrate!, 'nginx:1.28'), { exist: 0, ready: 0 });
    const atSmoke = await podsWhenCreated(w.namespace, smoke!, 'nginx:1.28');
    assert.equal(atSmoke.ready, 2, `exactly the point: ${JSON.stringify(atSmoke)}`);
    assert.equal(atSmoke.exist, 2, 'no new pod beyond the point');
    assert.equal((await podsWhenCreated(w.namespace, notify!, 'nginx:1.28')).ready, 4);
    const smokeJob = await w.jobOf(done, 'smoke');
    const vars = env(smokeJob);
    assert.equal(vars.K8S_ROLLOUT_TYPE, 'ROLLOUT');
    assert.equal(vars.K8S_ROLLOUT_FROM_OBJECT, `${w.namespace}/${done.status?.rollout?.fromRevision}`);
    assert.equal(vars.K8S_ROLLOUT_TO_OBJECT, `${w.namespace}/${done.status?.rollout?.toRevision}`);
    const labels = smokeJob?.metadata.labels ?? {};
    assert.deepEqual([labels[RL_JOB_WORKLOAD_KIND_LABEL], labels[RL_JOB_WORKLOAD_NAME_LABEL], labels[RL_JOB_REVISION_LABEL]], [kind, 'web', done.status?.rollout?.toRevision]);
    const after = await w.get();
    assert.equal(holdFields(kind, after), holdFields(kind, before), 'the user\'s settings restored exactly');
    assert.equal(after.metadata.annotations?.[RL_USER_SETTINGS_ANNOTATION], undefined);
    assert.equal(after.metadata.annotations?.[RL_ROLLOUT_ANNOTATION], undefined);
  }

  test('Deployment: hooks at 0, 50% and the end run in order, each at its point, with the rollout\'s variables and labels; the user\'s settings come back exactly', () => hooksAtEachPoint('Deployment'));

  describe('each in a namespace of its own, at once', { concurrency: true }, () => {
    for (const kind of ['StatefulSet', 'DaemonSet'] as const) {
      test(`${kind}: hooks at 0, 50% and the end run in order, each at its point, with the rollout's variables and labels; the user's settings come back exactly`, () => hooksAtEachPoint(kind));
    }

    test('Abort holds the rollout where it failed; a retry runs the hook again and the rollout goes on', async () => {
      const w = await hooked('Deployment', [hook('smoke', '50%', 'echo failing; exit 3'), hook('notify', '100%')], { replicas: 2 });
      await w.rollout('nginx:1.28');
      const failed = await w.phase('Failed');
      assert.equal(failed.status?.conditions?.find((c) => c.type === 'Failed')?.status, 'True');
      assert.match(failed.status?.rollout?.message ?? '', /hook smoke failed/);
      await new Promise((resolve) => setTimeout(resolve, 1500));
      const held = await w.get();
      assert.equal(held.spec.paused, true, 'still held');
      // The retry runs a new Job; make it succeed this time by fixing the hook first.
      const rl = await w.rl();
      const hooks = (rl.spec?.hooks ?? []).map((h) => (h.name === 'smoke' ? { ...h, jobSpec: jobSpec('echo fixed') } : h));
      await cluster.client.patch(ROLLOUTLIFECYCLES, w.namespace, 'web', 'merge', { spec: { hooks }, metadata: { annotations: { 'rolloutlifecycle.kusionstack.io/retry': 'smoke' } } });
      const done = await w.phase('Complete');
      const smoke = done.status?.hooks?.find((h) => h.name === 'smoke');
      assert.equal(smoke?.attempt, 2);
      assert.equal(smoke?.phase, 'Succeeded');
      assert.ok((await w.jobs()).some((j) => j.metadata.name === smoke?.job));
    });

    for (const kind of KINDS) {
      // A Deployment is rolled back with podops: kubectl refuses a paused one. The others with kubectl.
      const how = kind === 'Deployment' ? 'podops rollout undo' : 'kubectl rollout undo';
      test(`${kind}: Abort holds the rollout; ${how} starts a ROLLBACK from the revision it abandons, whose hooks run`, { skip: kind !== 'Deployment' && skipWithoutKubectl }, async () => {
        const w = await hooked(kind, [hook('smoke', '50%', ONLY_A_ROLLBACK_PASSES)], { replicas: 2 });
        await w.rollout('nginx:1.28');
        const failed = await w.phase('Failed');
        const [abandoned, original] = [failed.status?.rollout?.toRevision, failed.status?.rollout?.fromRevision];
        assert.ok(abandoned && original && abandoned !== original, `two revisions: ${abandoned}, ${original}`);
        const target = `${kind.toLowerCase()}/web`;
        if (kind === 'Deployment') {
          if (kubectlPath) await assert.rejects(kubectl('rollout', 'undo', target, '-n', w.namespace), /you cannot rollback a paused deployment/);
          const undo = await runCli(['rollout', 'undo', target, '-n', w.namespace, '--kubeconfig', cluster.kubeconfigPath]);
          assert.equal(undo.code, 0, undo.stderr);
        } else {
          await kubectl('rollout', 'undo', target, '-n', w.namespace);
        }
        const back = await until(w.rl, (r) => r.status?.rollout?.type === 'ROLLBACK' && r.status.rollout.phase === 'Complete', 'the rollback to complete', 60_000);
        assert.deepEqual([back.status?.rollout?.fromRevision, back.status?.rollout?.toRevision], [abandoned, original]);
        const vars = env(await w.jobOf(back, 'smoke'));
        assert.deepEqual([vars.K8S_ROLLOUT_TYPE, vars.K8S_ROLLOUT_FROM_OBJECT, vars.K8S_ROLLOUT_TO_OBJECT], ['ROLLBACK', `${w.namespace}/${abandoned}`, `${w.namespace}/${original}`]);
        assert.equal(((await w.get()).spec.template as { spec: { containers: { image: string }[] } }).spec.containers[0]?.image, 'nginx:1.27');
        await until(w.get, w.rolledOut, 'every pod back at the first revision');
      });
    }

    test('Ignore lets the rollout go on past a failed hook', async () => {
      const w = await hooked('StatefulSet', [hook('smoke', 1, 'exit 1', { failurePolicy: 'Ignore' })], { replicas: 2 });
      await w.rollout('nginx:1.28');
      const done = await w.phase('Complete');
      assert.equal(done.status?.hooks?.[0]?.phase, 'Failed');
    });

    test('retainPolicy: Always keeps every Job, OnFailure only failed ones, Never none', async () => {
      const w = await hooked(
        'Deployment',
        [
          hook('keep', 0, 'echo ok', { retainPolicy: 'Always' }),
          hook('keep-failed', 0, 'exit 2', { retainPolicy: 'OnFailure', failurePolicy: 'Ignore' }),
          hook('drop-ok', 0, 'echo ok', { retainPolicy: 'OnFailure' }),
          hook('drop', 0, 'exit 1', { retainPolicy: 'Never', failurePolicy: 'Ignore' }),
        ],
        { replicas: 1 },
      );
      await w.rollout('nginx:1.28');
      const done = await w.phase('Complete');
      const names = (await until(w.jobs, (jobs) => jobs.length === 2, 'the finished Jobs to be pruned per retainPolicy')).map((j) => j.metadata.name).sort();
      const jobOf = (hookName: string) => done.status?.hooks?.find((h) => h.name === hookName)?.job;
      assert.deepEqual(names, [jobOf('keep'), jobOf('keep-failed')].sort());
    });

    test('a new template while a hook runs cancels it (deleted, or suspended when kept) and the new rollout runs its own hooks', async () => {
      const w = await hooked('Deployment', [hook('slow', 0, 'sleep 30', { retainPolicy: 'Always' }), hook('slow-drop', 0, 'sleep 30', { retainPolicy: 'Never' })], { replicas: 1 });
      await w.rollout('nginx:1.28');
      const first = await until(w.rl, (r) => r.status?.hooks?.filter((h) => h.phase === 'Running').length === 2, 'both hooks running');
      const [kept, dropped] = ['slow', 'slow-drop'].map((n) => first.status?.hooks?.find((h) => h.name === n)?.job);
      await w.rollout('nginx:1.29');
      const next = await until(w.rl, (r) => r.status?.rollout?.templateHash !== first.status?.rollout?.templateHash && (r.status?.hooks ?? []).some((h) => h.phase === 'Cancelled'), 'the rollover');
      assert.deepEqual(next.status?.hooks?.filter((h) => h.phase === 'Cancelled').map((h) => h.job).sort(), [kept, dropped].sort());
      const jobs = await until(w.jobs, (all) => !all.some((j) => j.metadata.name === dropped), 'the dropped Job deleted');
      assert.equal(jobs.find((j) => j.metadata.name === kept)?.spec.suspend, true, 'the kept Job is suspended');
      await until(w.rl, (r) => (r.status?.hooks ?? []).some((h) => h.phase === 'Running' && h.templateHash === next.status?.rollout?.templateHash), 'the new rollout to run its hooks');
    });

    test('kubectl rollout undo of a finished rollout starts a ROLLBACK whose hooks run, from the revision it leaves to the one it goes back to', { skip: skipWithoutKubectl }, async () => {
      const w = await hooked('Deployment', [hook('smoke', '50%')], { replicas: 2 });
      await w.rollout('nginx:1.28');
      const first = await w.phase('Complete');
      await kubectl('rollout', 'undo', 'deployment/web', '-n', w.namespace);
      const back = await until(w.rl, (r) => r.status?.rollout?.templateHash !== first.status?.rollout?.templateHash && r.status?.rollout?.phase === 'Complete', 'the rollback to complete', 60_000);
      assert.equal(back.status?.rollout?.type, 'ROLLBACK');
      const vars = env(await w.jobOf(back, 'smoke'));
      assert.deepEqual(
        [vars.K8S_ROLLOUT_TYPE, vars.K8S_ROLLOUT_FROM_OBJECT, vars.K8S_ROLLOUT_TO_OBJECT],
        ['ROLLBACK', `${w.namespace}/${first.status?.rollout?.toRevision}`, `${w.namespace}/${first.status?.rollout?.fromRevision}`],
      );
      assert.equal(((await w.get()).spec.template as { spec: { containers: { image: string }[] } }).spec.containers[0]?.image, 'nginx:1.27');
    });

    for (const kind of KINDS) {
      test(`${kind}: deleting the RolloutLifecycle mid-rollout cancels its hooks and gives the workload back`, async () => {
        const w = await hooked(kind, [hook('slow', 0, 'sleep 30', { retainPolicy: 'Never' })], { replicas: 2 });
        const before = await w.get();
        await w.rollout('nginx:1.28');
        await until(w.rl, (r) => r.status?.hooks?.[0]?.phase === 'Running', 'the hook running');
        await cluster.client.delete(ROLLOUTLIFECYCLES, w.namespace, 'web');
        const released = await until(w.get, (s) => s.metadata.labels?.[RL_WORKLOAD_LABEL] === undefined && s.metadata.annotations?.[RL_USER_SETTINGS_ANNOTATION] === undefined, 'the workload released');
        assert.equal(holdFields(kind, released), holdFields(kind, before));
        await until(w.get, (s) => w.rolledOut(s) && s.status?.observedGeneration === s.metadata.generation, 'the rollout to finish without podops', 60_000);
        await until(w.jobs, (jobs) => jobs.length === 0, 'the hook Job deleted');
      });
    }

    test('controlled pods of a hooked Deployment still go through PodOpsLifecycle and its PodTransitionRule inside the held rollout', async () => {
      const w = await hooked('Deployment', [hook('first', 1), hook('second', 2)], { replicas: 3, controlled: true, spec: { strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } } } });
      const start = await cluster.history.resourceVersion();
      await w.rollout('nginx:1.28');
      await w.phase('Complete');
      await until(w.get, w.rolledOut, 'the old pods gone');
      // Replayed from the write log: what each old pod carried before it went, whether the rule passed it in
      // PreCheck (its status), and whether the Deployment was held then.
      const seen = new Map<string, { lifecycle: boolean; rule: boolean }>();
      const passedByRule = new Set<string>();
      let held = false;
      const goneWhileHeld: string[] = [];
      for (const record of await cluster.history.records({ namespace: w.namespace, after: start })) {
        if (record.resource === 'deployments.apps') held = record.object.metadata.annotations?.[RL_USER_SETTINGS_ANNOTATION] !== undefined;
        if (record.resource === 'podtransitionrules.apps.kusionstack.io') {
          for (const detail of (record.object as unknown as PodTransitionRule).status?.details ?? []) if (detail.stage === 'PreCheck' && detail.passed) passedByRule.add(detail.name ?? '');
        }
        if (record.resource !== 'pods' || imageOf(record.object as unknown as Pod) !== 'nginx:1.27') continue;
        const marks = seen.get(record.name) ?? { lifecycle: false, rule: false };
        marks.lifecycle ||= record.object.metadata.labels?.[idLabelKey('operation-type', POD_DELETE_LIFECYCLE_ID)] !== undefined;
        marks.rule ||= passedByRule.has(record.name) && record.object.metadata.labels?.[idLabelKey('pre-checked', POD_DELETE_LIFECYCLE_ID)] !== undefined;
        seen.set(record.name, marks);
        if (record.type === 'DELETED' && held) goneWhileHeld.push(record.name);
      }
      assert.equal(seen.size, 3, 'the three old pods');
      for (const [name, marks] of seen) assert.deepEqual(marks, { lifecycle: true, rule: true }, `${name} went through a pod-delete lifecycle checked by the PodTransitionRule`);
      assert.ok(goneWhileHeld.length > 0, 'an old pod left while podops held the rollout (stepping from point 1 to point 2)');
    });
  });
});

for (const backend of backends) describe(`rollout hooks and a failing operator on the ${backend.name}`, { skip: backend.skip }, () => {
  const stack = clusterWithOperatorProcess({ startDelayMs: 300 }, backend);

  test('a Deployment without a RolloutLifecycle rolls out while the operator is down', async () => {
    const { client } = stack.cluster;
    await client.create(NAMESPACES, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'plain' } });
    await client.create(DEPLOYMENTS, { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: 'plain' }, spec: { replicas: 2, selector: { matchLabels: { app: 'web' } }, template: template('nginx:1.27') } });
    const get = () => client.get<Workload>(DEPLOYMENTS, 'plain', 'web');
    await until(get, (d) => d.status?.availableReplicas === 2, 'available');
    await stack.operator.kill();
    try {
      await client.patch(DEPLOYMENTS, 'plain', 'web', 'merge', { spec: { template: template('nginx:1.28') } });
      await until(get, (d) => d.status?.updatedReplicas === 2 && d.status?.availableReplicas === 2 && d.status?.replicas === 2, 'the rollout without podops', 30_000);
    } finally {
      await stack.relaunch();
    }
  });

  test('killed at random during a hooked rollout: no Job twice, no point skipped, the user\'s settings restored', async () => {
    const { client } = stack.cluster;
    await client.create(NAMESPACES, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'chaos' } });
    const strategy = { type: 'RollingUpdate', rollingUpdate: { maxSurge: 2, maxUnavailable: 0 } };
    await client.create(DEPLOYMENTS, { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: 'chaos' }, spec: { replicas: 4, strategy, selector: { matchLabels: { app: 'web' } }, template: template('nginx:1.27') } });
    await client.create(ROLLOUTLIFECYCLES, {
      apiVersion: 'apps.kusionstack.io/v1alpha1',
      kind: 'RolloutLifecycle',
      metadata: { name: 'web', namespace: 'chaos' },
      spec: { targetRef: { kind: 'Deployment', name: 'web' }, hooks: [hook('migrate', 0, 'sleep 0.5'), hook('smoke', '50%', 'sleep 0.5'), hook('notify', '100%', 'sleep 0.5')] },
    });
    const get = () => client.get<Workload>(DEPLOYMENTS, 'chaos', 'web');
    await until(get, (d) => d.metadata.labels?.[RL_WORKLOAD_LABEL] === 'web' && d.status?.availableReplicas === 4, 'labelled and available', 30_000);
    const before = await get();
    await client.patch(DEPLOYMENTS, 'chaos', 'web', 'merge', { spec: { template: template('nginx:1.28') } });
    const rl = () => client.get<RolloutLifecycle>(ROLLOUTLIFECYCLES, 'chaos', 'web');
    for (let kill = 0; kill < 4 && (await rl()).status?.rollout?.phase !== 'Complete'; kill++) {
      await new Promise((resolve) => setTimeout(resolve, 300 + Math.random() * 1200));
      await stack.operator.kill();
      await new Promise((resolve) => setTimeout(resolve, 100 + Math.random() * 500));
      await stack.relaunch();
    }
    const done = await until(rl, (r) => r.status?.rollout?.phase === 'Complete', 'the rollout to complete', 60_000);
    const created = (await stack.cluster.history.records({ resource: 'jobs.batch', namespace: 'chaos', type: 'ADDED' })).map((r) => r.name);
    assert.deepEqual(created, ['migrate', 'smoke', 'notify'].map((n) => done.status?.hooks?.find((h) => h.name === n)?.job), 'each hook\'s Job created once, in point order');
    const after = await get();
    assert.equal(JSON.stringify({ paused: after.spec.paused, strategy: after.spec.strategy }), JSON.stringify({ paused: before.spec.paused, strategy: before.spec.strategy }));
  });
});
