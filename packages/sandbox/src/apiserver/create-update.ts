// POST (create) and PUT (update) of whole objects.

import { cloneJson, type KubeObject } from '../meta/object.ts';
import { checkName, checkNamespace, decodeObject } from './decode.ts';
import type { ServerContext } from './context.ts';
import { parseWriteOptions } from './options.ts';
import type { ApiRequest, ObjectResult } from './request.ts';
import { reasonlessFailure } from './status.ts';
import { registryKeyRoot } from './storage-key.ts';
import { admitAndCreate, guaranteedUpdate, handleUnknownFields } from './write.ts';

export async function createObject(ctx: ServerContext, req: ApiRequest): Promise<ObjectResult> {
  const options = parseWriteOptions(req.query, 'CreateOptions');
  const object = decodeObject(req.def, req.body);
  checkNamespace(req.def, object, req.namespace);
  const warnings = handleUnknownFields(req.def, object, options, req.bodyKeys);
  return admitAndCreate(ctx, req, object, options, warnings, true);
}

export async function updateObject(ctx: ServerContext, req: ApiRequest): Promise<ObjectResult> {
  const options = parseWriteOptions(req.query, 'UpdateOptions');
  const desired = decodeObject(req.def, req.body);
  checkName(desired, req.name ?? '');
  checkNamespace(req.def, desired, req.namespace);
  const warnings = handleUnknownFields(req.def, desired, options, req.bodyKeys);
  const givenRv = desired.metadata.resourceVersion || undefined;
  const givenUid = desired.metadata.uid || undefined;
  return guaranteedUpdate(ctx, {
    req,
    options,
    isPut: true,
    recordFields: true,
    attempt(current: KubeObject) {
      if (givenUid && givenUid !== current.metadata.uid) throw uidPreconditionFailed(req, givenUid, current);
      return { object: cloneJson(desired), precondition: givenRv, warnings: [...warnings] };
    },
  });
}

/** A PUT whose metadata.uid names another object fails as the storage precondition does. */
export function uidPreconditionFailed(req: ApiRequest, uid: string, current: KubeObject): Error {
  const { def } = req;
  const qualified = def.group ? `${def.resource}.${def.group}` : def.resource;
  const name = req.name ?? '';
  const key = `/registry${registryKeyRoot(def)}/${def.namespaced ? `${req.namespace}/` : ''}${name}`;
  const err = reasonlessFailure(
    409,
    `Operation cannot be fulfilled on ${qualified} "${name}": StorageError: invalid object, Code: 4, Key: ${key}, ResourceVersion: 0, AdditionalErrorMsg: Precondition failed: UID in precondition: ${uid}, UID in object meta: ${current.metadata.uid ?? ''}`,
  );
  err.status.reason = 'Conflict';
  err.status.details = { name, ...(def.group ? { group: def.group } : {}), kind: def.resource };
  return err;
}
