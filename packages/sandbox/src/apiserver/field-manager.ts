// managedFields bookkeeping of non-apply writes (operation `Update`), delegated to the patch
// module with the kind's merge metadata and the fields the endpoint resets.

import type { KubeObject } from '../meta/object.ts';
import { patchSchemaFromOpenAPI, recordUpdateManagedFields, strategicSchemaFor, type FieldNamePath, type PatchSchema } from '../patch/index.ts';
import { apiVersionOf, type ResourceDefinition } from '../registry/types.ts';

export interface FieldManagerRequest {
  manager: string;
  /** The endpoint's group/version. */
  apiVersion: string;
  subresource: string | undefined;
  now: number;
}

const schemas = new WeakMap<ResourceDefinition, PatchSchema | undefined>();

/** The merge metadata of a resource: compiled-in for built-ins, read from the CRD schema for custom resources. */
export function patchSchemaOf(def: ResourceDefinition): PatchSchema | undefined {
  if (!schemas.has(def)) {
    const schema = def.custom
      ? def.openAPIV3Schema
        ? patchSchemaFromOpenAPI(def.openAPIV3Schema)
        : undefined
      : strategicSchemaFor(apiVersionOf(def.group, def.version), def.kind);
    schemas.set(def, schema);
  }
  return schemas.get(def);
}

/** What an endpoint resets, so nobody gains ownership of it by writing there. */
export function ignoredFieldsOf(def: ResourceDefinition, subresource: string | undefined): FieldNamePath[] {
  if (subresource === 'status') return [['spec']];
  return def.strategy.hasStatusSubresource ? [['status']] : [];
}

/** Sets `object.metadata.managedFields` for an Update-operation write of `object` over `old`. */
export function manageFieldsOnUpdate(def: ResourceDefinition, object: KubeObject, old: KubeObject | undefined, request: FieldManagerRequest): void {
  const recorded = recordUpdateManagedFields({
    live: old,
    updated: object,
    manager: request.manager,
    apiVersion: request.apiVersion,
    ...(request.subresource ? { subresource: request.subresource } : {}),
    schema: patchSchemaOf(def),
    ignoredFields: ignoredFieldsOf(def, request.subresource),
    now: request.now,
  }) as KubeObject;
  const managed = recorded.metadata?.managedFields;
  if (managed === undefined) delete object.metadata.managedFields;
  else object.metadata.managedFields = managed;
}
