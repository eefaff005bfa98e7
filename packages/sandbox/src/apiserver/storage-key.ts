// The key a request's object is stored under, refused where kube-apiserver refuses it: the generic
// registry's key functions (NamespaceKeyFunc, NoNamespaceKeyFunc) check the name from the URL as a
// path segment (400 `Name parameter invalid: "..": may not be '..'`), and etcd's store refuses a key
// with a `.` or `..` segment, which a namespace of that name makes (a plain error: 500, no reason).

import { goQuote } from '../crd/go-format.ts';
import { badRequestStatus, StatusError } from '../errors.ts';
import { objectKey } from '../meta/object.ts';
import type { ResourceDefinition } from '../registry/types.ts';
import { isValidPathSegmentName } from '../validation/names.ts';
import type { ApiRequest } from './request.ts';
import { reasonlessFailure } from './status.ts';

/** kube-apiserver's etcd prefixes that are not the resource's name (SpecialDefaultResourcePrefixes). */
const specialPrefixes: Readonly<Record<string, string>> = { services: 'services/specs', endpoints: 'services/endpoints', nodes: 'minions' };

/** `/pods`, `/services/specs`, `/example.com/widgets`: the registry's key root, before etcd's `/registry` prefix. */
export function registryKeyRoot(def: ResourceDefinition): string {
  const [resource = '', ...group] = def.storageKey.split('.');
  if (def.custom) return `/${group.join('.')}/${resource}`;
  return `/${specialPrefixes[def.storageKey] ?? resource}`;
}

/** The store key of the object `req` names (or of `name`), or the registry's refusal. */
export function requestKey(req: ApiRequest, name = req.name ?? ''): string {
  const problems = isValidPathSegmentName(name);
  if (problems.length) throw new StatusError(badRequestStatus(`Name parameter invalid: ${goQuote(name)}: ${problems.join(';')}`));
  const namespace = req.def.namespaced ? req.namespace : undefined;
  if (namespace === '.' || namespace === '..') throw reasonlessFailure(500, `invalid key: ${goQuote(`${registryKeyRoot(req.def)}/${namespace}/${name}`)}`);
  return objectKey(namespace, name);
}
