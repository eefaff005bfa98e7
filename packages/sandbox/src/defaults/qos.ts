// The pod's QoS class (status.qosClass), computed from cpu and memory requests and limits of its
// containers and init containers as qos.ComputePodQOS does.

import { isJsonObject, type JsonObject } from '../meta/object.ts';
import { addQuantity, compareQuantity, parseQuantity, type Quantity } from '../validation/quantity.ts';

export type QOSClass = 'Guaranteed' | 'Burstable' | 'BestEffort';

const qosResources = ['cpu', 'memory'];

function positiveQuantities(list: unknown): Map<string, Quantity> {
  const out = new Map<string, Quantity>();
  if (!isJsonObject(list)) return out;
  for (const name of qosResources) {
    const q = parseQuantity(list[name]);
    if (q && q.nano > 0n) out.set(name, q);
  }
  return out;
}

export function computePodQOS(spec: JsonObject): QOSClass {
  const requests = new Map<string, Quantity>();
  const limits = new Map<string, Quantity>();
  let guaranteed = true;
  const containers = [spec.containers, spec.initContainers].flatMap((list) => (Array.isArray(list) ? list.filter(isJsonObject) : []));
  for (const c of containers) {
    const resources = isJsonObject(c.resources) ? c.resources : {};
    for (const [name, q] of positiveQuantities(resources.requests)) {
      const prev = requests.get(name);
      requests.set(name, prev ? addQuantity(prev, q) : q);
    }
    const containerLimits = positiveQuantities(resources.limits);
    for (const [name, q] of containerLimits) {
      const prev = limits.get(name);
      limits.set(name, prev ? addQuantity(prev, q) : q);
    }
    if (!qosResources.every((name) => containerLimits.has(name))) guaranteed = false;
  }
  if (requests.size === 0 && limits.size === 0) return 'BestEffort';
  if (guaranteed) {
    for (const [name, req] of requests) {
      const lim = limits.get(name);
      if (!lim || compareQuantity(lim, req) !== 0) guaranteed = false;
    }
  }
  return guaranteed && requests.size === limits.size ? 'Guaranteed' : 'Burstable';
}
