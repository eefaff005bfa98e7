// The patch engine of the sandbox API server: pure functions for PATCH requests (JSON patch, merge
// patch, strategic merge patch) and server-side apply, plus the managedFields bookkeeping of every
// write. Errors are StatusErrors carrying the Status the real kube-apiserver returns.

export { applyJsonPatch, maxJsonPatchOperations } from './json-patch.ts';
export { applyMergePatch } from './merge-patch.ts';
export { applyStrategicMergePatch } from './strategic-merge-patch.ts';
export { strategicSchemaFor } from './builtin-schemas.ts';
export { patchSchemaFromOpenAPI } from './openapi-schema.ts';
export type { ListSchema, MapSchema, PatchSchema, SchemaNode, StructSchema } from './schema.ts';
export { decodePatchBody, patchTypeOf, type PatchType } from './patch-body.ts';
export { decodeGoJson, GoJsonSyntaxError } from './go-json.ts';
export { parseYamlWithinDepth } from './json-depth.ts';
export { builtinPatchTypes, customResourcePatchTypes, patchedObjectInvalid, strategicMergePatchUnsupportedStatus } from './status.ts';
export { sortedJson } from './go-format.ts';
export { applyServerSideApply, type ServerSideApplyInput } from './server-side-apply.ts';
export {
  fieldManagerName,
  patchOptionsInvalidStatus,
  recordUpdateManagedFields,
  validateFieldManager,
  validatePatchOptions,
  type FieldNamePath,
  type UpdateRecord,
} from './managed-fields.ts';
