// The kubelets of the simulated nodes, as one controller: for every pod bound to one of the nodes it
// keeps a PodRuntime (the containers "running" there), reports the pod's status through `pods/status`
// whenever it changed, and, once a deleted pod's containers have stopped, removes the pod with
// gracePeriodSeconds=0 as the kubelet's status manager does. Event-driven: a pod's own changes and one
// timer per pod for its next due moment (start delay, exits, grace periods, back-offs). Each node works
// through its own pods one at a time, the nodes concurrently. Each node's kubelet also answers the API
// server's container log requests (./kubelet-logs.ts), as the real one does on port 10250.

import type { KubeletConnection, KubeletConnections } from '../apiserver/kubelet-connections.ts';
import { StatusError } from '../errors.ts';
import { isJsonObject, type KubeObject } from '../meta/object.ts';
import type { NodeApiClient, NodeContext, NodeController } from './node-context.ts';
import { SerialKeyQueue } from '../controllers/serial-key-queue.ts';
import { IPPool } from './ip-pool.ts';
import { serveContainerLogs } from './kubelet-logs.ts';
import { kubeletIdentity, type NodeIdentity } from './node-objects.ts';
import type { ResolvedKubeletOptions } from './options.ts';
import { PodRuntime, type Moment } from './pod-runtime.ts';
import { desiredPodStatus } from './pod-status.ts';
import { podStatusPatch } from './status-patch.ts';

const pods = { group: '', version: 'v1', resource: 'pods' };

interface Wake {
  at: number;
  timer: NodeJS.Timeout;
}

const nodeNameOf = (pod: KubeObject): string => (isJsonObject(pod.spec) && typeof pod.spec.nodeName === 'string' ? pod.spec.nodeName : '');
const phaseOf = (pod: KubeObject): unknown => (isJsonObject(pod.status) ? pod.status.phase : undefined);

const ignoreNotFound = (err: unknown): void => {
  if (err instanceof StatusError && err.status.code === 404) return;
  throw err;
};

/**
 * One node's kubelet: its pods' runtimes, wake-up timers and IP pool, and a work queue of its own, so
 * nodes work concurrently while each handles its pods one at a time (as a kubelet's status manager).
 */
interface NodeKubelet {
  /** A pod of this node (now or before) changed. */
  touch(key: string): void;
  /** Whether this node runs (or ran) the pod under this key. */
  knows(key: string): boolean;
  /** What the API server reaches on this node. */
  connection: KubeletConnection;
  stop(): void;
}

function nodeKubelet(ctx: NodeContext, identity: NodeIdentity, options: ResolvedKubeletOptions): NodeKubelet {
  const client: NodeApiClient = ctx.clientAs(kubeletIdentity(identity.name));
  const ips = new IPPool(identity.podNetwork);
  const runtimes = new Map<string, PodRuntime>();
  const wakes = new Map<string, Wake>();
  /** Pods whose sandbox waits for a free address. */
  const awaitingAddress = new Set<string>();
  const release = (ip: string): void => {
    ips.release(ip);
    for (const key of awaitingAddress) queue.add(key);
  };
  const moment = (): Moment => ({ mono: performance.now(), wall: ctx.clock() });

  const wakeAt = (key: string, at: number): void => {
    const existing = wakes.get(key);
    if (existing && existing.at <= at) return;
    if (existing) clearTimeout(existing.timer);
    const timer = setTimeout(() => {
      wakes.delete(key);
      queue.add(key);
    }, Math.max(0, at - performance.now()));
    timer.unref();
    wakes.set(key, { at, timer });
  };

  const forget = (key: string): void => {
    const runtime = runtimes.get(key);
    runtimes.delete(key);
    const wake = wakes.get(key);
    if (wake) clearTimeout(wake.timer);
    wakes.delete(key);
    awaitingAddress.delete(key);
    // A pod removed while its sandbox was up frees its IP here (a finished one already did).
    if (runtime && !runtime.terminal && runtime.podIP !== undefined) release(runtime.podIP);
  };

  const sync = async (key: string): Promise<void> => {
    const found = ctx.store.get('pods', key)?.object;
    const pod = found && nodeNameOf(found) === identity.name ? found : undefined;
    let runtime = runtimes.get(key);
    if (runtime && (!pod || pod.metadata.uid !== runtime.uid)) {
      forget(key);
      runtime = undefined;
    }
    if (!pod) return;
    const at = moment();
    if (runtime) runtime.observe(pod, at);
    else {
      // A pod that ended before this kubelet saw it has nothing left to run.
      if (phaseOf(pod) === 'Succeeded' || phaseOf(pod) === 'Failed') return;
      // A hostNetwork pod shares the node's address.
      const allocateIP = isJsonObject(pod.spec) && pod.spec.hostNetwork === true ? () => identity.internalIP : () => ips.allocate();
      runtime = new PodRuntime(pod, at, { options, allocateIP, releaseIP: release });
      runtimes.set(key, runtime);
    }
    runtime.advance(at);
    if (runtime.awaitingAddress) awaitingAddress.add(key);
    else awaitingAddress.delete(key);
    const namespace = pod.metadata.namespace;
    const name = pod.metadata.name ?? '';
    const current = isJsonObject(pod.status) ? pod.status : {};
    const patch = podStatusPatch(current, desiredPodStatus(pod, runtime, identity.internalIP, at.wall));
    if (patch) await client.patch(pods, name, 'strategic', patch, { namespace, subresource: 'status' }).catch(ignoreNotFound);
    if (runtime.terminal && pod.metadata.deletionTimestamp && !runtime.deletionRequested) {
      const body = { kind: 'DeleteOptions', apiVersion: 'v1', gracePeriodSeconds: 0, preconditions: { uid: runtime.uid } };
      await client.delete(pods, name, { namespace, body }).catch(ignoreNotFound);
      runtime.deletionRequested = true;
    }
    const next = runtime.nextWake();
    if (next !== undefined) wakeAt(key, next);
  };

  /** Log followers of each pod, told after every sync of it. */
  const listeners = new Map<string, Set<() => void>>();
  const onChange = (key: string, listener: () => void): (() => void) => {
    const set = listeners.get(key) ?? new Set();
    listeners.set(key, set.add(listener));
    return () => {
      set.delete(listener);
      if (!set.size) listeners.delete(key);
    };
  };

  const queue = new SerialKeyQueue(async (key) => {
    try {
      await sync(key);
    } finally {
      for (const listener of listeners.get(key) ?? []) listener();
    }
  });
  const podOfNode = (key: string): KubeObject | undefined => {
    const pod = ctx.store.get('pods', key)?.object;
    return pod && nodeNameOf(pod) === identity.name ? pod : undefined;
  };
  return {
    touch: (key) => queue.add(key),
    knows: (key) => runtimes.has(key),
    connection: {
      containerLogs: (namespace, pod, container, logOptions) =>
        serveContainerLogs({ pod: podOfNode, runtime: (key) => runtimes.get(key), now: moment, onChange }, namespace, pod, container, logOptions),
    },
    stop() {
      queue.stop();
      for (const wake of wakes.values()) clearTimeout(wake.timer);
      wakes.clear();
    },
  };
}

export function kubelet(identities: readonly NodeIdentity[], options: ResolvedKubeletOptions, connections: KubeletConnections): NodeController {
  return {
    name: 'kubelet',
    start(ctx: NodeContext): () => void {
      const kubelets = new Map(identities.map((identity) => [identity.name, nodeKubelet(ctx, identity, options)]));
      const unregister = [...kubelets].map(([name, k]) => connections.register(name, k.connection));
      const unsubscribe = ctx.subscribe((event) => {
        if (event.resource !== 'pods') return;
        kubelets.get(nodeNameOf(event.object))?.touch(event.key);
        // A pod recreated under the same name on another node: the old node forgets its runtime.
        for (const other of kubelets.values()) if (other.knows(event.key)) other.touch(event.key);
      });
      for (const entry of ctx.store.list('pods')) kubelets.get(nodeNameOf(entry.object))?.touch(entry.key);
      return () => {
        unsubscribe();
        for (const done of unregister) done();
        for (const k of kubelets.values()) k.stop();
      };
    },
  };
}
