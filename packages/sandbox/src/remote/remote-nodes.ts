// The sandbox's simulated nodes as a client of any API server, as KWOK runs fake nodes: the same node agent
// (Node objects, Leases, heartbeats), scheduler (pods/binding) and kubelets (pods/status, the deletion of
// pods whose containers stopped) as in the sandbox, with informers over HTTP for their view of pods, nodes
// and node Leases, and each component's writes sent as that component (the kubelet as system:node:<name> in
// system:nodes, the scheduler as system:kube-scheduler) by impersonation: the kubeconfig's user must be
// allowed to impersonate (an admin in system:masters is), and the API server then authorizes each write as
// it would the real component's.

import { KubeletConnections } from '../apiserver/kubelet-connections.ts';
import { authenticatedGroups } from '../apiserver/users.ts';
import { systemClock } from '../meta/time.ts';
import { nodeControllers, type KubeletOptions } from '../nodes/index.ts';
import type { NodeContext } from '../nodes/node-context.ts';
import { nodeLeaseNamespace } from '../nodes/node-objects.ts';
import { RemoteClient, RemoteServer } from './client.ts';
import { ClusterView } from './cluster-view.ts';
import { connectionFromKubeconfig } from './connection.ts';

export interface SimulatedNodesOptions {
  /** A kubeconfig (YAML) of a user who may impersonate the nodes and the scheduler, e.g. an admin. */
  kubeconfig: string;
  /** Where the kubeconfig came from, for relative file names in it. */
  kubeconfigPath?: string;
  /** Number of nodes, `node-1` … `node-N`. Default 3. */
  nodes?: number;
  /** The kubelets' delays and limits, as the sandbox's simulation takes them. */
  kubelet?: KubeletOptions;
  /** How long the first list of pods, nodes and Leases may take. Default 30,000 ms. */
  syncTimeoutMs?: number;
}

export interface SimulatedNodes extends AsyncDisposable {
  /** Stops the scheduler, the kubelets and their watches; the Node objects stay, as a stopped kubelet's do. */
  stop(): Promise<void>;
}

export async function startSimulatedNodes(options: SimulatedNodesOptions): Promise<SimulatedNodes> {
  const server = new RemoteServer(connectionFromKubeconfig(options.kubeconfig, options.kubeconfigPath));
  const view = new ClusterView(new RemoteClient(server, { userAgent: 'podops-sandbox-nodes' }), [
    { ref: { group: '', version: 'v1', resource: 'pods' }, storageKey: 'pods' },
    { ref: { group: '', version: 'v1', resource: 'nodes' }, storageKey: 'nodes' },
    { ref: { group: 'coordination.k8s.io', version: 'v1', resource: 'leases' }, storageKey: 'leases.coordination.k8s.io', namespace: nodeLeaseNamespace },
  ]);
  const close = (): void => {
    view.stop();
    server.close();
  };
  const timeoutMs = options.syncTimeoutMs ?? 30_000;
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      view.synced(),
      new Promise((_, reject) => (timer = setTimeout(() => reject(new Error(`the simulated nodes could not list pods, nodes and Leases of ${server.connection.server} in ${timeoutMs / 1000} s`)), timeoutMs))),
    ]);
  } catch (err) {
    close();
    throw err;
  } finally {
    clearTimeout(timer);
  }
  const ctx: NodeContext = {
    clientAs: ({ username, userAgent }) => new RemoteClient(server, { username, groups: authenticatedGroups(username), userAgent }),
    subscribe: (listener) => view.subscribe(listener),
    store: view,
    clock: systemClock,
  };
  const stops = nodeControllers(options.nodes ?? 3, options.kubelet, new KubeletConnections()).map((controller) => controller.start(ctx));
  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> =>
    (stopping ??= (async () => {
      for (const stopController of stops) stopController();
      close();
    })());
  return { stop, [Symbol.asyncDispose]: stop };
}
