// 1,000 controlled pods through a full PodOpsLifecycle at once, with the example cooperation controller (a
// load balancer holding a protection finalizer), on the sandbox with simulated nodes. The sandbox runs in its
// own process on one core; the operator, the load balancer and the operation controller of the benchmark run
// in this process on the other, as they would in a cluster. Prints the wall time and the API writes per
// lifecycle, and its floor measured in the same run: as many pod writes through the same admission chain, sent
// by one client as fast as the sandbox takes them. Targets: 1,000 lifecycles in <= 20 s and within 2x of the
// floor; 6 writes per single-ID lifecycle with one cooperation controller (the kubelet's own status writes are
// counted apart).

import { fileURLToPath } from 'node:url';
import type { Pod } from '../src/api/kube.ts';
import { podTransitionRuleCRD } from '../src/api/podtransitionrule.ts';
import { rolloutLifecycleCRD } from '../src/api/rolloutlifecycle.ts';
import { CONTROL_LABEL, isOperationPermissionKey, parseIdLabelKey } from '../src/api/protocol.ts';
import { OPERATOR_NAMESPACE } from '../src/cli/local-stack.ts';
import { writePod } from '../src/sdk/write-pod.ts';
import { KubeClient, type KubeObject } from '../src/kube/client.ts';
import { nowNanos } from '../src/kube/clock.ts';
import { Controller, keyOf } from '../src/kube/controller.ts';
import { Informer } from '../src/kube/informer.ts';
import { CUSTOM_RESOURCE_DEFINITIONS, NAMESPACES, PODS, SERVICES } from '../src/kube/resources.ts';
import { allowOps, begin, finish, isDuringOps, type LifecycleAdapter } from '../src/sdk/operation.ts';
import { startLoadBalancerController } from '../examples/load-balancer/load-balancer-controller.ts';
import { startBenchOperator } from './in-process-operator.ts';
import { printTable } from './measure.ts';
import { startServerProcess } from './processes.ts';
import { sleep, waitFor } from '../test/support/wait.ts';

/** The waits scan every cached pod, in the process that runs the operator: not more often than this. */
const CHECK_EVERY_MS = 20;
const adapter: LifecycleAdapter = { id: 'bench', type: 'update', allowMultiType: false };
const inService = (pod: Pod): boolean =>
  pod.metadata.labels?.['podopslifecycle.kusionstack.io/service-available'] !== undefined &&
  !Object.keys(pod.metadata.labels ?? {}).some((k) => isOperationPermissionKey(k) || parseIdLabelKey(k) !== undefined);

export async function runLifecyclesBench(podCount = 1000): Promise<void> {
  const nodes = Math.ceil(podCount / 100) + 1;
  const server = await startServerProcess({ recordWrites: 1_000_000, simulation: { nodes, kubelet: { startDelayMs: 0, gracePeriodCapMs: 0 } } });
  const client = KubeClient.fromKubeconfigText(server.kubeconfig);
  const stop = new AbortController();
  /** The cooperation and operation controllers: stopped before the floor, which measures the admission chain alone. */
  const actors = new AbortController();
  stop.signal.addEventListener('abort', () => actors.abort());
  try {
    for (const crd of [podTransitionRuleCRD(), rolloutLifecycleCRD()]) await client.create(CUSTOM_RESOURCE_DEFINITIONS, crd as KubeObject);
    for (const name of [OPERATOR_NAMESPACE, 'bench']) await client.create(NAMESPACES, { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
    await client.create(SERVICES, {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'web', namespace: 'bench', labels: { [CONTROL_LABEL]: 'true' } },
      spec: { selector: { app: 'web' }, ports: [{ port: 80, targetPort: 8080 }] },
    });
    await startBenchOperator(client, stop.signal, { lifecycleWorkers: 16 });
    const lb = startLoadBalancerController(client, actors.signal);

    // The operation controller of the benchmark: finishes each lifecycle as soon as podops allows it.
    const pods = new Informer<Pod>({ client, type: PODS, namespace: 'bench' });
    const driver = new Controller({
      name: 'bench-operation',
      workers: 16,
      reconciler: {
        async reconcile({ namespace, name }) {
          const pod = pods.get(namespace, name);
          if (!pod || !isDuringOps(adapter, pod) || !allowOps(adapter, 0, pod, nowNanos()).allowed) return;
          await writePod(client, pod, finish(adapter, pod, nowNanos()).pod).catch(() => undefined);
        },
      },
    });
    pods.addHandler({ onUpdate: (_p, pod) => driver.enqueue(keyOf(pod.metadata.namespace, pod.metadata.name ?? '')) });
    void pods.run(actors.signal);
    void driver.run(actors.signal);

    /** `work(0..count-1)`, 16 at a time. */
    const inParallel = async (work: (i: number) => Promise<unknown>, count = podCount): Promise<void> => {
      let next = 0;
      await Promise.all(Array.from({ length: 16 }, async () => {
        while (next < count) await work(next++);
      }));
    };
    await inParallel((i) => client.create(PODS, { apiVersion: 'v1', kind: 'Pod', metadata: { name: `pod-${i}`, namespace: 'bench', labels: { app: 'web', [CONTROL_LABEL]: 'true' } }, spec: { containers: [{ name: 'web', image: 'nginx:1.27' }] } }));
    await waitFor(() => pods.list().filter(inService).length === podCount && pods.list().every((p) => lb.lb.isRegistered('bench/web', p.metadata.name ?? '')), 'every pod in service', 120_000, CHECK_EVERY_MS);
    const before = await server.writes();

    const start = performance.now();
    await inParallel((i) => {
      const pod = pods.get('bench', `pod-${i}`) as Pod;
      return writePod(client, pod, begin(adapter, pod, nowNanos()).pod);
    });
    await sleep(100);
    await waitFor(() => pods.list().filter(inService).length === podCount, 'every lifecycle to end', 300_000, CHECK_EVERY_MS);
    const seconds = (performance.now() - start) / 1000;
    await waitFor(() => pods.list().every((p) => lb.lb.isRegistered('bench/web', p.metadata.name ?? '')), 'every pod registered again', 60_000, CHECK_EVERY_MS);
    await sleep(500);
    const after = await server.writes();
    const writes = (after.total - before.total) / podCount;
    const kubelet = (after.readyOnly - before.readyOnly) / podCount;

    // The floor: the same number of pod writes (label patches, so the mutating and validating webhooks judge
    // each) from one client, 16 in flight, as the lifecycles' writers together keep at most about that many.
    // The load balancer and the operation controller are stopped first: their reactions are not the chain's.
    actors.abort();
    await sleep(200);
    const floorWrites = after.total - before.total;
    const floorStart = performance.now();
    await inParallel((i) => client.patch(PODS, 'bench', `pod-${i % podCount}`, 'merge', { metadata: { labels: { 'bench.podops.io/floor': String(i) } } }), floorWrites);
    const floorSeconds = (performance.now() - floorStart) / 1000;
    printTable(`${podCount.toLocaleString('en-US')} concurrent lifecycles with a load-balancer cooperation controller (sandbox in its own process, ${nodes} simulated nodes)`, [
      ['wall time, begin to all back in service', `${seconds.toFixed(2)} s   (target <= 20 s for 1,000)`],
      [`floor: ${floorWrites.toLocaleString('en-US')} pod writes from one client through the same webhooks`, `${floorSeconds.toFixed(2)} s   (${(floorWrites / floorSeconds).toFixed(0)} writes/s)`],
      ['wall time / floor', `${(seconds / floorSeconds).toFixed(2)}x   (target <= 2x)`],
      ['pod writes per lifecycle, all actors', writes.toFixed(2)],
      ['  of which the kubelet flipping Ready', kubelet.toFixed(2)],
      ['  podops, operation and cooperation controllers', `${(writes - kubelet).toFixed(2)}   (target 6: two by each; upstream's sequence needs 9)`],
    ]);
  } finally {
    stop.abort();
    await sleep(200);
    client.close();
    await server.stop();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await runLifecyclesBench(Number(process.argv[2] ?? 1000));
