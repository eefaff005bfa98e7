// What the real server restores from the stored object before validating an update
// (rest.BeforeUpdate), so clients cannot change these fields through an update.

import { isJsonObject, type JsonObject } from '../meta/object.ts';
import { child, isUnset } from './fields.ts';

/**
 * Restores, from the stored object: the uid when the update omits it, creationTimestamp,
 * deletionTimestamp, and deletionGracePeriodSeconds when omitted. Generation is not touched (the
 * server core decides it). A uid that differs is left for validation to reject.
 */
export function restoreSystemMetadata(obj: JsonObject, old: JsonObject): void {
  const meta = child(obj, 'metadata');
  const oldMeta = isJsonObject(old.metadata) ? old.metadata : {};
  if ((isUnset(meta.uid) || meta.uid === '') && !isUnset(oldMeta.uid)) meta.uid = oldMeta.uid;
  if (!isUnset(oldMeta.creationTimestamp)) meta.creationTimestamp = oldMeta.creationTimestamp;
  if (!isUnset(oldMeta.deletionTimestamp)) meta.deletionTimestamp = oldMeta.deletionTimestamp;
  if (!isUnset(oldMeta.deletionGracePeriodSeconds) && isUnset(meta.deletionGracePeriodSeconds)) meta.deletionGracePeriodSeconds = oldMeta.deletionGracePeriodSeconds;
}
