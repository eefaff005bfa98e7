// The simulated nodes as controllers: each node's agent (Node, Lease, heartbeats), the scheduler and
// the kubelet that runs the pods bound to the nodes (and registers with the API server's connections).

import type { KubeletConnections } from '../apiserver/kubelet-connections.ts';
import { kubelet } from './kubelet.ts';
import type { NodeController } from './node-context.ts';
import { nodeAgent } from './node-agent.ts';
import { maxNodes, nodeIdentities } from './node-objects.ts';
import { resolveKubeletOptions, type KubeletOptions } from './options.ts';
import { scheduler } from './scheduler.ts';

export type { KubeletOptions } from './options.ts';

export function nodeControllers(count: number, kubeletOptions: KubeletOptions | undefined, connections: KubeletConnections): NodeController[] {
  if (count === 0) return [];
  if (!Number.isInteger(count) || count < 0 || count > maxNodes) throw new Error(`simulation nodes must be 0 to ${maxNodes}, not ${count}`);
  const options = resolveKubeletOptions(kubeletOptions);
  const identities = nodeIdentities(count);
  return [nodeAgent(identities, options), scheduler, kubelet(identities, options, connections)];
}
