// Rollout hooks benchmark: a 100-pod Deployment rolls out a template change, with a RolloutLifecycle of three
// hooks (0, 50%, 100%) whose Jobs finish at once, against the same rollout without hooks, in the same run (a
// sandbox in its own process with every kubelet delay at zero, the operator in this one, over HTTP). Also the
// delays podops adds, read off the sandbox's write log: from a point being reached to its hook Job being created
// (point 0: the held template change; 50%: the new ReplicaSet's available replicas; 100%: the later of the old
// ReplicaSet at 0 and the new one fully available), and from a point's Job finishing to the rollout moving on (the
// Deployment stepped or released, or the rollout's status). The sandbox's Job controller syncs a Job at once
// (kube-controller-manager batches a Job's pod events for 1 s): here the Jobs finish at once, so the figures are
// podops' own. Run on its own with `node bench/rollout.ts`, or through bench/run.ts.

import { performance } from 'node:perf_hooks';
import { podTransitionRuleCRD } from '../src/api/podtransitionrule.ts';
import { rolloutLifecycleCRD, type RolloutLifecycle } from '../src/api/rolloutlifecycle.ts';
import { OPERATOR_NAMESPACE } from '../src/cli/local-stack.ts';
import { KubeClient, type KubeObject } from '../src/kube/client.ts';
import { CUSTOM_RESOURCE_DEFINITIONS, DEPLOYMENTS, NAMESPACES, ROLLOUTLIFECYCLES } from '../src/kube/resources.ts';
import type { WriteRecord } from '@podops/sandbox';
import { startBenchOperator } from './in-process-operator.ts';
import { printTable } from './measure.ts';
import { startServerProcess } from './processes.ts';
import { until } from '../test/support/wait.ts';

const PODS = 100;
const ROLLOUTS = 10;

const template = (image: string) => ({ metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image }] } });
const jobSpec = { backoffLimit: 0, template: { spec: { restartPolicy: 'Never', containers: [{ name: 'hook', image: 'busybox:1.36', command: ['sh', '-c', 'exit 0'] }] } } };
const hook = (name: string, point: number | string) => ({ name, trigger: { progressAvailableParams: { progressPoint: point } }, jobSpec });

/** Reads until `ok` holds, every 5 ms: the rollout times are measured to when it does. */
const poll = <T>(read: () => Promise<T>, ok: (value: T) => boolean, what: string): Promise<T> => until(read, ok, what, 300_000, 5);

type Deployment = { metadata: { generation?: number; labels?: Record<string, string> }; spec: { replicas: number }; status?: Record<string, number> };
const rolledOut = (d: Deployment): boolean =>
  (d.status?.observedGeneration ?? 0) >= (d.metadata.generation ?? 0) && d.status?.updatedReplicas === PODS && d.status?.availableReplicas === PODS && d.status?.replicas === PODS;

async function deployment(client: KubeClient, namespace: string, hooked: boolean): Promise<void> {
  await client.create(NAMESPACES, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } });
  await client.create(DEPLOYMENTS, { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace }, spec: { replicas: PODS, selector: { matchLabels: { app: 'web' } }, template: template('nginx:1.0') } });
  if (hooked) {
    await client.create(ROLLOUTLIFECYCLES, {
      apiVersion: 'apps.kusionstack.io/v1alpha1',
      kind: 'RolloutLifecycle',
      metadata: { name: 'web', namespace },
      spec: { targetRef: { kind: 'Deployment', name: 'web' }, hooks: [hook('pre', 0), hook('mid', '50%'), hook('post', '100%')] },
    });
  }
  await poll(() => client.get<Deployment>(DEPLOYMENTS, namespace, 'web'), (d) => rolledOut(d) && (!hooked || d.metadata.labels?.['rolloutlifecycle.kusionstack.io/name'] === 'web'), `${namespace}/web rolled out`);
}

/** Milliseconds of each rollout, from the template change to complete (and, when hooked, its RolloutLifecycle Complete). */
async function rollouts(client: KubeClient, namespace: string, hooked: boolean): Promise<number[]> {
  const times: number[] = [];
  let previous: string | undefined;
  for (let i = 1; i <= ROLLOUTS; i++) {
    const started = performance.now();
    await client.patch(DEPLOYMENTS, namespace, 'web', 'merge', { spec: { template: template(`nginx:1.${i}`) } });
    if (hooked) {
      const rl = await poll(
        () => client.get<RolloutLifecycle>(ROLLOUTLIFECYCLES, namespace, 'web'),
        (r) => r.status?.rollout?.phase === 'Complete' && r.status.rollout.templateHash !== previous,
        `${namespace}/web's RolloutLifecycle to complete rollout ${i}`,
      );
      previous = rl.status?.rollout?.templateHash;
    }
    await poll(() => client.get<Deployment>(DEPLOYMENTS, namespace, 'web'), rolledOut, `${namespace}/web to finish rollout ${i}`);
    times.push(performance.now() - started);
  }
  return times;
}

interface Delays {
  /** Per point (0, 50, 100): from reached to its Job created. */
  toJob: Record<number, number[]>;
  toMoveOn: number[];
  /** How long each hook Job ran, from created to Complete. */
  jobRuns: number[];
}

type Status = { availableReplicas?: number; replicas?: number; conditions?: { type: string }[] };
const statusOf = (record: WriteRecord): Status => (record.object.status ?? {}) as Status;
const specOf = (record: WriteRecord): Record<string, unknown> => (record.object.spec ?? {}) as Record<string, unknown>;

/** When the last of the other ReplicaSets went to no pods (spec and status), in `records`. */
function lastOldGone(records: readonly WriteRecord[], owner: string | undefined): WriteRecord | undefined {
  const replicas = new Map<string, number>();
  let gone: WriteRecord | undefined;
  for (const r of records) {
    if (r.resource !== 'replicasets.apps' || r.name === owner) continue;
    const now = Number(specOf(r).replicas ?? 0) + (statusOf(r).replicas ?? 0);
    if (now === 0 && (replicas.get(r.name) ?? 0) > 0) gone = r;
    replicas.set(r.name, now);
  }
  return gone;
}

/** The delays podops adds at each point, from the write log of the hooked namespace. */
function delays(records: readonly WriteRecord[]): Delays {
  const result: Delays = { toJob: { 0: [], 50: [], 100: [] }, toMoveOn: [], jobRuns: [] };
  const index = new Map(records.map((r, i) => [r, i]));
  for (const job of records.filter((r) => r.resource === 'jobs.batch' && r.type === 'ADDED')) {
    const at = index.get(job) ?? 0;
    const point = Number(job.object.metadata.labels?.['rolloutlifecycle.kusionstack.io/point']);
    const before = records.slice(0, at);
    const owner = job.object.metadata.ownerReferences?.[0]?.name;
    const available = (count: number) => before.find((r) => r.resource === 'replicasets.apps' && r.name === owner && (statusOf(r).availableReplicas ?? 0) >= count);
    // The last point needs both: every new pod available, and no old pod left.
    const last = [available(PODS), lastOldGone(before, owner)];
    const reached =
      point === 0
        ? before.filter((r) => r.resource === 'deployments.apps').at(-1)
        : point < PODS
          ? available(point)
          : last.every(Boolean) ? last.reduce((a, b) => ((a?.time ?? 0) >= (b?.time ?? 0) ? a : b)) : undefined;
    if (reached) result.toJob[point === 0 ? 0 : point < PODS ? 50 : 100]?.push(job.time - reached.time);
    const done = records.find((r) => r.resource === 'jobs.batch' && r.name === job.name && statusOf(r).conditions?.some((c) => c.type === 'Complete'));
    if (!done) continue;
    result.jobRuns.push(done.time - job.time);
    const after = records.slice((index.get(done) ?? 0) + 1);
    let previous = before.filter((r) => r.resource === 'deployments.apps').at(-1);
    const next = after.find((r) => {
      if (r.resource === 'rolloutlifecycles.apps.kusionstack.io') return true;
      if (r.resource !== 'deployments.apps') return false;
      const moved = JSON.stringify([specOf(r).paused, specOf(r).strategy]) !== JSON.stringify(previous && [specOf(previous).paused, specOf(previous).strategy]);
      previous = r;
      return moved;
    });
    if (next) result.toMoveOn.push(next.time - done.time);
  }
  return result;
}


const percentile = (values: number[], p: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
};

export async function runRolloutBench(): Promise<void> {
  const server = await startServerProcess({ recordWrites: 1_000_000, simulation: { nodes: 3, kubelet: { startDelayMs: 0, gracePeriodCapMs: 0 }, jobs: { syncBatchPeriodMs: 0 } } });
  const client = KubeClient.fromKubeconfigText(server.kubeconfig);
  const stop = new AbortController();
  try {
    for (const crd of [podTransitionRuleCRD(), rolloutLifecycleCRD()]) await client.create(CUSTOM_RESOURCE_DEFINITIONS, crd as KubeObject);
    await client.create(NAMESPACES, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: OPERATOR_NAMESPACE } });
    await poll(() => client.list(ROLLOUTLIFECYCLES, { namespace: 'default' }), () => true, 'RolloutLifecycles to be served');
    const operator = await startBenchOperator(client, stop.signal);
    await deployment(client, 'plain', false);
    await deployment(client, 'hooked', true);
    const plain = await rollouts(client, 'plain', false);
    const hooked = await rollouts(client, 'hooked', true);
    const measured = delays(await server.records('hooked'));
    const median = (values: number[]) => percentile(values, 50);
    const toJob = Object.values(measured.toJob).flat();
    const spread = (values: number[]) => `p50 ${percentile(values, 50).toFixed(0)} ms, p99 ${percentile(values, 99).toFixed(0)} ms`;
    printTable(`rollout hooks: a ${PODS}-pod Deployment, ${ROLLOUTS} rollouts each, hook Jobs that finish at once`, [
      ['rollout without hooks (median)', `${median(plain).toFixed(0)} ms`],
      ['rollout with 3 hooks (median)', `${median(hooked).toFixed(0)} ms`],
      ['ratio', `${(median(hooked) / median(plain)).toFixed(2)}x (three points held, each for its Job's run)`],
      ['hook Job run, created to Complete (median)', `${median(measured.jobRuns).toFixed(0)} ms (the sandbox's Job controller and kubelet)`],
      ['rollout with hooks less its 3 Job runs', `${(median(hooked) - 3 * median(measured.jobRuns)).toFixed(0)} ms`],
      [`point reached -> Job created (${toJob.length} points)`, `${spread(toJob)} (target < 100 ms)`],
      ...Object.entries(measured.toJob).map(([point, values]): [string, string] => [`  at ${point}% (${values.length})`, spread(values)]),
      [`Job finished -> rollout moves on (${measured.toMoveOn.length})`, `${spread(measured.toMoveOn)} (target < 100 ms)`],
    ]);
    stop.abort();
    await operator.done;
  } finally {
    stop.abort();
    client.close();
    await server.stop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await runRolloutBench();
