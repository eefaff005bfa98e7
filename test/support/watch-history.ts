// What happened on an API server, from its watches: every change of the recorded resources since the history
// started, in write order (resourceVersion, which orders writes across resources on kube-apiserver, where it is
// etcd's revision, as on the sandbox). Watches deliver every change of a resource in order, so a replay of them
// sees every state an object went through, on any backend. A watch that lost changes (410 Gone) makes every
// later read fail rather than answer with a gap. Reads first wait until the watches have caught up with the
// API server: a list's objects are each at the version the history last saw of them.

import type { KubeObject as StoredObject } from '@podops/sandbox';
import { ApiError, type KubeClient, type KubeObject } from '../../src/kube/client.ts';
import { DAEMONSETS, DEPLOYMENTS, JOBS, NAMESPACES, PODS, PODTRANSITIONRULES, REPLICASETS, ROLLOUTLIFECYCLES, STATEFULSETS, resourcePath, type ResourceType } from '../../src/kube/resources.ts';

export interface HistoryRecord {
  /** The plural, then `.group` for other groups than core (`deployments.apps`), as the sandbox's write log names it. */
  readonly resource: string;
  readonly type: 'ADDED' | 'MODIFIED' | 'DELETED';
  readonly namespace: string | undefined;
  readonly name: string;
  readonly resourceVersion: number;
  /** When the change arrived (milliseconds since the epoch): a moment after it was written. */
  readonly time: number;
  /** The object as written (for DELETED: its last state), typed as the sandbox's write log types it. */
  readonly object: StoredObject;
}

export interface HistoryFilter {
  resource?: string;
  namespace?: string;
  name?: string;
  type?: HistoryRecord['type'];
  /** Only changes after this resourceVersion (read `resourceVersion()` before the step under test). */
  after?: number;
}

export interface ClusterHistory {
  /** The records a filter (or a resource's name) selects, in write order, once the watches caught up. */
  records(filter?: string | HistoryFilter): Promise<HistoryRecord[]>;
  /** The API server's current resourceVersion. */
  resourceVersion(): Promise<number>;
  stop(): void;
}

/** What the end-to-end tests replay. */
export const RECORDED: readonly ResourceType[] = [PODS, REPLICASETS, DEPLOYMENTS, STATEFULSETS, DAEMONSETS, JOBS, NAMESPACES, PODTRANSITIONRULES, ROLLOUTLIFECYCLES];

const storageKey = (type: ResourceType): string => (type.group ? `${type.resource}.${type.group}` : type.resource);
const keyOf = (object: KubeObject): string => `${object.metadata.namespace ?? ''}/${object.metadata.name ?? ''}`;
const version = (object: KubeObject): number => Number((object.metadata as { resourceVersion?: string }).resourceVersion);

/** How long the first list of a resource is tried. */
const LIST_RETRY_MS = 30_000;
/** How long a read waits for the watches to catch up with the API server. */
const CATCH_UP_MS = 15_000;

class RecordedResource {
  readonly records: HistoryRecord[] = [];
  /** The version last seen of each object (for catching up). */
  readonly seen = new Map<string, number>();
  lost: string | undefined;
  readonly #client: KubeClient;
  readonly #type: ResourceType;
  readonly #signal: AbortSignal;

  constructor(client: KubeClient, type: ResourceType, signal: AbortSignal) {
    this.#client = client;
    this.#type = type;
    this.#signal = signal;
  }

  get type(): ResourceType {
    return this.#type;
  }

  /**
   * Lists once, then follows the changes from there in the background. The list is tried again for a while: a
   * custom resource's storage answers 503 for a moment after its CRD was established.
   */
  async start(): Promise<void> {
    const deadline = Date.now() + LIST_RETRY_MS;
    let list;
    for (;;) {
      try {
        list = await this.#client.list<KubeObject>(this.#type);
        break;
      } catch (err) {
        if (Date.now() > deadline) throw err;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
    for (const object of list.items) this.seen.set(keyOf(object), version(object));
    void this.#follow(list.metadata.resourceVersion ?? '0');
  }

  async #follow(from: string): Promise<void> {
    let resourceVersion = from;
    while (!this.#signal.aborted && !this.lost) {
      try {
        for await (const event of this.#client.watch<KubeObject>(resourcePath(this.#type), { resourceVersion, allowWatchBookmarks: true }, this.#signal)) {
          if (event.type === 'ERROR') {
            this.lost = `the watch of ${storageKey(this.#type)} ended with ${JSON.stringify(event.object)}: changes were lost`;
            return;
          }
          resourceVersion = (event.object.metadata as { resourceVersion?: string }).resourceVersion ?? resourceVersion;
          if (event.type === 'BOOKMARK') continue;
          this.#record(event.type, event.object);
        }
      } catch (err) {
        if (this.#signal.aborted) return;
        if (err instanceof ApiError && err.code === 410) {
          this.lost = `the watch of ${storageKey(this.#type)} from ${resourceVersion} is gone: changes were lost`;
          return;
        }
        // The connection broke: watch again from the last version seen.
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  }

  #record(type: HistoryRecord['type'], object: KubeObject): void {
    const key = keyOf(object);
    if (type === 'DELETED') this.seen.delete(key);
    else this.seen.set(key, version(object));
    this.records.push({ resource: storageKey(this.#type), type, namespace: object.metadata.namespace, name: object.metadata.name ?? '', resourceVersion: version(object), time: Date.now(), object: object as StoredObject });
  }

  /** Whether the history has seen every object of `namespace` (or all) as the list shows it, and no more. */
  caughtUpWith(items: readonly KubeObject[], namespace: string | undefined): boolean {
    const listed = new Map(items.map((object) => [keyOf(object), version(object)]));
    for (const [key, rv] of listed) if ((this.seen.get(key) ?? -1) < rv) return false;
    for (const key of this.seen.keys()) if ((namespace === undefined || key.startsWith(`${namespace}/`)) && !listed.has(key)) return false;
    return true;
  }
}

export async function startHistory(client: KubeClient, types: readonly ResourceType[] = RECORDED): Promise<ClusterHistory> {
  const abort = new AbortController();
  const resources = types.map((type) => new RecordedResource(client, type, abort.signal));
  await Promise.all(resources.map((resource) => resource.start()));

  const catchUp = async (resource: RecordedResource, namespace: string | undefined): Promise<void> => {
    const scope = resource.type.namespaced ? namespace : undefined;
    const { items } = await client.list<KubeObject>(resource.type, { ...(scope !== undefined && { namespace: scope }) });
    const deadline = Date.now() + CATCH_UP_MS;
    while (!resource.caughtUpWith(items, scope)) {
      if (resource.lost) return;
      if (Date.now() > deadline) throw new Error(`the history of ${storageKey(resource.type)} did not catch up with the API server in ${CATCH_UP_MS / 1000} s`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  };

  return {
    async records(filter = {}) {
      const f: HistoryFilter = typeof filter === 'string' ? { resource: filter } : filter;
      const selected = resources.filter((r) => f.resource === undefined || storageKey(r.type) === f.resource);
      if (!selected.length) throw new Error(`the history records ${resources.map((r) => storageKey(r.type)).join(', ')}, not ${f.resource}`);
      await Promise.all(selected.map((r) => catchUp(r, f.namespace)));
      const lost = selected.find((r) => r.lost);
      if (lost) throw new Error(lost.lost);
      return selected
        .flatMap((r) => r.records)
        .filter(
          (r) =>
            (f.namespace === undefined || r.namespace === f.namespace) &&
            (f.name === undefined || r.name === f.name) &&
            (f.type === undefined || r.type === f.type) &&
            (f.after === undefined || r.resourceVersion > f.after),
        )
        .sort((a, b) => a.resourceVersion - b.resourceVersion);
    },
    async resourceVersion() {
      return Number((await client.list(NAMESPACES, { limit: 1 })).metadata.resourceVersion);
    },
    stop: () => abort.abort(),
  };
}
