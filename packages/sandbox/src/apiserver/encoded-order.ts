// Objects are stored with their keys in the order kube-apiserver encodes them (see meta/go-order.ts): a custom
// resource, unstructured, with every map sorted; a built-in kind as Go encodes its type (struct fields declared
// order, maps sorted), as far as the schemas describe it, else TypeMeta, metadata, the rest and status last.

import { remember, sortedDeep, type OrderMarks } from '../meta/go-order.ts';
import { withCanonicalKeyOrder, type KubeObject } from '../meta/object.ts';
import { builtinSchemaName, builtinSchemas, objectMetaName } from '../openapi/builtin-schemas.ts';
import { kindOrderer, type Orderer } from '../openapi/encoding-order.ts';

const orderers = new Map<string, Orderer | undefined>();

/** The orderer of a built-in object by its own apiVersion and kind (a stored object is in its storage version). */
function builtinOrderer(object: KubeObject): Orderer | undefined {
  const key = `${object.apiVersion ?? ''} ${object.kind ?? ''}`;
  if (!orderers.has(key)) {
    const apiVersion = object.apiVersion ?? '';
    const slash = apiVersion.indexOf('/');
    const schemaName = builtinSchemaName(slash < 0 ? '' : apiVersion.slice(0, slash), apiVersion.slice(slash + 1), object.kind ?? '');
    orderers.set(key, schemaName ? kindOrderer(builtinSchemas, schemaName) : undefined);
  }
  return orderers.get(key);
}

/**
 * `object`, about to be stored, in encoding order: itself when it already is. The resourceVersion the store
 * is about to write gets its place now (an undefined member, which JSON leaves out until the store sets it).
 */
export function inEncodedOrder(stored: KubeObject, custom: boolean): KubeObject {
  const marks: OrderMarks = { unordered: false };
  const object = 'resourceVersion' in stored.metadata ? stored : { ...stored, metadata: { ...stored.metadata, resourceVersion: undefined as unknown as string } };
  if (custom) return remember(sortedDeep(object, marks) as KubeObject, marks);
  const orderer = builtinOrderer(object);
  if (orderer) return remember(orderer(object, marks) as KubeObject, marks);
  const metadata = kindOrderer(builtinSchemas, objectMetaName)(object.metadata, marks) as KubeObject['metadata'];
  return remember(withCanonicalKeyOrder({ ...object, metadata }), marks);
}
