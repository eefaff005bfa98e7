// What the server knows about one served resource (group/version/resource), as kube-apiserver's
// registry does: names for discovery, scope, verbs, subresources, and the strategy that decides
// defaulting, validation, status separation and generation for writes.

import type { FieldError } from '../errors.ts';
import type { KubeObject } from '../meta/object.ts';
import type { TypeMismatch } from '../openapi/type-mismatch.ts';

export interface GroupVersionKind {
  group: string;
  version: string;
  kind: string;
}

export interface GroupVersionResource {
  group: string;
  version: string;
  resource: string;
}

export interface ColumnDefinition {
  name: string;
  type: string;
  format: string;
  description: string;
  priority: number;
}

/** How a kind is shown by `kubectl get`: column definitions and the cells of one object's row. */
export interface TablePrinter {
  readonly columns: readonly ColumnDefinition[];
  cells(object: KubeObject, now: number): unknown[];
}

/** A subresource with a handler of its own, in discovery's words. */
export interface HandledSubresource {
  name: string;
  /** Group and version of the kind it speaks, when not the resource's own (`policy/v1` Eviction). */
  group?: string;
  version?: string;
  kind: string;
  verbs: readonly string[];
}

/** The scale subresource: where replicas and the selector live in the parent object. */
export interface ScaleSubresource {
  specReplicasPath: string;
  statusReplicasPath: string;
  /** Dotted path of the label selector as a string (CRDs) or undefined for built-ins that derive it. */
  labelSelectorPath?: string;
  /** Built-ins: the selector string from the object. */
  selectorOf?(object: KubeObject): string | undefined;
}

export interface WriteContext {
  /** Milliseconds since the epoch. */
  now: number;
  dryRun: boolean;
  operation: 'create' | 'update';
  /** The stored object, on update. */
  old?: KubeObject;
}

/** Per-kind rules for writes, modelled on the real server's RESTCreateStrategy/RESTUpdateStrategy. */
export interface ResourceStrategy {
  /** Whether metadata.generation is kept (set to 1 on create, bumped by `generationChanged`). */
  readonly tracksGeneration: boolean;
  /** Whether a `/status` subresource exists (main writes then keep the stored status). */
  readonly hasStatusSubresource: boolean;
  /** PUT without metadata.resourceVersion is an error (custom resources) instead of unconditional. */
  readonly requiresResourceVersionOnUpdate: boolean;
  /** Server-side defaulting (the versioned defaults the decoder applies). */
  applyDefaults(object: KubeObject, ctx: WriteContext): void;
  /** Resets fields users may not set on create (status, generation), as PrepareForCreate does. */
  prepareForCreate(object: KubeObject, ctx: WriteContext): void;
  /** Main-resource update: restores what users may not change here (status) and bumps generation. */
  prepareForUpdate(object: KubeObject, old: KubeObject, ctx: WriteContext): void;
  /** `/status` update: restores spec and the metadata the status strategy does not let through. */
  prepareForStatusUpdate(object: KubeObject, old: KubeObject, ctx: WriteContext): void;
  /** Namespaces' `/finalize` update: spec.finalizers may change, status may not. */
  prepareForFinalizeUpdate?(object: KubeObject, old: KubeObject): void;
  /** Pods' `/ephemeralcontainers` update: only spec.ephemeralContainers changes (and what a status write keeps). */
  prepareForEphemeralContainersUpdate?(object: KubeObject, old: KubeObject): void;
  validateEphemeralContainersUpdate?(object: KubeObject, old: KubeObject): FieldError[];
  validateCreate(object: KubeObject): FieldError[];
  validateUpdate(object: KubeObject, old: KubeObject): FieldError[];
  validateStatusUpdate(object: KubeObject, old: KubeObject): FieldError[];
  /** Warnings (response `Warning` headers) about an object that is otherwise accepted. */
  warnings?(object: KubeObject): string[];
  /**
   * Removes the fields the schema does not know (decoding drops them; custom resources are pruned)
   * and returns their paths, for fieldValidation Warn (warnings) and Strict (400).
   */
  dropUnknownFields?(object: KubeObject): string[];
  /** The first value Go's decoder could not put into the kind's type (a number where a label's string goes). */
  typeMismatch?(object: KubeObject): TypeMismatch | undefined;
  /** Removes what encoding the kind's Go type leaves out (empty `omitempty` maps), as a write decodes it. */
  omitEmpty?(object: KubeObject): void;
  /**
   * Graceful deletion (pods): the grace period a DELETE grants, given the requested one; undefined
   * for kinds that are deleted at once.
   */
  gracePeriod?(object: KubeObject, requested: number | undefined): number | undefined;
  /** Namespaces: the first DELETE only marks the object (deletionTimestamp, Terminating phase). */
  beginDeletion?(object: KubeObject, now: number): void;
  /** Something besides metadata.finalizers holds a deleting object (a namespace's spec.finalizers). */
  blocksDeletion?(object: KubeObject): boolean;
  /** The propagation policy of a DELETE that names none (batch/v1 Jobs orphan). */
  readonly defaultPropagation?: 'Background' | 'Orphan';
}

export interface ResourceDefinition {
  readonly group: string;
  readonly version: string;
  readonly resource: string;
  readonly singular: string;
  readonly kind: string;
  readonly listKind: string;
  readonly namespaced: boolean;
  readonly shortNames: readonly string[];
  readonly categories: readonly string[];
  /** Discovery verbs in the order the real server lists them. */
  readonly verbs: readonly string[];
  /** The storage bucket; several served versions (or groups, for events) may share one. */
  readonly storageKey: string;
  /** apiVersion of objects in storage; differs from `group/version` when this view converts. */
  readonly storageApiVersion: string;
  readonly storageVersionHash: string | undefined;
  readonly strategy: ResourceStrategy;
  readonly table: TablePrinter;
  readonly scale?: ScaleSubresource;
  /** Subresources served by handlers of their own (pods' binding, log, eviction…), as discovery lists them. */
  readonly subresources: readonly HandledSubresource[];
  /** DELETE answers with the object (pods, services, namespaces) instead of a Status. */
  readonly deleteReturnsObject: boolean;
  /** True for resources served from CustomResourceDefinitions. */
  readonly custom: boolean;
  /** Custom resources: the version's `openAPIV3Schema` (OpenAPI documents, server-side apply). */
  readonly openAPIV3Schema?: Readonly<Record<string, unknown>>;
  /** Converts a stored object to this view (apiVersion and, for events.k8s.io, field names). */
  toExternal?(stored: KubeObject): KubeObject;
  /** Converts an object of this view to the storage form. */
  toStorage?(external: KubeObject): KubeObject;
}

export const apiVersionOf = (group: string, version: string): string => (group ? `${group}/${version}` : version);

export const storageKeyOf = (group: string, resource: string): string => (group ? `${resource}.${group}` : resource);
