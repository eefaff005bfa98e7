// The set of served resources. Built-ins are registered at start; the CRD controller adds and
// removes custom resources while the server runs, and listeners (discovery, OpenAPI) rebuild on change.

import type { ResourceDefinition } from './types.ts';
import { apiVersionOf } from './types.ts';

export interface GroupInfo {
  name: string;
  /** Served versions, preferred first. */
  versions: string[];
}

export class Registry {
  readonly #byPath = new Map<string, ResourceDefinition>();
  /** Group names in discovery order (built-ins in registration order, then custom groups by name). */
  readonly #groups = new Map<string, { versions: string[]; custom: boolean }>();
  readonly #listeners = new Set<() => void>();
  #generation = 0;

  /** Bumped on every change, for caches keyed on the registry's content. */
  get generation(): number {
    return this.#generation;
  }

  onChange(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  add(defs: readonly ResourceDefinition[]): void {
    for (const def of defs) {
      this.#byPath.set(pathKey(def.group, def.version, def.resource), def);
      let group = this.#groups.get(def.group);
      if (!group) {
        group = { versions: [], custom: def.custom };
        this.#groups.set(def.group, group);
      }
      if (!group.versions.includes(def.version)) group.versions.push(def.version);
    }
    this.#changed();
  }

  /** Replaces every definition of one storage key (a CRD's resource), e.g. after the CRD changed. */
  replaceStorage(storageKey: string, defs: readonly ResourceDefinition[], versionOrder: readonly string[]): void {
    this.#removeStorage(storageKey);
    for (const def of defs) this.#byPath.set(pathKey(def.group, def.version, def.resource), def);
    for (const def of defs) {
      const group = this.#groups.get(def.group) ?? { versions: [], custom: def.custom };
      this.#groups.set(def.group, group);
      if (!group.versions.includes(def.version)) group.versions.push(def.version);
    }
    for (const name of new Set(defs.map((d) => d.group))) {
      this.#groups.get(name)?.versions.sort((a, b) => orderIndex(versionOrder, a) - orderIndex(versionOrder, b));
    }
    this.#changed();
  }

  removeStorage(storageKey: string): void {
    this.#removeStorage(storageKey);
    this.#changed();
  }

  #removeStorage(storageKey: string): void {
    for (const [key, def] of this.#byPath) if (def.storageKey === storageKey) this.#byPath.delete(key);
    for (const [name, group] of this.#groups) {
      group.versions = group.versions.filter((v) => this.groupVersionResources(name, v).length > 0);
      if (group.versions.length === 0) this.#groups.delete(name);
    }
  }

  get(group: string, version: string, resource: string): ResourceDefinition | undefined {
    return this.#byPath.get(pathKey(group, version, resource));
  }

  /** The definition serving `apiVersion` + `kind` (owner references name their owner this way). */
  byKind(apiVersion: string, kind: string): ResourceDefinition | undefined {
    for (const def of this.#byPath.values()) {
      if (def.kind === kind && apiVersionOf(def.group, def.version) === apiVersion) return def;
    }
    return undefined;
  }

  /** Every definition, in group then registration order. */
  all(): ResourceDefinition[] {
    return [...this.#byPath.values()];
  }

  /** One definition per storage key: the preferred version of each stored resource. */
  storageResources(): ResourceDefinition[] {
    const seen = new Map<string, ResourceDefinition>();
    for (const group of this.groups()) {
      for (const version of group.versions) {
        for (const def of this.groupVersionResources(group.name, version)) {
          if (!seen.has(def.storageKey)) seen.set(def.storageKey, def);
        }
      }
    }
    return [...seen.values()];
  }

  groups(): GroupInfo[] {
    const entries = [...this.#groups.entries()];
    const builtin = entries.filter(([, g]) => !g.custom);
    const custom = entries.filter(([, g]) => g.custom).sort(([a], [b]) => (a < b ? -1 : 1));
    return [...builtin, ...custom].map(([name, g]) => ({ name, versions: [...g.versions] }));
  }

  group(name: string): GroupInfo | undefined {
    const g = this.#groups.get(name);
    return g ? { name, versions: [...g.versions] } : undefined;
  }

  groupVersionResources(group: string, version: string): ResourceDefinition[] {
    const out: ResourceDefinition[] = [];
    for (const def of this.#byPath.values()) if (def.group === group && def.version === version) out.push(def);
    return out;
  }

  #changed(): void {
    this.#generation++;
    for (const listener of this.#listeners) listener();
  }
}

const pathKey = (group: string, version: string, resource: string): string => `${group}/${version}/${resource}`;

const orderIndex = (order: readonly string[], v: string): number => {
  const i = order.indexOf(v);
  return i < 0 ? order.length : i;
};
