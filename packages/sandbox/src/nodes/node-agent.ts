// The node-level half of each simulated kubelet: registers its Node, renews its Lease in
// kube-node-lease, and reports the node status (the conditions' heartbeats) every five minutes, as a
// kubelet with the NodeLease feature does. Pods are the kubelet controller's business (kubelet.ts).

import { StatusError } from '../errors.ts';
import { isJsonObject } from '../meta/object.ts';
import { formatMicroTimestamp } from '../meta/time.ts';
import type { NodeApiClient, NodeContext, NodeController } from './node-context.ts';
import { healthyNodeConditions, kubeletIdentity, nodeLeaseManifest, nodeLeaseNamespace, nodeManifest, type NodeIdentity } from './node-objects.ts';
import type { ResolvedKubeletOptions } from './options.ts';
import { SerialKeyQueue } from '../controllers/serial-key-queue.ts';

const nodes = { group: '', version: 'v1', resource: 'nodes' };
const leases = { group: 'coordination.k8s.io', version: 'v1', resource: 'leases' };

/** nodeStatusReportFrequency: without changes the kubelet posts its node status this often. */
const statusReportIntervalMs = 5 * 60_000;

const isCode = (err: unknown, code: number): boolean => err instanceof StatusError && err.status.code === code;

export function nodeAgent(identities: readonly NodeIdentity[], options: ResolvedKubeletOptions): NodeController {
  return {
    name: 'node-agent',
    start(ctx: NodeContext): () => void {
      const timers: NodeJS.Timeout[] = [];
      const clientOf = (node: NodeIdentity): NodeApiClient => ctx.clientAs(kubeletIdentity(node.name));

      const register = async (node: NodeIdentity): Promise<void> => {
        await clientOf(node).create(nodes, nodeManifest(node, options.maxPods, ctx.clock())).catch((err: unknown) => {
          if (!isCode(err, 409)) throw err;
        });
      };

      const renewLease = async (node: NodeIdentity): Promise<void> => {
        const owner = ctx.store.get('nodes', node.name)?.object;
        if (!owner) return;
        const current = ctx.store.get('leases.coordination.k8s.io', `${nodeLeaseNamespace}/${node.name}`)?.object;
        if (!current) {
          await clientOf(node).create(leases, nodeLeaseManifest(owner, ctx.clock()), { namespace: nodeLeaseNamespace });
          return;
        }
        const spec = isJsonObject(current.spec) ? current.spec : {};
        await clientOf(node).update(leases, { ...current, spec: { ...spec, holderIdentity: node.name, renewTime: formatMicroTimestamp(ctx.clock()) } }, { namespace: nodeLeaseNamespace });
      };

      const reportStatus = async (node: NodeIdentity): Promise<void> => {
        const current = ctx.store.get('nodes', node.name)?.object;
        if (!current) return;
        const previous = isJsonObject(current.status) && Array.isArray(current.status.conditions) ? current.status.conditions.filter(isJsonObject) : [];
        const transitions = new Map(previous.map((c) => [String(c.type), String(c.lastTransitionTime)]));
        await clientOf(node).patch(nodes, node.name, 'strategic', { status: { conditions: healthyNodeConditions(ctx.clock(), transitions) } }, { subresource: 'status' });
      };

      // Failed writes (a webhook refusing them, say) are retried by the queue with back-off.
      const queue = new SerialKeyQueue(async (key) => {
        const [task, name] = key.split('/');
        const node = identities.find((n) => n.name === name);
        if (!node) return;
        if (task === 'register') {
          await register(node);
          if (options.leaseRenewIntervalMs > 0) queue.add(`lease/${node.name}`);
        } else if (task === 'lease') await renewLease(node);
        else await reportStatus(node);
      });
      const every = (ms: number, task: string): void => {
        const timer = setInterval(() => {
          for (const node of identities) queue.add(`${task}/${node.name}`);
        }, ms);
        timer.unref();
        timers.push(timer);
      };
      for (const node of identities) queue.add(`register/${node.name}`);
      if (options.leaseRenewIntervalMs > 0) every(options.leaseRenewIntervalMs, 'lease');
      every(statusReportIntervalMs, 'status');

      return () => {
        queue.stop();
        for (const timer of timers) clearInterval(timer);
      };
    },
  };
}

