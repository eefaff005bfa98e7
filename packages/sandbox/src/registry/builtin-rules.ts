// Defaulting, validation and unknown-field handling of a built-in kind: the defaults and
// validation modules keyed by group/version/kind, and the kind's OpenAPI schema for the fields
// its Go type would not decode and the empty values it would not encode.

import { applyDefaults } from '../defaults/index.ts';
import type { ApiServerFeatureGates } from '../feature-gates.ts';
import { randomSuffix } from '../meta/names.ts';
import { builtinSchemaName, builtinSchemas } from '../openapi/builtin-schemas.ts';
import { dropEmptyValues } from '../openapi/empty-values.ts';
import { findTypeMismatch } from '../openapi/type-mismatch.ts';
import { dropUnknownFields } from '../openapi/unknown-fields.ts';
import { validateCreate, validateStatusUpdate, validateUpdate } from '../validation/index.ts';
import type { ServiceAllocators } from './service-allocation.ts';
import type { KindRules } from './strategy.ts';
import type { GroupVersionKind } from './types.ts';

export function builtinRules(gvk: GroupVersionKind, allocators: ServiceAllocators, featureGates: ApiServerFeatureGates = {}): KindRules {
  const schemaName = builtinSchemaName(gvk.group, gvk.version, gvk.kind);
  return {
    applyDefaults: (object, ctx) =>
      applyDefaults(gvk, object, {
        operation: ctx.operation,
        random: () => randomSuffix(),
        allocateClusterIP: () => allocators.allocateClusterIP(),
        allocateNodePort: () => allocators.allocateNodePort(),
        ...(ctx.old ? { old: ctx.old } : {}),
        featureGates,
      }),
    validateCreate: (object) => validateCreate(gvk, object),
    validateUpdate: (object, old) => validateUpdate(gvk, object, old),
    validateStatusUpdate: (object, old) => validateStatusUpdate(gvk, object, old),
    ...(schemaName
      ? {
          dropUnknownFields: (object) => dropUnknownFields(builtinSchemas, schemaName, object),
          typeMismatch: (object) => findTypeMismatch(builtinSchemas, schemaName, object),
          omitEmpty: (object) => dropEmptyValues(builtinSchemas, schemaName, object),
        }
      : {}),
  };
}
