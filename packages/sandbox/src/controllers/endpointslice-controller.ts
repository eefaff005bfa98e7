// kube-controller-manager's EndpointSlice controller: for every Service with a selector, IPv4
// EndpointSlices (`<service>-<random>`, owned by the Service, labelled with
// `kubernetes.io/service-name` and `endpointslice.kubernetes.io/managed-by`) holding one endpoint per
// selected pod with an IP, terminating ones included, with conditions ready (Ready and not
// terminating), serving (Ready) and terminating. Pods whose named ports resolve alike share slices of
// at most 100 endpoints; the reconciler keeps endpoints in the slices that hold them, fills slices
// with room before creating new ones, and leaves an empty placeholder slice when nothing is selected.

import { StatusError } from '../errors.ts';
import { jsonEqual, type JsonObject, type KubeObject } from '../meta/object.ts';
import type { Controller, ControllerContext } from './in-process-controller.ts';
import {
  endpointHostname,
  findPort,
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

const slicesResource = { group: 'discovery.k8s.io', version: 'v1', resource: 'endpointslices' };
const sliceStorage = 'endpointslices.discovery.k8s.io';
export const serviceNameLabel = 'kubernetes.io/service-name';
export const managedByLabel = 'endpointslice.kubernetes.io/managed-by';
export const controllerName = 'endpointslice-controller.k8s.io';
const maxEndpointsPerSlice = 100;

const endpointsOf = (slice: KubeObject): JsonObject[] => (Array.isArray(slice.endpoints) ? (slice.endpoints as JsonObject[]) : []);
const portsOf = (slice: KubeObject): JsonObject[] => (Array.isArray(slice.ports) ? (slice.ports as JsonObject[]) : []);
const uidOf = (endpoint: JsonObject): string => String((endpoint.targetRef as JsonObject | undefined)?.uid ?? '');

/** The port set's identity, as NewPortMapKey hashes it (order does not matter). */
const portSetKey = (ports: readonly JsonObject[]): string =>
  JSON.stringify(ports.map((p) => [p.name ?? '', p.port, p.protocol, p.appProtocol ?? null]).sort());

function podToEndpoint(pod: KubeObject, service: KubeObject, ip: string): JsonObject {
  const serving = isPodReady(pod);
  const terminating = pod.metadata.deletionTimestamp !== undefined;
  const endpoint: JsonObject = {
    addresses: [ip],
    // For compatibility, ready is never true for a terminating pod unless not-ready addresses are published.
    conditions: { ready: publishesNotReady(service) || (serving && !terminating), serving, terminating },
  };
  const hostname = endpointHostname(pod, service);
  if (hostname) endpoint.hostname = hostname;
  endpoint.targetRef = { kind: 'Pod', namespace: pod.metadata.namespace, name: pod.metadata.name, uid: pod.metadata.uid };
  const nodeName = (pod.spec as JsonObject | undefined)?.nodeName;
  if (typeof nodeName === 'string' && nodeName) endpoint.nodeName = nodeName;
  return endpoint;
}

/** The desired endpoints grouped by the port set they resolve to. */
function desiredEndpoints(service: KubeObject, pods: readonly KubeObject[]): Map<string, { ports: JsonObject[]; endpoints: Map<string, JsonObject> }> {
  const groups = new Map<string, { ports: JsonObject[]; endpoints: Map<string, JsonObject> }>();
  for (const pod of pods) {
    const ip = podIP(pod);
    if (!ip || !shouldPodBeInEndpoints(pod, true)) continue;
    const ports: JsonObject[] = [];
    for (const servicePort of servicePorts(service)) {
      const port = findPort(pod, servicePort);
      if (port === undefined) continue;
      const endpointPort: JsonObject = { name: servicePort.name ?? '', port, protocol: servicePort.protocol ?? 'TCP' };
      if (servicePort.appProtocol !== undefined) endpointPort.appProtocol = servicePort.appProtocol;
      ports.push(endpointPort);
    }
    const key = portSetKey(ports);
    let group = groups.get(key);
    if (!group) groups.set(key, (group = { ports, endpoints: new Map() }));
    group.endpoints.set(pod.metadata.uid ?? '', podToEndpoint(pod, service, ip));
  }
  return groups;
}

interface Plan {
  create: { ports: JsonObject[]; endpoints: JsonObject[] }[];
  update: { slice: KubeObject; endpoints: JsonObject[] }[];
  remove: KubeObject[];
}

/** reconcileByPortMapping for one port set. */
function reconcilePortSet(plan: Plan, existing: KubeObject[], ports: JsonObject[], desired: Map<string, JsonObject>): void {
  const unchanged: KubeObject[] = [];
  const updates: { slice: KubeObject; endpoints: JsonObject[] }[] = [];
  for (const slice of existing) {
    let changed = false;
    const kept: JsonObject[] = [];
    for (const endpoint of endpointsOf(slice)) {
      const wanted = desired.get(uidOf(endpoint));
      if (!wanted) {
        changed = true;
        continue;
      }
      if (!jsonEqual(wanted, endpoint)) changed = true;
      kept.push(wanted);
      desired.delete(uidOf(endpoint));
    }
    if (!kept.length) plan.remove.push(slice);
    else if (changed) updates.push({ slice, endpoints: kept });
    else unchanged.push(slice);
  }
  const remaining = [...desired.values()];
  // Slices being written anyway take new endpoints first, fullest first.
  updates.sort((a, b) => b.endpoints.length - a.endpoints.length);
  for (const update of updates) while (remaining.length && update.endpoints.length < maxEndpointsPerSlice) update.endpoints.push(remaining.shift() as JsonObject);
  while (remaining.length >= maxEndpointsPerSlice) plan.create.push({ ports, endpoints: remaining.splice(0, maxEndpointsPerSlice) });
  if (remaining.length) {
    // What is left goes into one unchanged slice with room for all of it, else into a new slice.
    const roomy = unchanged.filter((s) => endpointsOf(s).length + remaining.length <= maxEndpointsPerSlice).sort((a, b) => endpointsOf(b).length - endpointsOf(a).length)[0];
    if (roomy) updates.push({ slice: roomy, endpoints: [...endpointsOf(roomy), ...remaining] });
    else plan.create.push({ ports, endpoints: remaining });
  }
  plan.update.push(...updates);
}

const isPlaceholder = (slice: KubeObject): boolean => !endpointsOf(slice).length && !portsOf(slice).length;

export const endpointSliceController = (batchPeriodMs = 0): Controller => ({
  name: 'endpointslice-controller',
  start(ctx: ControllerContext): () => void {
    const tracker = new TriggerTimeTracker();

    const sliceMetadata = (service: KubeObject, triggerTime: string | undefined, base: JsonObject): JsonObject => {
      const labels = labelsFromService(service);
      delete labels[serviceNameLabel];
      delete labels[managedByLabel];
      const annotations = { ...((base.annotations as Record<string, string> | undefined) ?? {}) };
      if (triggerTime) annotations[lastChangeTriggerTimeAnnotation] = triggerTime;
      else delete annotations[lastChangeTriggerTimeAnnotation];
      const metadata: JsonObject = { ...base, labels: { ...labels, [serviceNameLabel]: service.metadata.name ?? '', [managedByLabel]: controllerName } };
      if (Object.keys(annotations).length) metadata.annotations = annotations;
      else delete metadata.annotations;
      return metadata;
    };

    const sliceObject = (metadata: JsonObject, ports: JsonObject[], endpoints: JsonObject[]): KubeObject => ({
      apiVersion: 'discovery.k8s.io/v1',
      kind: 'EndpointSlice',
      metadata,
      addressType: 'IPv4',
      endpoints: endpoints.length ? endpoints : null,
      ports: ports.length ? ports : null,
    });

    const ignoreNotFound = (err: unknown): void => {
      if (!(err instanceof StatusError && err.status.code === 404)) throw err;
    };

    const sync = async (key: string): Promise<void> => {
      const service = ctx.store.get('services', key)?.object;
      const [namespace = ''] = key.split('/');
      // Slices of a deleted Service are its dependents: the garbage collector removes them.
      if (!service) return tracker.forget(key);
      const selector = managedSelector(service);
      if (!selector || service.metadata.deletionTimestamp) return;
      const pods = selectedPods(ctx, service, selector);
      const triggerTime = tracker.compute(key, service, pods);
      const existing = ctx.store
        .list(sliceStorage, `${namespace}/`)
        .map((e) => e.object)
        .filter((s) => s.metadata.labels?.[serviceNameLabel] === service.metadata.name && s.metadata.labels?.[managedByLabel] === controllerName);

      const plan: Plan = { create: [], update: [], remove: [] };
      const desired = desiredEndpoints(service, pods);
      for (const [portKey, group] of desired) {
        reconcilePortSet(plan, existing.filter((s) => portSetKey(portsOf(s)) === portKey && !isPlaceholder(s)), group.ports, group.endpoints);
      }
      plan.remove.push(...existing.filter((s) => isPlaceholder(s) || !desired.has(portSetKey(portsOf(s)))));
      if (plan.create.length === 0 && plan.remove.length === existing.length && plan.update.length === 0) {
        // Nothing would be left: keep (or make) the placeholder slice.
        const placeholder = plan.remove.find(isPlaceholder);
        if (placeholder) plan.remove.splice(plan.remove.indexOf(placeholder), 1);
        else plan.create.push({ ports: [], endpoints: [] });
      }
      // Labels follow the Service: a slice left unchanged is rewritten when they differ.
      const wantedLabels = (sliceMetadata(service, undefined, {}).labels ?? {}) as Record<string, string>;
      for (const slice of existing) {
        if (plan.remove.includes(slice) || plan.update.some((u) => u.slice === slice)) continue;
        if (!jsonEqual(slice.metadata.labels ?? {}, wantedLabels)) plan.update.push({ slice, endpoints: endpointsOf(slice) });
      }

      const owner = { apiVersion: 'v1', kind: 'Service', name: service.metadata.name ?? '', uid: service.metadata.uid ?? '', controller: true, blockOwnerDeletion: true };
      for (const { ports, endpoints } of plan.create) {
        const metadata = sliceMetadata(service, triggerTime, { generateName: `${service.metadata.name}-`, namespace, ownerReferences: [owner] });
        await ctx.client.create(slicesResource, sliceObject(metadata, ports, endpoints), { namespace });
      }
      for (const { slice, endpoints } of plan.update) {
        await ctx.client.update(slicesResource, sliceObject(sliceMetadata(service, triggerTime, slice.metadata), portsOf(slice), endpoints), { namespace });
      }
      for (const slice of plan.remove) {
        await ctx.client
          .delete(slicesResource, slice.metadata.name ?? '', { namespace, body: { kind: 'DeleteOptions', apiVersion: 'v1', preconditions: { uid: slice.metadata.uid } } })
          .catch(ignoreNotFound);
      }
    };

    // A managed slice changed or removed by someone else is put back.
    return watchServiceChanges(ctx, new SerialKeyQueue(sync), batchPeriodMs, (event) => {
      if (event.resource !== sliceStorage || event.object.metadata.labels?.[managedByLabel] !== controllerName) return undefined;
      const service = event.object.metadata.labels[serviceNameLabel];
      return service ? `${event.object.metadata.namespace}/${service}` : undefined;
    });
  },
});
