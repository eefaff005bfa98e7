// What the Endpoints and EndpointSlice controllers share (pkg/controller/util/endpoint): which
// Services select a pod, which pods count (ShouldPodBeInEndpoints), a pod's readiness, named
// targetPort resolution (FindPort), and the last-change trigger time tracker behind the
// `endpoints.kubernetes.io/last-change-trigger-time` annotation.

import { isJsonObject, jsonEqual, readPath, type JsonObject, type KubeObject } from '../meta/object.ts';
import { formatTimestamp, parseTimestamp } from '../meta/time.ts';
import type { StoreEvent } from '../storage/store.ts';
import type { ControllerContext } from './in-process-controller.ts';
import { DelayedKeys } from './delayed-keys.ts';
import type { SerialKeyQueue } from './serial-key-queue.ts';

export const lastChangeTriggerTimeAnnotation = 'endpoints.kubernetes.io/last-change-trigger-time';
export const headlessServiceLabel = 'service.kubernetes.io/headless';

const specOf = (o: KubeObject): JsonObject => (isJsonObject(o.spec) ? o.spec : {});

const selectorOf = (service: KubeObject): Record<string, string> | undefined => {
  const selector = specOf(service).selector;
  return isJsonObject(selector) && Object.keys(selector).length ? (selector as Record<string, string>) : undefined;
};

/** A Service whose endpoints the controllers manage: it has a selector and is not ExternalName. */
export function managedSelector(service: KubeObject): Record<string, string> | undefined {
  return specOf(service).type === 'ExternalName' ? undefined : selectorOf(service);
}

const selects = (selector: Record<string, string>, labels: Record<string, string> | undefined): boolean =>
  Object.entries(selector).every(([k, v]) => labels?.[k] === v);

export const isHeadless = (service: KubeObject): boolean => specOf(service).clusterIP === 'None';

export const publishesNotReady = (service: KubeObject): boolean => specOf(service).publishNotReadyAddresses === true;

/** The pods of the service's namespace its selector picks. */
export function selectedPods(ctx: ControllerContext, service: KubeObject, selector: Record<string, string>): KubeObject[] {
  return ctx.store
    .list('pods', `${service.metadata.namespace}/`)
    .map((e) => e.object)
    .filter((pod) => selects(selector, pod.metadata.labels));
}

const podIPs = (pod: KubeObject): string[] => {
  const ips = readPath(pod, ['status', 'podIPs']);
  return Array.isArray(ips) ? ips.map((entry) => (isJsonObject(entry) ? String(entry.ip) : '')) : [];
};

/**
 * podEndpointsChanged: whether an update can change the pod's endpoint (deletion, readiness, IPs) and
 * whether it can change which Services select it or the hostname they publish (labels, hostname, subdomain).
 */
function podEndpointsChanged(old: KubeObject, pod: KubeObject): { podChanged: boolean; labelsChanged: boolean } {
  const spec = (o: KubeObject): JsonObject => specOf(o);
  const labelsChanged = !jsonEqual(old.metadata.labels ?? {}, pod.metadata.labels ?? {}) || spec(old).hostname !== spec(pod).hostname || spec(old).subdomain !== spec(pod).subdomain;
  const podChanged =
    old.metadata.deletionTimestamp !== pod.metadata.deletionTimestamp || isPodReady(old) !== isPodReady(pod) || !jsonEqual(podIPs(old), podIPs(pod));
  return { podChanged, labelsChanged };
}

/**
 * The keys of the Services a store event concerns (GetServicesToUpdateOnPodChange): the Service
 * itself; for a pod added or deleted, the Services selecting it; for a pod updated, none unless its
 * endpoint or its memberships may have changed: then the Services selecting it before or after when
 * the endpoint changed, else only those whose selection of it changed.
 */
function servicesConcerned(ctx: ControllerContext, event: StoreEvent): string[] {
  if (event.resource === 'services') return [event.key];
  if (event.resource !== 'pods') return [];
  const namespace = event.object.metadata.namespace ?? '';
  const selecting = (pod: KubeObject | undefined): Set<string> => {
    const keys = new Set<string>();
    if (!pod) return keys;
    for (const entry of ctx.store.list('services', `${namespace}/`)) {
      const selector = managedSelector(entry.object);
      if (selector !== undefined && selects(selector, pod.metadata.labels)) keys.add(entry.key);
    }
    return keys;
  };
  if (event.type !== 'MODIFIED' || !event.previous) return [...selecting(event.object)];
  const { podChanged, labelsChanged } = podEndpointsChanged(event.previous, event.object);
  if (!podChanged && !labelsChanged) return [];
  const now = selecting(event.object);
  if (!labelsChanged) return [...now];
  const before = selecting(event.previous);
  if (podChanged) return [...new Set([...before, ...now])];
  return [...now, ...before].filter((key) => now.has(key) !== before.has(key));
}

/**
 * Feeds a controller's queue from the store: a Service's own change at once, a pod's change after the
 * batch period (kcm's --endpoint-updates-batch-period: changes within it make one sync). Returns the stop function.
 */
export function watchServiceChanges(ctx: ControllerContext, queue: SerialKeyQueue, batchPeriodMs: number, also?: (event: StoreEvent) => string | undefined): () => void {
  const delayed = new DelayedKeys((key) => queue.add(key));
  const unsubscribe = ctx.subscribe((event) => {
    for (const key of servicesConcerned(ctx, event)) {
      if (event.resource === 'pods') delayed.addAfter(key, batchPeriodMs);
      else queue.add(key);
    }
    const extra = also?.(event);
    if (extra) queue.add(extra);
  });
  for (const entry of ctx.store.list('services')) queue.add(entry.key);
  return () => {
    unsubscribe();
    delayed.stop();
    queue.stop();
  };
}

const phaseOf = (pod: KubeObject): unknown => readPath(pod, ['status', 'phase']);

/** ShouldPodBeInEndpoints: not terminal, has an IP, and (unless terminating ones are included) not being deleted. */
export function shouldPodBeInEndpoints(pod: KubeObject, includeTerminating: boolean): boolean {
  if (phaseOf(pod) === 'Succeeded' || phaseOf(pod) === 'Failed') return false;
  if (!podIP(pod)) return false;
  return includeTerminating || !pod.metadata.deletionTimestamp;
}

export function podIP(pod: KubeObject): string | undefined {
  const ip = readPath(pod, ['status', 'podIP']);
  return typeof ip === 'string' && ip ? ip : undefined;
}

function readyCondition(pod: KubeObject): JsonObject | undefined {
  const conditions = readPath(pod, ['status', 'conditions']);
  return Array.isArray(conditions) ? conditions.filter(isJsonObject).find((c) => c.type === 'Ready') : undefined;
}

/** podutil.IsPodReady: the Ready condition is True. */
export const isPodReady = (pod: KubeObject): boolean => readyCondition(pod)?.status === 'True';

/** ShouldSetHostname: the pod names the service as its subdomain. */
export function endpointHostname(pod: KubeObject, service: KubeObject): string | undefined {
  const spec = specOf(pod);
  const hostname = typeof spec.hostname === 'string' ? spec.hostname : '';
  return hostname && spec.subdomain === service.metadata.name && pod.metadata.namespace === service.metadata.namespace ? hostname : undefined;
}

/** FindPort: a numeric targetPort as is; a named one from the containers' (and sidecars') ports with the service port's protocol. */
export function findPort(pod: KubeObject, servicePort: JsonObject): number | undefined {
  const target = servicePort.targetPort;
  if (typeof target === 'number') return target;
  const protocol = servicePort.protocol ?? 'TCP';
  const spec = specOf(pod);
  const containers = [
    ...(Array.isArray(spec.containers) ? spec.containers : []),
    ...(Array.isArray(spec.initContainers) ? spec.initContainers.filter((c) => isJsonObject(c) && c.restartPolicy === 'Always') : []),
  ].filter(isJsonObject);
  for (const container of containers) {
    for (const port of Array.isArray(container.ports) ? container.ports.filter(isJsonObject) : []) {
      if (port.name === target && (port.protocol ?? 'TCP') === protocol && typeof port.containerPort === 'number') return port.containerPort;
    }
  }
  return undefined;
}

export const servicePorts = (service: KubeObject): JsonObject[] => {
  const ports = specOf(service).ports;
  return Array.isArray(ports) ? ports.filter(isJsonObject) : [];
};

/** The service's labels with the headless label set or removed, as both controllers label their objects. */
export function labelsFromService(service: KubeObject): Record<string, string> {
  const labels: Record<string, string> = { ...(service.metadata.labels ?? {}) };
  if (isHeadless(service)) labels[headlessServiceLabel] = '';
  else delete labels[headlessServiceLabel];
  return labels;
}

/**
 * TriggerTimeTracker: per Service, the trigger times seen at its last sync (each pod's Ready
 * transition, the Service's creation); a sync's trigger time is the earliest one that changed since.
 */
export class TriggerTimeTracker {
  readonly #states = new Map<string, { pods: Map<string, number>; service: number }>();

  /** The annotation value for this sync, or undefined when nothing triggered it. */
  compute(key: string, service: KubeObject, pods: readonly KubeObject[]): string | undefined {
    const state = this.#states.get(key);
    const next = { pods: new Map<string, number>(), service: parseTimestamp(service.metadata.creationTimestamp) ?? 0 };
    let earliest: number | undefined;
    const consider = (time: number): void => {
      earliest = earliest === undefined ? time : Math.min(earliest, time);
    };
    for (const pod of pods) {
      const time = parseTimestamp(readyCondition(pod)?.lastTransitionTime);
      if (time === undefined) continue;
      const name = pod.metadata.name ?? '';
      next.pods.set(name, time);
      if (time > (state?.pods.get(name) ?? -Infinity)) consider(time);
    }
    if (next.service > (state?.service ?? -Infinity)) consider(next.service);
    this.#states.set(key, next);
    return earliest === undefined ? undefined : formatTimestamp(earliest);
  }

  forget(key: string): void {
    this.#states.delete(key);
  }
}
