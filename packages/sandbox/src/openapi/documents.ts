// The OpenAPI documents kubectl reads: /openapi/v3 (an index of per-group-version documents,
// each addressed with a content hash) and /openapi/v2. The v3 documents carry the kinds' schemas
// (for `kubectl explain`) and a PATCH operation per resource that declares the fieldValidation
// parameter, so kubectl leaves validation to the server. They declare no strategic-merge request
// body and the v2 document defines no kinds, so `kubectl apply` computes strategic patches from
// its compiled-in types, as the real openapi/v2 would give it.

import { createHash } from 'node:crypto';
import type { JsonObject } from '../meta/object.ts';
import { isJsonObject } from '../meta/object.ts';
import type { Registry } from '../registry/registry.ts';
import type { ResourceDefinition } from '../registry/types.ts';
import { builtinSchemaName, builtinSchemas, objectMetaName } from './builtin-schemas.ts';
import { refTo, schemaRef, type Schema } from './schema-builders.ts';

interface Document {
  body: string;
  hash: string;
}

const hashOf = (body: string): string => createHash('sha512').update(body).digest('hex').toUpperCase().slice(0, 128);

const reverseGroup = (group: string): string => group.split('.').reverse().join('.');

function customSchemaName(def: ResourceDefinition): string {
  return `${reverseGroup(def.group)}.${def.version}.${def.kind}`;
}

function customSchema(def: ResourceDefinition): Schema {
  const raw: JsonObject = def.openAPIV3Schema ? { ...def.openAPIV3Schema } : {};
  const properties = isJsonObject(raw.properties) ? { ...raw.properties } : {};
  properties.apiVersion ??= { type: 'string', description: 'APIVersion defines the versioned schema of this representation of an object.' };
  properties.kind ??= { type: 'string', description: 'Kind is a string value representing the REST resource this object represents.' };
  properties.metadata = refTo(objectMetaName, 'Standard object metadata.');
  return { ...raw, type: 'object', properties, 'x-kubernetes-group-version-kind': [{ group: def.group, version: def.version, kind: def.kind }] };
}

/** Every schema name reachable from `root` through `$ref`s. */
function reachable(schemas: Readonly<Record<string, Schema>>, roots: readonly string[]): Set<string> {
  const seen = new Set<string>();
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) return value.forEach(visit);
    if (!isJsonObject(value)) return;
    const ref = value.$ref;
    if (typeof ref === 'string') {
      const name = ref.slice(ref.lastIndexOf('/') + 1);
      if (!seen.has(name)) {
        seen.add(name);
        visit(schemas[name]);
      }
    }
    for (const v of Object.values(value)) visit(v);
  };
  for (const root of roots) {
    seen.add(root);
    visit(schemas[root]);
  }
  return seen;
}

const queryParam = (name: string): Schema => ({ name, in: 'query', schema: { type: 'string', uniqueItems: true } });

function operations(def: ResourceDefinition, schemaName: string, subresource?: string): Record<string, Schema> {
  const gvk = { group: def.group, version: def.version, kind: subresource === 'scale' ? 'Scale' : def.kind };
  const ok = { '200': { description: 'OK', content: { 'application/json': { schema: schemaRef(schemaName) } } } };
  const op = (action: string, params: string[], extra: Schema = {}): Schema => ({
    operationId: `${action}${def.kind}${subresource ? `_${subresource}` : ''}`,
    parameters: params.map(queryParam),
    responses: ok,
    'x-kubernetes-action': action,
    'x-kubernetes-group-version-kind': gvk,
    ...extra,
  });
  const patchTypes = ['application/json-patch+json', 'application/merge-patch+json', 'application/apply-patch+yaml'];
  return {
    get: op('get', ['pretty']),
    put: op('put', ['dryRun', 'fieldManager', 'fieldValidation']),
    patch: op('patch', ['dryRun', 'fieldManager', 'fieldValidation', 'force'], {
      requestBody: { content: Object.fromEntries(patchTypes.map((t) => [t, { schema: { type: 'object' } }])), required: true },
    }),
    ...(subresource ? {} : { delete: op('delete', ['dryRun', 'gracePeriodSeconds', 'propagationPolicy']) }),
  };
}

function pathsFor(def: ResourceDefinition, schemaName: string): Record<string, Schema> {
  const base = def.group ? `/apis/${def.group}/${def.version}` : `/api/${def.version}`;
  const scoped = def.namespaced ? `${base}/namespaces/{namespace}/${def.resource}` : `${base}/${def.resource}`;
  const gvk = { group: def.group, version: def.version, kind: def.kind };
  const collection: Schema = {
    get: { operationId: `list${def.kind}`, 'x-kubernetes-action': 'list', 'x-kubernetes-group-version-kind': gvk, responses: { '200': { description: 'OK' } } },
    post: {
      operationId: `create${def.kind}`,
      parameters: ['dryRun', 'fieldManager', 'fieldValidation'].map(queryParam),
      'x-kubernetes-action': 'post',
      'x-kubernetes-group-version-kind': gvk,
      responses: { '201': { description: 'Created', content: { 'application/json': { schema: schemaRef(schemaName) } } } },
    },
  };
  const paths: Record<string, Schema> = {
    [scoped]: collection,
    [`${scoped}/{name}`]: operations(def, schemaName),
  };
  if (def.strategy.hasStatusSubresource) paths[`${scoped}/{name}/status`] = operations(def, schemaName, 'status');
  if (def.scale) paths[`${scoped}/{name}/scale`] = operations(def, 'io.k8s.api.autoscaling.v1.Scale', 'scale');
  return paths;
}

const scaleSchema: Schema = {
  type: 'object',
  properties: {
    apiVersion: { type: 'string' },
    kind: { type: 'string' },
    metadata: refTo(objectMetaName),
    spec: { type: 'object', properties: { replicas: { type: 'integer', format: 'int32' } } },
    status: { type: 'object', properties: { replicas: { type: 'integer', format: 'int32' }, selector: { type: 'string' } } },
  },
  'x-kubernetes-group-version-kind': [{ group: 'autoscaling', version: 'v1', kind: 'Scale' }],
};

export class OpenApiDocuments {
  readonly #registry: Registry;
  #generation = -1;
  #documents = new Map<string, Document>();
  #index = '';

  constructor(registry: Registry) {
    this.#registry = registry;
  }

  #refresh(): void {
    if (this.#generation === this.#registry.generation) return;
    this.#generation = this.#registry.generation;
    this.#documents = new Map();
    const paths: Record<string, { serverRelativeURL: string }> = {};
    for (const group of this.#registry.groups()) {
      for (const version of group.versions) {
        const key = group.name ? `apis/${group.name}/${version}` : `api/${version}`;
        const body = JSON.stringify(this.#groupVersionDocument(group.name, version));
        const doc = { body, hash: hashOf(body) };
        this.#documents.set(key, doc);
        paths[key] = { serverRelativeURL: `/openapi/v3/${key}?hash=${doc.hash}` };
      }
    }
    this.#index = JSON.stringify({ paths });
  }

  #groupVersionDocument(group: string, version: string): Schema {
    const defs = this.#registry.groupVersionResources(group, version);
    const schemas: Record<string, Schema> = { ...builtinSchemas, 'io.k8s.api.autoscaling.v1.Scale': scaleSchema };
    const roots: string[] = [];
    let paths: Record<string, Schema> = {};
    for (const def of defs) {
      let name: string | undefined;
      if (def.custom) {
        name = customSchemaName(def);
        schemas[name] = customSchema(def);
      } else {
        name = builtinSchemaName(def.group, def.version, def.kind);
      }
      if (!name) continue;
      roots.push(name);
      if (def.scale) roots.push('io.k8s.api.autoscaling.v1.Scale');
      paths = { ...paths, ...pathsFor(def, name) };
    }
    const used = reachable(schemas, roots);
    const components = Object.fromEntries([...used].sort().filter((n) => schemas[n]).map((n) => [n, schemas[n]]));
    return { openapi: '3.0.0', info: { title: 'Kubernetes', version: 'v1.32.0' }, paths, components: { schemas: components } };
  }

  v3Index(): string {
    this.#refresh();
    return this.#index;
  }

  v3(path: string): Document | undefined {
    this.#refresh();
    return this.#documents.get(path);
  }

  v2(): string {
    return JSON.stringify({ swagger: '2.0', info: { title: 'Kubernetes', version: 'v1.32.0' }, paths: {}, definitions: {} });
  }
}
