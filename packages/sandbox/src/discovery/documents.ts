// Discovery documents built from the registry: /version, the legacy /api and /apis documents, the
// per-group-version APIResourceLists, and the aggregated (apidiscovery.k8s.io v2/v2beta1) lists
// kubectl asks for first. Rebuilt lazily when the registry changes (a CRD appears at once).

import { createHash } from 'node:crypto';
import type { Registry } from '../registry/registry.ts';
import { apiVersionOf, type HandledSubresource, type ResourceDefinition } from '../registry/types.ts';

export const serverVersion = {
  major: '1',
  minor: '32',
  gitVersion: 'v1.32.0',
  gitCommit: '0000000000000000000000000000000000000000',
  gitTreeState: 'clean',
  buildDate: '2024-12-11T00:00:00Z',
  goVersion: 'go1.23.3',
  compiler: 'gc',
  platform: 'linux/amd64',
};

/** Every subresource of a resource, in name order as discovery lists them. */
function subresourcesOf(def: ResourceDefinition): HandledSubresource[] {
  const out: HandledSubresource[] = [...def.subresources];
  if (def.strategy.prepareForFinalizeUpdate) out.push({ name: 'finalize', kind: def.kind, verbs: ['update'] });
  if (def.scale) out.push({ name: 'scale', group: 'autoscaling', version: 'v1', kind: 'Scale', verbs: ['get', 'patch', 'update'] });
  if (def.strategy.hasStatusSubresource) out.push({ name: 'status', kind: def.kind, verbs: ['get', 'patch', 'update'] });
  return out.sort((a, b) => (a.name < b.name ? -1 : 1));
}

function apiResources(defs: readonly ResourceDefinition[]): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  for (const def of defs) {
    const entry: Record<string, unknown> = {
      name: def.resource,
      singularName: def.singular,
      namespaced: def.namespaced,
      kind: def.kind,
      verbs: [...def.verbs],
    };
    if (def.shortNames.length) entry.shortNames = [...def.shortNames];
    if (def.categories.length) entry.categories = [...def.categories];
    if (def.storageVersionHash) entry.storageVersionHash = def.storageVersionHash;
    out.push(entry);
    for (const sub of subresourcesOf(def)) {
      const subEntry: Record<string, unknown> = { name: `${def.resource}/${sub.name}`, singularName: '', namespaced: def.namespaced };
      if (sub.group !== undefined) subEntry.group = sub.group;
      if (sub.version !== undefined) subEntry.version = sub.version;
      subEntry.kind = sub.kind;
      subEntry.verbs = [...sub.verbs];
      out.push(subEntry);
    }
  }
  return out.sort((a, b) => (String(a.name) < String(b.name) ? -1 : 1));
}

function aggregatedResource(def: ResourceDefinition): Record<string, unknown> {
  const responseKind = def.custom ? { group: def.group, version: def.version, kind: def.kind } : { group: '', version: '', kind: def.kind };
  const entry: Record<string, unknown> = {
    resource: def.resource,
    responseKind,
    scope: def.namespaced ? 'Namespaced' : 'Cluster',
    singularResource: def.singular,
    verbs: [...def.verbs],
  };
  if (def.shortNames.length) entry.shortNames = [...def.shortNames];
  if (def.categories.length) entry.categories = [...def.categories];
  const subs = subresourcesOf(def);
  if (subs.length) {
    entry.subresources = subs.map((sub) => ({
      subresource: sub.name,
      responseKind: sub.group !== undefined ? { group: sub.group, version: sub.version, kind: sub.kind } : { ...responseKind, kind: sub.kind },
      verbs: [...sub.verbs],
    }));
  }
  return entry;
}

export class DiscoveryDocuments {
  readonly #registry: Registry;
  #cache = new Map<string, { body: string; etag: string }>();
  #generation = -1;

  constructor(registry: Registry) {
    this.#registry = registry;
  }

  #cached(key: string, build: () => unknown): { body: string; etag: string } {
    if (this.#generation !== this.#registry.generation) {
      this.#cache = new Map();
      this.#generation = this.#registry.generation;
    }
    let hit = this.#cache.get(key);
    if (!hit) {
      const body = JSON.stringify(build());
      hit = { body, etag: `"${createHash('sha512').update(body).digest('hex').slice(0, 64).toUpperCase()}"` };
      this.#cache.set(key, hit);
    }
    return hit;
  }

  legacyVersions(serverAddress: string): string {
    return JSON.stringify({
      kind: 'APIVersions',
      versions: ['v1'],
      serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress }],
    });
  }

  #groupEntry(name: string, versions: readonly string[]): Record<string, unknown> {
    const gv = versions.map((version) => ({ groupVersion: apiVersionOf(name, version), version }));
    return { name, versions: gv, preferredVersion: gv[0] };
  }

  groupList(): string {
    return this.#cached('groups', () => ({
      kind: 'APIGroupList',
      apiVersion: 'v1',
      groups: this.#registry
        .groups()
        .filter((g) => g.name !== '')
        .map((g) => this.#groupEntry(g.name, g.versions)),
    })).body;
  }

  /** `/apis/GROUP`, or undefined for an unknown group. */
  group(name: string): string | undefined {
    const group = this.#registry.group(name);
    if (!group || !name) return undefined;
    return this.#cached(`group/${name}`, () => ({ kind: 'APIGroup', apiVersion: 'v1', ...this.#groupEntry(name, group.versions) })).body;
  }

  /** `/api/v1` or `/apis/GROUP/VERSION`, or undefined when nothing is served there. */
  resourceList(group: string, version: string): string | undefined {
    const defs = this.#registry.groupVersionResources(group, version);
    if (!defs.length) return undefined;
    return this.#cached(`gv/${group}/${version}`, () =>
      group
        ? { kind: 'APIResourceList', apiVersion: 'v1', groupVersion: apiVersionOf(group, version), resources: apiResources(defs) }
        : { kind: 'APIResourceList', groupVersion: 'v1', resources: apiResources(defs) },
    ).body;
  }

  /** The aggregated discovery document of `/api` (legacy) or `/apis`. */
  aggregated(legacy: boolean, version: 'v2' | 'v2beta1'): { body: string; etag: string } {
    return this.#cached(`aggregated/${legacy}/${version}`, () => {
      const groups = this.#registry.groups().filter((g) => (legacy ? g.name === '' : g.name !== ''));
      return {
        kind: 'APIGroupDiscoveryList',
        apiVersion: `apidiscovery.k8s.io/${version}`,
        metadata: {},
        items: groups.map((g) => ({
          metadata: legacy ? { creationTimestamp: null } : { name: g.name, creationTimestamp: null },
          versions: g.versions.map((v) => ({
            version: v,
            resources: this.#registry
              .groupVersionResources(g.name, v)
              .sort((a, b) => (a.resource < b.resource ? -1 : 1))
              .map(aggregatedResource),
            freshness: 'Current',
          })),
        })),
      };
    });
  }
}
