// Turning a request body into an object of the requested resource, with the real server's
// request-level (400) errors: unrecognized bodies, kinds that cannot be handled, names and
// namespaces that disagree with the URL.

import { badRequestStatus, StatusError } from '../errors.ts';
import { isJsonObject, type KubeObject } from '../meta/object.ts';
import { jsonTypeError } from '../openapi/type-mismatch.ts';
import { apiVersionOf, type ResourceDefinition } from '../registry/types.ts';

/** The Go package of the internal version, which the conversion error names (`core.Pod`, `apps.Deployment`). */
function internalPackage(def: ResourceDefinition): string {
  if (def.custom) return def.group;
  if (!def.group) return 'core';
  return def.group.split('.')[0] ?? def.group;
}

const goTypeOfJson = (value: unknown): string =>
  Array.isArray(value) ? 'array' : value === null ? 'null' : typeof value === 'object' ? 'object' : typeof value;

/** A body the kind's Go type cannot decode, e.g. `ConfigMap in version "v1" cannot be handled as a ConfigMap: …`. */
export const cannotBeHandled = (def: ResourceDefinition, why: string): StatusError =>
  new StatusError(badRequestStatus(`${def.kind} in version "${def.version}" cannot be handled as a ${def.kind}: ${why}`));

/**
 * Validates apiVersion/kind against the URL (filling them in when absent), converts to storage form
 * and refuses values the kind's Go type cannot hold.
 */
export function decodeObject(def: ResourceDefinition, body: unknown): KubeObject {
  if (!isJsonObject(body)) {
    throw new StatusError(
      badRequestStatus(
        `the object provided is unrecognized (must be of type ${def.kind}): couldn't get version/kind; json parse error: json: cannot unmarshal ${goTypeOfJson(body)} into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }`,
      ),
    );
  }
  const apiVersion = apiVersionOf(def.group, def.version);
  const givenKind = typeof body.kind === 'string' && body.kind ? body.kind : undefined;
  const givenVersion = typeof body.apiVersion === 'string' && body.apiVersion ? body.apiVersion : undefined;
  if ((givenKind && givenKind !== def.kind) || (givenVersion && givenVersion !== apiVersion)) {
    const kind = givenKind ?? def.kind;
    const version = givenVersion ?? apiVersion;
    const versionOnly = version.includes('/') ? version.slice(version.indexOf('/') + 1) : version;
    throw new StatusError(
      badRequestStatus(
        `${kind} in version "${versionOnly}" cannot be handled as a ${def.kind}: converting (${versionOnly}.${kind}) to (${internalPackage(def)}.${def.kind}): unknown conversion`,
      ),
    );
  }
  const object = { ...body, apiVersion, kind: def.kind } as KubeObject;
  if (!isJsonObject(object.metadata)) object.metadata = {};
  const stored = def.toStorage ? def.toStorage(object) : object;
  const mismatch = def.strategy.typeMismatch?.(stored);
  if (mismatch) throw cannotBeHandled(def, jsonTypeError(mismatch));
  return stored;
}

export function checkNamespace(def: ResourceDefinition, object: KubeObject, namespace: string | undefined): void {
  if (!def.namespaced) {
    delete object.metadata.namespace;
    return;
  }
  const given = object.metadata.namespace;
  if (given && given !== namespace) {
    throw new StatusError(badRequestStatus('the namespace of the provided object does not match the namespace sent on the request'));
  }
  object.metadata.namespace = namespace;
}

export function checkName(object: KubeObject, name: string): void {
  const given = object.metadata.name ?? '';
  if (given !== name) {
    throw new StatusError(badRequestStatus(`the name of the object (${given}) does not match the name on the URL (${name})`));
  }
}
