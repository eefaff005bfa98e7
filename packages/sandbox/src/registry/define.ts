// Filling in the derived parts of a resource definition (list kind, storage key, the discovery
// storageVersionHash) from the few facts that differ per resource.

import { createHash } from 'node:crypto';
import type { KubeObject } from '../meta/object.ts';
import type { HandledSubresource, ResourceDefinition, ResourceStrategy, ScaleSubresource, TablePrinter } from './types.ts';
import { apiVersionOf, storageKeyOf } from './types.ts';

export const allVerbs = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'] as const;
/** The order the apiextensions server lists custom resource verbs in. */
export const customResourceVerbs = ['delete', 'deletecollection', 'get', 'list', 'patch', 'create', 'update', 'watch'] as const;

/** The discovery storageVersionHash: the first 8 bytes of sha256("group/version/Kind"), base64. */
export function storageVersionHash(group: string, version: string, kind: string): string {
  return createHash('sha256').update(`${group}/${version}/${kind}`).digest().subarray(0, 8).toString('base64');
}

export interface ResourceSpec {
  group: string;
  version: string;
  resource: string;
  kind: string;
  listKind?: string;
  singular?: string;
  namespaced: boolean;
  shortNames?: string[];
  categories?: string[];
  verbs?: readonly string[];
  strategy: ResourceStrategy;
  table: TablePrinter;
  scale?: ScaleSubresource;
  subresources?: readonly HandledSubresource[];
  deleteReturnsObject?: boolean;
  custom?: boolean;
  /** Served but never stored (access reviews): discovery gives no storageVersionHash. */
  notStored?: boolean;
  /** Another resource's storage this one is a view of (events.k8s.io Events → core Events). */
  storage?: { group: string; version: string; resource: string; kind: string };
  toExternal?(stored: KubeObject): KubeObject;
  toStorage?(external: KubeObject): KubeObject;
  openAPIV3Schema?: Readonly<Record<string, unknown>>;
}

export function defineResource(spec: ResourceSpec): ResourceDefinition {
  const storage = spec.storage ?? spec;
  const def: ResourceDefinition = {
    group: spec.group,
    version: spec.version,
    resource: spec.resource,
    singular: spec.singular ?? spec.kind.toLowerCase(),
    kind: spec.kind,
    listKind: spec.listKind ?? `${spec.kind}List`,
    namespaced: spec.namespaced,
    shortNames: spec.shortNames ?? [],
    categories: spec.categories ?? [],
    verbs: spec.verbs ?? allVerbs,
    storageKey: storageKeyOf(storage.group, storage.resource),
    storageApiVersion: apiVersionOf(storage.group, storage.version),
    // Every view of one storage hashes its storage version, so clients see they share one store.
    storageVersionHash: spec.notStored ? undefined : storageVersionHash(storage.group, storage.version, storage.kind),
    strategy: spec.strategy,
    table: spec.table,
    deleteReturnsObject: spec.deleteReturnsObject ?? false,
    custom: spec.custom ?? false,
    subresources: spec.subresources ?? [],
    ...(spec.scale ? { scale: spec.scale } : {}),
    ...(spec.toExternal ? { toExternal: spec.toExternal } : {}),
    ...(spec.toStorage ? { toStorage: spec.toStorage } : {}),
    ...(spec.openAPIV3Schema ? { openAPIV3Schema: spec.openAPIV3Schema } : {}),
  };
  return def;
}
