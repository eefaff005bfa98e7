// The test controls of the simulated kubelet: pod annotations a test (or kubectl) sets to steer
// containers (docs/sandbox-nodes.md).

import type { KubeObject } from '../meta/object.ts';

export const readyAnnotation = 'sandbox.podops.io/ready';
export const crashAnnotation = 'sandbox.podops.io/crash';

/** `ready: "false"` makes running containers unready; undefined leaves readiness to the kubelet. */
export function readinessOverride(pod: KubeObject): boolean | undefined {
  const value = pod.metadata.annotations?.[readyAnnotation];
  return value === 'false' ? false : undefined;
}

/**
 * How many crashes each container should have had: `c`, `c=3`, `c,d=2`, `*` (every container named in
 * `containers`). Malformed entries are ignored.
 */
export function crashRequests(pod: KubeObject, containers: readonly string[]): Map<string, number> {
  const requests = new Map<string, number>();
  const value = pod.metadata.annotations?.[crashAnnotation];
  if (!value) return requests;
  for (const entry of value.split(',')) {
    const [name = '', count = '1'] = entry.trim().split('=');
    const times = Number(count);
    if (!name || !Number.isInteger(times) || times < 0) continue;
    for (const target of name === '*' ? containers : [name]) requests.set(target, Math.max(requests.get(target) ?? 0, times));
  }
  return requests;
}
