// The pod requests of a reconciler answered as the API server answers them, without one: merge patches applied
// under their resourceVersion guard (409 Conflict otherwise), deletes with their uid precondition, 404 for a pod
// that is not there. The test seeds the pods and reads back every request made; the events recorded, by reason.

import type { Pod } from '../../src/api/kube.ts';
import { ApiError, type KubeClient } from '../../src/kube/client.ts';
import { keyOf } from '../../src/kube/controller.ts';
import type { EventRecorder } from '../../src/kube/events.ts';
import type { ResourceType } from '../../src/kube/resources.ts';

export interface SentRequest {
  verb: 'patch' | 'delete';
  resource: string;
  name: string;
  body?: unknown;
  options?: Record<string, unknown>;
}

const refused = (code: number, reason: string, message: string): ApiError => new ApiError(code, { status: 'Failure', code, reason, message }, 'fake');

/** RFC 7386: objects merge, null removes. */
function merged(target: unknown, patch: unknown): unknown {
  if (typeof patch !== 'object' || patch === null || Array.isArray(patch)) return structuredClone(patch);
  const result: Record<string, unknown> = typeof target === 'object' && target !== null && !Array.isArray(target) ? { ...(target as Record<string, unknown>) } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete result[key];
    else result[key] = merged(result[key], value);
  }
  return result;
}

export class FakePodClient {
  readonly requests: SentRequest[] = [];
  readonly #pods = new Map<string, Pod>();
  #resourceVersion = 100;

  /** This one, typed as the client the code under test takes (which may call only patch and delete). */
  get client(): KubeClient {
    return this as unknown as KubeClient;
  }

  /** The pod as the API server stores it; a copy, with a resourceVersion. */
  put(pod: Pod): Pod {
    const stored = { ...structuredClone(pod), metadata: { ...structuredClone(pod.metadata), resourceVersion: String(++this.#resourceVersion) } };
    this.#pods.set(keyOf(pod.metadata.namespace, pod.metadata.name ?? ''), stored);
    return stored;
  }

  stored(namespace: string, name: string): Pod | undefined {
    return this.#pods.get(keyOf(namespace, name));
  }

  async patch<T>(type: ResourceType, namespace: string, name: string, patchType: string, body: { metadata?: { resourceVersion?: string } }, options: Record<string, unknown> = {}): Promise<T> {
    this.requests.push({ verb: 'patch', resource: type.resource, name, body, options });
    if (type.resource !== 'pods' || patchType !== 'merge') throw new Error(`the fake answers merge patches of pods only, not a ${patchType} patch of ${type.resource}`);
    const pod = this.stored(namespace, name);
    if (!pod) throw refused(404, 'NotFound', `pods "${name}" not found`);
    const guard = body.metadata?.resourceVersion;
    if (guard !== undefined && guard !== pod.metadata.resourceVersion) throw refused(409, 'Conflict', 'the object has been modified; please apply your changes to the latest version and try again');
    return this.put(merged(pod, body) as Pod) as T;
  }

  async delete<T>(type: ResourceType, namespace: string, name: string, options: { preconditions?: { uid?: string } } = {}): Promise<T> {
    this.requests.push({ verb: 'delete', resource: type.resource, name, options });
    const pod = this.stored(namespace, name);
    if (!pod) throw refused(404, 'NotFound', `pods "${name}" not found`);
    if (options.preconditions?.uid !== undefined && options.preconditions.uid !== pod.metadata.uid) throw refused(409, 'Conflict', 'Precondition failed: UID in precondition does not match');
    this.#pods.delete(keyOf(namespace, name));
    return pod as T;
  }
}

/** An event recorder that keeps the reason of each event recorded. */
export function recordedReasons(): { reasons: string[]; recorder: EventRecorder } {
  const reasons: string[] = [];
  return { reasons, recorder: { event: (_object: unknown, _type: string, reason: string) => void reasons.push(reason) } as unknown as EventRecorder };
}
