// A one-kind in-memory API server for protocol tests: optimistic concurrency, the podops mutating
// webhook on pods and pods/status, the validating webhook on pods only (as the webhook configurations
// register them), and the status strategy of the real server (a status write keeps the stored spec but
// takes the incoming labels). Every stored state is recorded for invariant checks.

import type { Pod } from '../../src/api/kube.ts';
import { mutatePod, type PodWriteOperation } from '../../src/lifecycle/mutate.ts';
import type { PodWrite } from '../../src/lifecycle/pod-write.ts';
import { validatePod } from '../../src/lifecycle/validate.ts';
import type { Nanos } from '../../src/lifecycle/time.ts';
import type { PodWriter } from '../../src/sdk/writer.ts';

export class ConflictError extends Error {
  override name = 'ConflictError';
}

export class AdmissionDeniedError extends Error {
  override name = 'AdmissionDeniedError';
}

export interface StoredState {
  /** Which write produced it: `create`, `update` or `status`. */
  via: 'create' | 'update' | 'status';
  before: Pod | undefined;
  after: Pod;
}

function mergeMap(map: Record<string, string> | undefined, patch: Record<string, string | null>): Record<string, string> {
  const merged = { ...map };
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete merged[key];
    else merged[key] = value;
  }
  return merged;
}

const keyOf = (pod: Pod): string => `${pod.metadata.namespace ?? ''}/${pod.metadata.name ?? ''}`;
const clone = (pod: Pod): Pod => structuredClone(pod);

export class FakePodServer implements PodWriter {
  readonly history: StoredState[] = [];
  readonly #pods = new Map<string, Pod>();
  #resourceVersion = 0;
  #clock: Nanos;
  /** Writes per kind, to count API writes of a lifecycle. */
  readonly writes = { create: 0, update: 0, status: 0 };

  constructor(start: Nanos = 1_700_000_000_000_000_000n) {
    this.#clock = start;
  }

  /** A strictly increasing clock: each admission happens one millisecond after the previous one. */
  now(): Nanos {
    this.#clock += 1_000_000n;
    return this.#clock;
  }

  async get(namespace: string, name: string): Promise<Pod> {
    const pod = this.#pods.get(`${namespace}/${name}`);
    if (!pod) throw new Error(`pods "${name}" not found`);
    return clone(pod);
  }

  peek(namespace: string, name: string): Pod {
    const pod = this.#pods.get(`${namespace}/${name}`);
    if (!pod) throw new Error(`pods "${name}" not found`);
    return pod;
  }

  isConflict(err: unknown): boolean {
    return err instanceof ConflictError;
  }

  async create(pod: Pod): Promise<Pod> {
    if (this.#pods.has(keyOf(pod))) throw new Error(`pods "${pod.metadata.name}" already exists`);
    return this.#admit('create', clone(pod), undefined);
  }

  async update(pod: Pod): Promise<Pod> {
    const stored = this.#current(pod);
    // The main resource ignores status changes, as the pod strategy does.
    const incoming = { ...clone(pod), status: clone(stored).status };
    return this.#admit('update', incoming, stored);
  }

  async updateStatus(pod: Pod): Promise<Pod> {
    const stored = this.#current(pod);
    const incoming = { ...clone(pod), spec: clone(stored).spec };
    return this.#admit('status', incoming, stored);
  }

  /**
   * A PATCH as the real server applies the requests podops sends (podWrite): a merge patch of the metadata
   * (null removes a key, a list replaces the list), guarded by its resourceVersion; through pods/status, a
   * strategic merge patch whose conditions merge by type.
   */
  async patch(namespace: string, name: string, write: PodWrite): Promise<Pod> {
    const stored = this.#current({ metadata: { namespace, name, resourceVersion: write.body.metadata.resourceVersion ?? this.peek(namespace, name).metadata.resourceVersion } });
    const patched = clone(stored);
    const { labels, annotations, finalizers } = write.body.metadata;
    if (labels) patched.metadata.labels = mergeMap(patched.metadata.labels, labels);
    if (annotations) patched.metadata.annotations = mergeMap(patched.metadata.annotations, annotations);
    if (finalizers) patched.metadata.finalizers = [...finalizers];
    if (write.subresource !== 'status') return this.update(patched);
    if (write.patchType !== 'strategic') throw new Error('podops writes pods/status with strategic merge patches');
    const conditions = [...(patched.status?.conditions ?? [])];
    for (const condition of write.body.status?.conditions ?? []) {
      const at = conditions.findIndex((c) => c.type === condition.type);
      if (at >= 0) conditions[at] = { ...conditions[at], ...condition };
      else conditions.push(condition);
    }
    return this.updateStatus({ ...patched, status: { ...patched.status, conditions } });
  }

  #current(pod: Pod): Pod {
    const stored = this.#pods.get(keyOf(pod));
    if (!stored) throw new Error(`pods "${pod.metadata.name}" not found`);
    if (pod.metadata.resourceVersion !== stored.metadata.resourceVersion) {
      throw new ConflictError(`Operation cannot be fulfilled on pods "${pod.metadata.name}": the object has been modified`);
    }
    return stored;
  }

  #admit(via: StoredState['via'], incoming: Pod, stored: Pod | undefined): Pod {
    const operation: PodWriteOperation = stored ? 'UPDATE' : 'CREATE';
    const mutation = mutatePod({ operation, pod: incoming, oldPod: stored, now: this.now() });
    const result: Pod = { ...incoming, metadata: { ...incoming.metadata, labels: mutation.labels } };
    if (mutation.readinessGateAdded) {
      result.spec = { ...result.spec, readinessGates: [...(result.spec?.readinessGates ?? []), { conditionType: 'pod.kusionstack.io/service-ready' }] };
    }
    if (via !== 'status') {
      const errors = validatePod(result);
      if (errors.length > 0) throw new AdmissionDeniedError(`failed to validate PodOpsLifecycleWebhook, ${errors[0]}`);
    }
    result.metadata.resourceVersion = String(++this.#resourceVersion);
    this.#pods.set(keyOf(result), result);
    this.history.push({ via, before: stored, after: result });
    this.writes[via]++;
    return clone(result);
  }
}
