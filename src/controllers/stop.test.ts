// A stop cancels the requests in flight: every reconciler passes the signal the harness gives it to its requests,
// so a controller stopped while the API server has not answered its write returns at once, far inside the
// manager's grace period (25 s), instead of waiting for the client's timeout (30 s), and the request's
// connection is closed.

import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, test } from 'node:test';
import type { Pod, Service } from '../api/kube.ts';
import type { PodTransitionRule } from '../api/podtransitionrule.ts';
import { EVICTION_REQUESTED_ANNOTATION, TO_DELETE_LABEL, TO_EVICT_LABEL } from '../api/protocol.ts';
import type { RolloutLifecycle } from '../api/rolloutlifecycle.ts';
import { LeavingDecisions } from '../cache/leaving.ts';
import { WorkloadReads } from '../cache/workloads.ts';
import { KubeClient } from '../kube/client.ts';
import { Controller, type Reconciler } from '../kube/controller.ts';
import type { Workload } from '../rollout/workload.ts';
import { CallManager } from '../transition/webhook/call-manager.ts';
import { PollManager } from '../transition/webhook/poll-manager.ts';
import { fakeCaches } from '../../test/support/fake-caches.ts';
import { FakeInformer } from '../../test/support/fake-informer.ts';
import { NOW, pod, STAMP } from '../../test/support/pods.ts';
import { LifecycleReconciler } from './lifecycle-controller.ts';
import { PodDeletionReconciler } from './pod-deletion-controller.ts';
import { PodEvictionReconciler } from './pod-eviction-controller.ts';
import { RolloutReconciler } from './rollout-controller.ts';
import { TransitionReconciler } from './transition-controller.ts';

/** An API server that takes every request and never answers it; it keeps each, and sees when the client closes it. */
async function hangingServer(): Promise<{ client: KubeClient; requests: IncomingMessage[]; closed: Promise<void>[]; [Symbol.asyncDispose](): Promise<void> }> {
  const requests: IncomingMessage[] = [];
  const closed: Promise<void>[] = [];
  const server = createServer((req) => {
    requests.push(req);
    closed.push(once(req.socket, 'close').then(() => {}));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  const kubeconfig = { apiVersion: 'v1', kind: 'Config', clusters: [{ name: 'c', cluster: { server: `http://127.0.0.1:${port}` } }], users: [{ name: 'u', user: { token: 't' } }], contexts: [{ name: 'x', context: { cluster: 'c', user: 'u' } }], 'current-context': 'x' };
  const client = KubeClient.fromKubeconfigText(JSON.stringify(kubeconfig));
  return {
    client,
    requests,
    closed,
    async [Symbol.asyncDispose]() {
      client.close();
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}

const waitFor = async (done: () => boolean): Promise<void> => {
  for (let i = 0; i < 500 && !done(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
  assert.ok(done(), 'the request reached the API server');
};

/** Each reconciler with an object that makes it write, and that object's key. */
const reconcilers: Record<string, (client: KubeClient) => { reconciler: Reconciler; key: string }> = {
  lifecycle: (client) => {
    const pods = new FakeInformer<Pod>();
    // Ready, without the service-ready condition: the controller writes it.
    pods.put({ ...pod({ ready: true }), metadata: { ...pod().metadata, resourceVersion: '1' } });
    return { reconciler: new LifecycleReconciler({ client, pods: pods.informer, services: new FakeInformer<Service>().informer, now: () => NOW }), key: 'default/pod-a' };
  },
  'pod deletion': (client) => {
    const fakes = fakeCaches();
    // Marked for deletion by someone, no budget in the way: its pod-delete lifecycle begins.
    fakes.pods.put(pod({ labels: { [TO_DELETE_LABEL]: STAMP } }));
    const leaving = new LeavingDecisions(new WorkloadReads(fakes.caches, client));
    return { reconciler: new PodDeletionReconciler({ client, caches: fakes.caches, leaving, now: () => NOW }), key: 'default/pod-a' };
  },
  'pod eviction': (client) => {
    const fakes = fakeCaches();
    // An eviction asked a moment ago, no budget in the way: its pod-eviction lifecycle begins.
    fakes.pods.put(pod({ labels: { [TO_EVICT_LABEL]: STAMP }, annotations: { [EVICTION_REQUESTED_ANNOTATION]: STAMP } }));
    return { reconciler: new PodEvictionReconciler({ client, caches: fakes.caches, now: () => NOW }), key: 'default/pod-a' };
  },
  podtransitionrule: (client) => {
    const rules = new FakeInformer<PodTransitionRule>();
    // Without its finalizer: the controller adds it.
    rules.put({ metadata: { name: 'rule', namespace: 'default', resourceVersion: '1' }, spec: { selector: { matchLabels: { app: 'web' } }, rules: [] } });
    const polls = new PollManager({ onPolled: () => {} });
    const calls = new CallManager({ onAnswered: () => {} });
    return { reconciler: new TransitionReconciler({ client, rules: rules.informer, pods: new FakeInformer<Pod>().informer, polls, calls }), key: 'default/rule' };
  },
  rolloutlifecycle: (client) => {
    const rolloutLifecycles = new FakeInformer<RolloutLifecycle>();
    // Without its finalizer: the controller adds it.
    rolloutLifecycles.put({ metadata: { name: 'hooks', namespace: 'default', resourceVersion: '1', creationTimestamp: '2025-03-01T10:00:00Z' }, spec: { targetRef: { kind: 'Deployment', name: 'web' }, hooks: [] } });
    const workloads = { Deployment: new FakeInformer<Workload>().informer, StatefulSet: new FakeInformer<Workload>().informer, DaemonSet: new FakeInformer<Workload>().informer };
    const reconciler = new RolloutReconciler({ client, rolloutLifecycles: rolloutLifecycles.informer, workloads, jobs: new FakeInformer().informer, replicaSets: new FakeInformer<Workload>().informer });
    return { reconciler, key: 'default/hooks' };
  },
};

describe('a stop cancels the requests in flight', () => {
  for (const [name, make] of Object.entries(reconcilers)) {
    test(`${name}: the controller returns at once, its write's connection closed`, async () => {
      await using api = await hangingServer();
      const { reconciler, key } = make(api.client);
      const controller = new Controller({ name, reconciler });
      const stop = new AbortController();
      const running = controller.run(stop.signal);
      controller.enqueue(key);
      await waitFor(() => api.requests.length > 0);
      assert.equal(api.requests[0]?.method, 'PATCH');
      const stopped = performance.now();
      stop.abort();
      await running;
      await api.closed[0];
      assert.ok(performance.now() - stopped < 2000, `stopped in ${Math.round(performance.now() - stopped)} ms`);
    });
  }
});
