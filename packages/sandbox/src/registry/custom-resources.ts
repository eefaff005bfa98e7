// The resources a CustomResourceDefinition serves: one definition per served version, sharing the
// storage of the storage version (conversion strategy None: only apiVersion changes), with the
// version's structural schema for pruning, defaulting and validation, the status and scale
// subresources, and the additionalPrinterColumns.

import {
  applySchemaDefaults,
  compareKubeAwareVersions,
  compileSchema,
  crdVersion,
  printerColumnsFor,
  printerRowCells,
  pruneUnknownFields,
  scaleSubresource,
  servedVersions,
  statusSubresourceEnabled,
  storageVersion,
  validateCustomResource,
  versionSchema,
} from '../crd/index.ts';
import { isJsonObject, jsonEqual, readPath, type KubeObject } from '../meta/object.ts';
import { builtinSchemas, objectMetaName } from '../openapi/builtin-schemas.ts';
import { dropEmptyValues } from '../openapi/empty-values.ts';
import { findTypeMismatch } from '../openapi/type-mismatch.ts';
import { validateObjectMetaCreate, validateObjectMetaUpdate } from '../validation/meta.ts';
import { customResourceVerbs, defineResource } from './define.ts';
import { makeStrategy, type KindRules } from './strategy.ts';
import { apiVersionOf, storageKeyOf, type ResourceDefinition, type ScaleSubresource } from './types.ts';

export interface CustomResourceServing {
  storageKey: string;
  definitions: ResourceDefinition[];
  /** Served versions, most preferred first (Kubernetes version priority). */
  versionOrder: string[];
}

/** Replaces the contents of `target` with `source` (rules edit objects in place). */
function assignInPlace(target: KubeObject, source: unknown): void {
  if (!isJsonObject(source)) return;
  for (const key of Object.keys(target)) delete target[key];
  Object.assign(target, source);
}

const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((s): s is string => typeof s === 'string') : []);

export function customResourceServing(crd: KubeObject): CustomResourceServing {
  const spec = isJsonObject(crd.spec) ? crd.spec : {};
  const group = typeof spec.group === 'string' ? spec.group : '';
  const names = isJsonObject(readPath(crd, ['status', 'acceptedNames'])) && readPath(crd, ['status', 'acceptedNames', 'plural'])
    ? (readPath(crd, ['status', 'acceptedNames']) as Record<string, unknown>)
    : isJsonObject(spec.names)
      ? spec.names
      : {};
  const plural = String(names.plural ?? '');
  const kind = String(names.kind ?? '');
  const namespaced = spec.scope !== 'Cluster';
  const storage = storageVersion(crd) ?? '';
  const storageKey = storageKeyOf(group, plural);
  const versionOrder = servedVersions(crd).sort(compareKubeAwareVersions);

  const definitions = versionOrder.map((version) => {
    const rawSchema = versionSchema(crd, version);
    const schema = compileSchema(rawSchema);
    const withStatus = statusSubresourceEnabled(crd, version);
    const scale = scaleSubresource(crd, version);
    const ctx = { kind, group, version, ...(scale ? { scale } : {}) };
    const metaOptions = { namespaced };
    // Objects reach the rules in storage form; they are validated as written, in this version.
    const asServed = (object: KubeObject): KubeObject => ({ ...object, apiVersion: apiVersionOf(group, version) });
    const rules: KindRules = {
      applyDefaults: (object) => assignInPlace(object, applySchemaDefaults(schema, object)),
      // The metadata of a custom resource is decoded by itself, as an ObjectMeta.
      typeMismatch: (object) => findTypeMismatch(builtinSchemas, objectMetaName, object.metadata, { struct: 'ObjectMeta', field: '', path: '.metadata' }),
      // ...and encoded again: what ObjectMeta's Go type leaves out or zeroes goes.
      omitEmpty: (object) => dropEmptyValues(builtinSchemas, objectMetaName, object.metadata),
      dropUnknownFields(object) {
        const { object: pruned, unknownFields } = pruneUnknownFields(schema, object);
        assignInPlace(object, pruned);
        return unknownFields;
      },
      validateCreate: (object) => [...validateObjectMetaCreate(object.metadata, metaOptions), ...validateCustomResource(schema, asServed(object), ctx)],
      validateUpdate: (object, old) => [
        ...validateObjectMetaUpdate(object.metadata, old.metadata),
        ...validateCustomResource(schema, asServed(object), { ...ctx, old }),
      ],
      validateStatusUpdate: (object, old) => [
        ...validateObjectMetaUpdate(object.metadata, old.metadata),
        ...validateCustomResource(schema, asServed(object), { ...ctx, old, subresource: 'status' }),
      ],
    };
    const columns = printerColumnsFor(crdVersion(crd, version));
    const apiVersion = apiVersionOf(group, version);
    const storageApiVersion = apiVersionOf(group, storage);
    const converts = version !== storage;
    const scaleSpec: ScaleSubresource | undefined = scale
      ? {
          specReplicasPath: scale.specReplicasPath,
          statusReplicasPath: scale.statusReplicasPath,
          ...(scale.labelSelectorPath ? { labelSelectorPath: scale.labelSelectorPath } : {}),
        }
      : undefined;
    return defineResource({
      group,
      version,
      resource: plural,
      kind,
      listKind: String(names.listKind ?? `${kind}List`),
      singular: String(names.singular ?? kind.toLowerCase()),
      namespaced,
      shortNames: strings(names.shortNames),
      categories: strings(names.categories),
      verbs: customResourceVerbs,
      custom: true,
      ...(isJsonObject(rawSchema) ? { openAPIV3Schema: rawSchema } : {}),
      storage: { group, version: storage, resource: plural, kind },
      table: { columns: columns.columnDefinitions, cells: (o, now) => printerRowCells(columns, o, now) },
      ...(scaleSpec ? { scale: scaleSpec } : {}),
      strategy: makeStrategy({
        rules,
        generation: withStatus ? 'all-but-metadata-and-status' : 'all-but-metadata',
        ...(withStatus ? { status: 'status-only' as const, initialStatus: () => undefined } : {}),
        requiresResourceVersionOnUpdate: true,
      }),
      // Defaults apply on every read too, as when the real server decodes an object from etcd: a default
      // added to the schema later shows on objects stored before it. Unchanged objects are served as stored.
      toExternal: (o: KubeObject) => {
        const served = converts ? { ...o, apiVersion } : o;
        const defaulted = applySchemaDefaults(schema, served) as KubeObject;
        return jsonEqual(defaulted, served) ? served : defaulted;
      },
      ...(converts ? { toStorage: (o: KubeObject) => ({ ...o, apiVersion: storageApiVersion }) } : {}),
    });
  });
  return { storageKey, definitions, versionOrder };
}
