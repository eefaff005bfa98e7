// A configurable ResourceStrategy covering the patterns of the real registry: status reset on
// create, status separation between the main resource and `/status`, and the generation rules
// (spec changes; Deployments also annotation changes; custom resources anything outside metadata).

import type { FieldError } from '../errors.ts';
import { jsonEqual, type KubeObject } from '../meta/object.ts';
import type { TypeMismatch } from '../openapi/type-mismatch.ts';
import type { ResourceStrategy, WriteContext } from './types.ts';

/** Defaulting and validation of one kind, supplied by the validation/defaults modules or a CRD. */
export interface KindRules {
  applyDefaults(object: KubeObject, ctx: WriteContext): void;
  validateCreate(object: KubeObject): FieldError[];
  validateUpdate(object: KubeObject, old: KubeObject): FieldError[];
  validateStatusUpdate(object: KubeObject, old: KubeObject): FieldError[];
  dropUnknownFields?(object: KubeObject): string[];
  typeMismatch?(object: KubeObject): TypeMismatch | undefined;
  omitEmpty?(object: KubeObject): void;
  warnings?(object: KubeObject): string[];
}

/** Which changes bump metadata.generation. */
export type GenerationRule = 'spec' | 'spec-and-annotations' | 'all-but-metadata' | 'all-but-metadata-and-status';

/** What a `/status` write may change besides status. */
export type StatusMetadataRule =
  /** Pods: labels, annotations and finalizers persist; ownerReferences do not. */
  | 'keep-metadata-but-owners'
  /** Deployments, ReplicaSets, StatefulSets: everything but labels. */
  | 'keep-metadata-but-labels'
  /** Most built-ins: metadata edits persist. */
  | 'keep-metadata'
  /** Custom resources, ValidatingAdmissionPolicies (ResetObjectMetaForStatus): only .status. */
  | 'status-only';

export interface StrategyConfig {
  rules: KindRules;
  /** undefined: no metadata.generation. */
  generation?: GenerationRule;
  /** undefined: no `/status` subresource. */
  status?: StatusMetadataRule;
  requiresResourceVersionOnUpdate?: boolean;
  /** The status a new object starts with when the kind has a status subresource; undefined drops it. */
  initialStatus?(object: KubeObject): unknown;
  /** Extra PrepareForCreate work (namespace finalizers, service defaults…). */
  prepareForCreate?(object: KubeObject, ctx: WriteContext): void;
  /** Extra PrepareForUpdate work. */
  prepareForUpdate?(object: KubeObject, old: KubeObject, ctx: WriteContext): void;
  /** Namespaces: what a `/finalize` update restores. */
  prepareForFinalize?(object: KubeObject, old: KubeObject): void;
  extras?: Partial<
    Pick<
      ResourceStrategy,
      | 'gracePeriod'
      | 'beginDeletion'
      | 'blocksDeletion'
      | 'defaultPropagation'
      | 'prepareForEphemeralContainersUpdate'
      | 'validateEphemeralContainersUpdate'
    >
  >;
}

const withoutKeys = (object: KubeObject, keys: readonly string[]): Record<string, unknown> => {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(object)) if (!keys.includes(k)) out[k] = v;
  return out;
};

function generationChanged(rule: GenerationRule, object: KubeObject, old: KubeObject): boolean {
  switch (rule) {
    case 'spec':
      return !jsonEqual(object.spec, old.spec);
    case 'spec-and-annotations':
      return !jsonEqual(object.spec, old.spec) || !jsonEqual(object.metadata.annotations ?? {}, old.metadata.annotations ?? {});
    case 'all-but-metadata':
      return !jsonEqual(withoutKeys(object, ['metadata']), withoutKeys(old, ['metadata']));
    case 'all-but-metadata-and-status':
      return !jsonEqual(withoutKeys(object, ['metadata', 'status']), withoutKeys(old, ['metadata', 'status']));
  }
}

function restoreStatusWriteMetadata(rule: StatusMetadataRule, object: KubeObject, old: KubeObject): void {
  const meta = object.metadata;
  const restore = (field: 'labels' | 'annotations' | 'finalizers' | 'ownerReferences'): void => {
    if (old.metadata[field] === undefined) delete meta[field];
    else meta[field] = old.metadata[field] as never;
  };
  switch (rule) {
    case 'keep-metadata':
      return;
    case 'keep-metadata-but-owners':
      restore('ownerReferences');
      return;
    case 'keep-metadata-but-labels':
      restore('labels');
      return;
    case 'status-only': {
      const status = object.status;
      for (const key of Object.keys(object)) delete object[key];
      Object.assign(object, old, { metadata: { ...old.metadata, managedFields: meta.managedFields } });
      if (status === undefined) delete object.status;
      else object.status = status;
      if (meta.managedFields === undefined) delete object.metadata.managedFields;
      return;
    }
  }
}

export function makeStrategy(config: StrategyConfig): ResourceStrategy {
  const { rules } = config;
  return {
    tracksGeneration: config.generation !== undefined,
    hasStatusSubresource: config.status !== undefined,
    requiresResourceVersionOnUpdate: config.requiresResourceVersionOnUpdate ?? false,
    applyDefaults: (object, ctx) => rules.applyDefaults(object, ctx),
    prepareForCreate(object, ctx) {
      if (config.status !== undefined) {
        const initial = config.initialStatus?.(object);
        if (initial === undefined) delete object.status;
        else object.status = initial;
      }
      config.prepareForCreate?.(object, ctx);
    },
    prepareForUpdate(object, old, ctx) {
      if (config.status !== undefined) {
        if (old.status === undefined) delete object.status;
        else object.status = old.status;
      }
      if (config.generation && generationChanged(config.generation, object, old)) {
        object.metadata.generation = (old.metadata.generation ?? 0) + 1;
      }
      config.prepareForUpdate?.(object, old, ctx);
    },
    prepareForStatusUpdate(object, old) {
      if (config.status === undefined) return;
      if (old.spec === undefined) delete object.spec;
      else object.spec = old.spec;
      restoreStatusWriteMetadata(config.status, object, old);
    },
    ...(config.prepareForFinalize ? { prepareForFinalizeUpdate: config.prepareForFinalize } : {}),
    validateCreate: (object) => rules.validateCreate(object),
    validateUpdate: (object, old) => rules.validateUpdate(object, old),
    validateStatusUpdate: (object, old) => rules.validateStatusUpdate(object, old),
    ...(rules.dropUnknownFields ? { dropUnknownFields: (object: KubeObject) => rules.dropUnknownFields?.(object) ?? [] } : {}),
    ...(rules.typeMismatch ? { typeMismatch: (object: KubeObject) => rules.typeMismatch?.(object) } : {}),
    ...(rules.omitEmpty ? { omitEmpty: (object: KubeObject) => rules.omitEmpty?.(object) } : {}),
    ...(rules.warnings ? { warnings: (object: KubeObject) => rules.warnings?.(object) ?? [] } : {}),
    ...config.extras,
  };
}
