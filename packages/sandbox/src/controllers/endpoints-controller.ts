// kube-controller-manager's Endpoints controller: for every Service with a selector, an Endpoints
// object of the same name listing the selected pods' IPs: ready pods in `addresses`, the others in
// `notReadyAddresses` (all in `addresses` with publishNotReadyAddresses); terminal and terminating
// pods are left out. One subset per distinct port set (named targetPorts resolve per pod), addresses
// sorted by IP; at most 1000 addresses (`endpoints.kubernetes.io/over-capacity: truncated`).
// Written only when subsets or labels change.

import { StatusError } from '../errors.ts';
import { jsonEqual, type JsonObject, type KubeObject } from '../meta/object.ts';
import type { Controller, ControllerContext } from './in-process-controller.ts';
import {
  endpointHostname,
  findPort,
  isHeadless,
  isPodReady,
  labelsFromService,
  lastChangeTriggerTimeAnnotation,
  managedSelector,
  podIP,
  publishesNotReady,
  selectedPods,
  servicePorts,
  shouldPodBeInEndpoints,
  TriggerTimeTracker,
  watchServiceChanges,
} from './endpoints-services.ts';
import { SerialKeyQueue } from './serial-key-queue.ts';

const endpointsResource = { group: '', version: 'v1', resource: 'endpoints' };
const overCapacityAnnotation = 'endpoints.kubernetes.io/over-capacity';
const maxCapacity = 1000;

interface Subset {
  addresses: JsonObject[];
  notReadyAddresses: JsonObject[];
  ports: JsonObject[];
}

const byIP = (a: JsonObject, b: JsonObject): number => {
  const x = String(a.ip);
  const y = String(b.ip);
  return x < y ? -1 : x > y ? 1 : 0;
};

/**
 * RepackSubsets: the (address, port) pairs regrouped so that addresses offering the same ports share
 * a subset. `entries` are one address with its resolved ports (none: the headless no-port case).
 */
function repack(entries: { address: JsonObject; ready: boolean; ports: JsonObject[] }[]): Subset[] {
  const addressesByPort = new Map<string, { port: JsonObject | undefined; addresses: Map<string, { address: JsonObject; ready: boolean }> }>();
  for (const entry of entries) {
    for (const port of entry.ports.length ? entry.ports : [undefined]) {
      const portKey = JSON.stringify(port ?? null);
      let group = addressesByPort.get(portKey);
      if (!group) addressesByPort.set(portKey, (group = { port, addresses: new Map() }));
      group.addresses.set(JSON.stringify(entry.address), { address: entry.address, ready: entry.ready });
    }
  }
  const subsets = new Map<string, Subset>();
  for (const { port, addresses } of addressesByPort.values()) {
    const key = JSON.stringify([...addresses.entries()].map(([k, v]) => [k, v.ready]).sort());
    let subset = subsets.get(key);
    if (!subset) {
      subset = {
        addresses: [...addresses.values()].filter((a) => a.ready).map((a) => a.address).sort(byIP),
        notReadyAddresses: [...addresses.values()].filter((a) => !a.ready).map((a) => a.address).sort(byIP),
        ports: [],
      };
      subsets.set(key, subset);
    }
    if (port) subset.ports.push(port);
  }
  return [...subsets.values()].sort((a, b) => byIP(a.addresses[0] ?? a.notReadyAddresses[0] ?? {}, b.addresses[0] ?? b.notReadyAddresses[0] ?? {}));
}

/** truncateEndpoints: ready addresses first; each subset keeps its share of the capacity. */
function truncate(subsets: Subset[]): boolean {
  const totalReady = subsets.reduce((n, s) => n + s.addresses.length, 0);
  const totalNotReady = subsets.reduce((n, s) => n + s.notReadyAddresses.length, 0);
  if (totalReady + totalNotReady <= maxCapacity) return false;
  const truncateReady = totalReady > maxCapacity;
  const max = truncateReady ? maxCapacity : maxCapacity - totalReady;
  const total = truncateReady ? totalReady : totalNotReady;
  let room = max;
  for (const subset of subsets) {
    const share = Math.min(Math.ceil(((truncateReady ? subset.addresses.length : subset.notReadyAddresses.length) / total) * max), room);
    if (truncateReady) {
      subset.addresses = subset.addresses.slice(0, share);
      subset.notReadyAddresses = [];
      room -= subset.addresses.length;
    } else {
      subset.notReadyAddresses = subset.notReadyAddresses.slice(0, share);
      room -= subset.notReadyAddresses.length;
    }
  }
  return true;
}

/** The API shape of a subset: empty lists are omitted. */
function subsetObject(subset: Subset): JsonObject {
  const out: JsonObject = {};
  if (subset.addresses.length) out.addresses = subset.addresses;
  if (subset.notReadyAddresses.length) out.notReadyAddresses = subset.notReadyAddresses;
  if (subset.ports.length) out.ports = subset.ports;
  return out;
}

function desiredSubsets(service: KubeObject, pods: readonly KubeObject[]): Subset[] {
  const tolerateUnready = publishesNotReady(service);
  const ports = servicePorts(service);
  const entries: { address: JsonObject; ready: boolean; ports: JsonObject[] }[] = [];
  for (const pod of pods) {
    const ip = podIP(pod);
    if (!ip || !shouldPodBeInEndpoints(pod, tolerateUnready)) continue;
    const address: JsonObject = { ip };
    const hostname = endpointHostname(pod, service);
    if (hostname) address.hostname = hostname;
    const nodeName = (pod.spec as JsonObject | undefined)?.nodeName;
    if (typeof nodeName === 'string' && nodeName) address.nodeName = nodeName;
    address.targetRef = { kind: 'Pod', namespace: pod.metadata.namespace, name: pod.metadata.name, uid: pod.metadata.uid };
    const ready = tolerateUnready || isPodReady(pod);
    if (!ports.length) {
      if (isHeadless(service)) entries.push({ address, ready, ports: [] });
      continue;
    }
    const resolved: JsonObject[] = [];
    for (const servicePort of ports) {
      const port = findPort(pod, servicePort);
      if (port === undefined) continue;
      const endpointPort: JsonObject = {};
      if (servicePort.name) endpointPort.name = servicePort.name;
      endpointPort.port = port;
      endpointPort.protocol = servicePort.protocol ?? 'TCP';
      if (servicePort.appProtocol !== undefined) endpointPort.appProtocol = servicePort.appProtocol;
      resolved.push(endpointPort);
    }
    if (resolved.length) entries.push({ address, ready, ports: resolved });
  }
  return repack(entries);
}

export const endpointsController = (batchPeriodMs = 0): Controller => ({
  name: 'endpoints-controller',
  start(ctx: ControllerContext): () => void {
    const tracker = new TriggerTimeTracker();

    const sync = async (key: string): Promise<void> => {
      const service = ctx.store.get('services', key)?.object;
      const [namespace = '', name = ''] = key.split('/');
      if (!service) {
        tracker.forget(key);
        await ctx.client.delete(endpointsResource, name, { namespace }).catch((err: unknown) => {
          if (!(err instanceof StatusError && err.status.code === 404)) throw err;
        });
        return;
      }
      const selector = managedSelector(service);
      if (!selector) return;
      const pods = selectedPods(ctx, service, selector);
      const triggerTime = tracker.compute(key, service, pods);
      const subsets = desiredSubsets(service, pods);
      const truncated = truncate(subsets);
      const current = ctx.store.get('endpoints', key)?.object;
      if (!current && service.metadata.deletionTimestamp) return;
      const subsetObjects = subsets.map(subsetObject);
      const labels = labelsFromService(service);
      const annotations = { ...(current?.metadata.annotations ?? {}) };
      if (
        current &&
        jsonEqual(current.subsets ?? [], subsetObjects) &&
        jsonEqual(current.metadata.labels ?? {}, labels) &&
        (annotations[overCapacityAnnotation] === 'truncated') === truncated
      ) {
        return;
      }
      if (triggerTime) annotations[lastChangeTriggerTimeAnnotation] = triggerTime;
      else delete annotations[lastChangeTriggerTimeAnnotation];
      if (truncated) annotations[overCapacityAnnotation] = 'truncated';
      else delete annotations[overCapacityAnnotation];
      const metadata: KubeObject['metadata'] = { ...(current?.metadata ?? { name, namespace }), labels, annotations };
      if (!Object.keys(labels).length) delete metadata.labels;
      if (!Object.keys(annotations).length) delete metadata.annotations;
      const endpoints: KubeObject = { apiVersion: 'v1', kind: 'Endpoints', metadata };
      if (subsetObjects.length) endpoints.subsets = subsetObjects;
      if (current) await ctx.client.update(endpointsResource, endpoints, { namespace });
      else await ctx.client.create(endpointsResource, endpoints, { namespace });
    };

    return watchServiceChanges(ctx, new SerialKeyQueue(sync), batchPeriodMs);
  },
});
