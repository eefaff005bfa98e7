// The simulated nodes' identities and the objects their kubelets register: the Node (labels, pod CIDR,
// addresses, capacity, conditions, nodeInfo) and its heartbeat Lease in kube-node-lease, shaped as a
// v1.32 kubelet on containerd reports them.

import { createHash } from 'node:crypto';
import type { KubeObject } from '../meta/object.ts';
import { formatMicroTimestamp, formatTimestamp } from '../meta/time.ts';

export const nodeLeaseNamespace = 'kube-node-lease';
const nodeLeaseDurationSeconds = 40;
const kubeletVersion = 'v1.32.0';
const containerRuntimeVersion = 'containerd://1.7.24';
/** The kubelet's user agent (the build commit as the sandbox's /version reports it). */
const kubeletUserAgent = `kubelet/${kubeletVersion} (linux/amd64) kubernetes/0000000`;

/** How a node's kubelet authenticates: `system:node:<name>` (group system:nodes). */
export const kubeletIdentity = (nodeName: string): { username: string; userAgent: string } => ({ username: `system:node:${nodeName}`, userAgent: kubeletUserAgent });

export interface NodeIdentity {
  /** 1-based. */
  index: number;
  name: string;
  internalIP: string;
  /** `10.244.K.0/24`. */
  podCIDR: string;
  /** The first three octets of the pod CIDR, `10.244.K`. */
  podNetwork: string;
}

export const maxNodes = 253;

export function nodeIdentity(index: number): NodeIdentity {
  if (!Number.isInteger(index) || index < 1 || index > maxNodes) throw new Error(`node index must be 1 to ${maxNodes}, not ${index}`);
  return {
    index,
    name: `node-${index}`,
    internalIP: `172.18.0.${index + 1}`,
    podCIDR: `10.244.${index}.0/24`,
    podNetwork: `10.244.${index}`,
  };
}

export const nodeIdentities = (count: number): NodeIdentity[] => Array.from({ length: count }, (_, i) => nodeIdentity(i + 1));

/** A stable hex id per node and purpose (machine-id, boot id…), so restarts look alike. */
const stableHex = (name: string, purpose: string): string => createHash('sha256').update(`${purpose}/${name}`).digest('hex').slice(0, 32);

const asUuid = (hex: string): string => `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;

function nodeResources(maxPods: number): Record<string, string> {
  return {
    cpu: '8',
    'ephemeral-storage': '100Gi',
    'hugepages-1Gi': '0',
    'hugepages-2Mi': '0',
    memory: '32Gi',
    pods: String(maxPods),
  };
}

/** The node conditions a healthy kubelet reports, heartbeat at `now`. */
export function healthyNodeConditions(now: number, transitions: ReadonlyMap<string, string> = new Map()): Record<string, unknown>[] {
  const heartbeat = formatTimestamp(now);
  const condition = (type: string, status: string, reason: string, message: string): Record<string, unknown> => ({
    type,
    status,
    lastHeartbeatTime: heartbeat,
    lastTransitionTime: transitions.get(type) ?? heartbeat,
    reason,
    message,
  });
  return [
    condition('MemoryPressure', 'False', 'KubeletHasSufficientMemory', 'kubelet has sufficient memory available'),
    condition('DiskPressure', 'False', 'KubeletHasNoDiskPressure', 'kubelet has no disk pressure'),
    condition('PIDPressure', 'False', 'KubeletHasSufficientPID', 'kubelet has sufficient PID available'),
    condition('Ready', 'True', 'KubeletReady', 'kubelet is posting ready status'),
  ];
}

export function nodeManifest(node: NodeIdentity, maxPods: number, now: number): KubeObject {
  const resources = nodeResources(maxPods);
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name: node.name,
      labels: {
        'beta.kubernetes.io/arch': 'amd64',
        'beta.kubernetes.io/os': 'linux',
        'kubernetes.io/arch': 'amd64',
        'kubernetes.io/hostname': node.name,
        'kubernetes.io/os': 'linux',
      },
      annotations: {
        'node.alpha.kubernetes.io/ttl': '0',
        'volumes.kubernetes.io/controller-managed-attach-detach': 'true',
      },
    },
    spec: { podCIDR: node.podCIDR, podCIDRs: [node.podCIDR] },
    status: {
      capacity: resources,
      allocatable: { ...resources },
      conditions: healthyNodeConditions(now),
      addresses: [
        { type: 'InternalIP', address: node.internalIP },
        { type: 'Hostname', address: node.name },
      ],
      daemonEndpoints: { kubeletEndpoint: { Port: 10250 } },
      nodeInfo: {
        machineID: stableHex(node.name, 'machine-id'),
        systemUUID: asUuid(stableHex(node.name, 'system-uuid')),
        bootID: asUuid(stableHex(node.name, 'boot-id')),
        kernelVersion: '6.8.0-sandbox',
        osImage: 'Debian GNU/Linux 12 (bookworm)',
        containerRuntimeVersion,
        kubeletVersion,
        kubeProxyVersion: '',
        operatingSystem: 'linux',
        architecture: 'amd64',
      },
      runtimeHandlers: [
        { name: 'runc', features: { recursiveReadOnlyMounts: true, userNamespaces: false } },
        { name: '', features: { recursiveReadOnlyMounts: true, userNamespaces: false } },
      ],
    },
  };
}

export function nodeLeaseManifest(node: KubeObject, now: number): KubeObject {
  const name = node.metadata.name ?? '';
  return {
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    metadata: {
      name,
      namespace: nodeLeaseNamespace,
      ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name, uid: node.metadata.uid ?? '' }],
    },
    spec: { holderIdentity: name, leaseDurationSeconds: nodeLeaseDurationSeconds, renewTime: formatMicroTimestamp(now) },
  };
}
