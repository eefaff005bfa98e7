// DELETE as the real generic store performs it: preconditions, graceful deletion (pods), the
// garbage-collection finalizers a propagation policy asks for (orphan, foregroundDeletion),
// marking objects with finalizers as deleting, and removal once nothing holds the object.

import { conflictStatus, failure, notFoundStatus, StatusError } from '../errors.ts';
import type { KubeObject } from '../meta/object.ts';
import { formatTimestamp, parseTimestamp } from '../meta/time.ts';
import type { ResourceDefinition } from '../registry/types.ts';
import { StorageError } from '../storage/store.ts';
import type { ServerContext } from './context.ts';
import type { DeleteOptions } from './options.ts';
import type { ApiRequest } from './request.ts';
import { requestKey } from './storage-key.ts';
import { inEncodedOrder } from './encoded-order.ts';
import { admissionAttributes, recordWarnings, targetOf } from './write.ts';
import { writeOrigin } from './write-origin.ts';

export const orphanFinalizer = 'orphan';
export const foregroundFinalizer = 'foregroundDeletion';

export interface DeleteOutcome {
  state: 'deleted' | 'pending';
  object: KubeObject;
  /** Warnings of the admission webhooks the deletion passed. */
  warnings: string[];
}

function preconditionConflict(def: ResourceDefinition, name: string, why: string): StatusError {
  const details = { name, ...(def.group ? { group: def.group } : {}), kind: def.kind };
  return new StatusError(failure(409, 'Conflict', `Operation cannot be fulfilled on ${def.kind} "${name}": ${why}`, details));
}

/** The finalizers after applying the propagation policy (deletionFinalizersForGarbageCollection). */
function finalizersForPolicy(def: ResourceDefinition, finalizers: readonly string[], options: DeleteOptions): string[] {
  let orphan: boolean;
  let foreground: boolean;
  if (options.orphanDependents !== undefined) {
    orphan = options.orphanDependents;
    foreground = false;
  } else if (options.propagationPolicy) {
    orphan = options.propagationPolicy === 'Orphan';
    foreground = options.propagationPolicy === 'Foreground';
  } else {
    orphan = finalizers.includes(orphanFinalizer) || (!finalizers.includes(foregroundFinalizer) && def.strategy.defaultPropagation === 'Orphan');
    foreground = finalizers.includes(foregroundFinalizer) && !finalizers.includes(orphanFinalizer);
  }
  const kept = finalizers.filter((f) => f !== orphanFinalizer && f !== foregroundFinalizer);
  if (orphan) kept.push(orphanFinalizer);
  if (foreground) kept.push(foregroundFinalizer);
  const same = kept.length === finalizers.length && kept.every((f) => finalizers.includes(f));
  return same ? [...finalizers] : kept;
}

const sameList = (a: readonly string[] | undefined, b: readonly string[]): boolean =>
  (a ?? []).length === b.length && (a ?? []).every((v, i) => v === b[i]);

/**
 * Deletes (or starts deleting) one object. `admit`: whether the deletion passes admission, as a DELETE
 * request does (a registry deleting on its own behalf, such as an eviction, calls the store directly).
 */
export async function deleteOne(ctx: ServerContext, req: ApiRequest, name: string, options: DeleteOptions, admit = true): Promise<DeleteOutcome> {
  const { def } = req;
  const key = requestKey(req, name);
  for (let retry = 0; retry < 16; retry++) {
    const entry = ctx.store.get(def.storageKey, key);
    if (!entry) throw new StatusError(notFoundStatus(targetOf(def, name)));
    const current = entry.object;
    const { uid, resourceVersion } = options.preconditions;
    if (uid !== undefined && uid !== current.metadata.uid) {
      throw preconditionConflict(
        def,
        name,
        `the UID in the precondition (${uid}) does not match the UID in record (${current.metadata.uid ?? ''}). The object might have been deleted and then recreated`,
      );
    }
    // Compared as text, as the real precondition check does (`abc` or `0200` is a conflict, not a parse error).
    if (resourceVersion !== undefined && resourceVersion !== String(entry.rv)) {
      throw preconditionConflict(
        def,
        name,
        `the ResourceVersion in the precondition (${resourceVersion}) does not match the ResourceVersion in record (${entry.rv}). The object might have been modified`,
      );
    }
    const now = ctx.clock();
    const object: KubeObject = { ...current, metadata: { ...current.metadata } };
    const meta = object.metadata;
    const requestedGrace = options.gracePeriodSeconds;
    let graceful = false;
    let changed = false;
    let pendingGrace = false;

    if (def.strategy.beginDeletion && !meta.deletionTimestamp) {
      // Namespaces: the first DELETE only starts termination; the namespace controller finishes it.
      def.strategy.beginDeletion(object, now);
      meta.finalizers = finalizersForPolicy(def, meta.finalizers ?? [], options);
      if (!meta.finalizers.length) delete meta.finalizers;
      const warnings = admit ? await admitDelete(ctx, req, current, options, requestedGrace) : [];
      return { ...writePending(ctx, req, entry.key, entry.rv, object, options), warnings };
    }
    if (def.strategy.gracePeriod) {
      const oldGrace = meta.deletionGracePeriodSeconds;
      if (meta.deletionTimestamp && oldGrace) {
        if (requestedGrace !== undefined && requestedGrace < oldGrace) {
          const start = (parseTimestamp(meta.deletionTimestamp) ?? now) - oldGrace * 1000;
          meta.deletionTimestamp = formatTimestamp(start + requestedGrace * 1000);
          meta.deletionGracePeriodSeconds = requestedGrace;
          graceful = true;
          changed = true;
        } else {
          pendingGrace = true;
        }
      } else if (!meta.deletionTimestamp) {
        const period = def.strategy.gracePeriod(object, requestedGrace) ?? 0;
        meta.deletionTimestamp = formatTimestamp(now + period * 1000);
        meta.deletionGracePeriodSeconds = period;
        if (meta.generation !== undefined && meta.generation > 0) meta.generation++;
        graceful = true;
        changed = true;
      }
    }
    // A deletion already waiting out a grace period that this request does not shorten is answered
    // without admission, as the real store does.
    if (pendingGrace) return { state: 'pending', object: current, warnings: [] };

    const finalizers = finalizersForPolicy(def, meta.finalizers ?? [], options);
    // The store's update for graceful deletion and finalizers runs the deletion's admission against
    // the stored object; deleting from storage runs it again against the object as it then is.
    const updatesFirst = graceful || (current.metadata.finalizers ?? []).length > 0 || !sameList(current.metadata.finalizers, finalizers);
    const grace = graceful ? meta.deletionGracePeriodSeconds : requestedGrace;
    const warnings = admit ? await admitDelete(ctx, req, current, options, grace) : [];
    if (!sameList(meta.finalizers, finalizers)) {
      meta.finalizers = finalizers;
      changed = true;
    }
    if (!graceful) {
      if (finalizers.length) {
        if (!meta.deletionTimestamp && meta.generation !== undefined && meta.generation > 0) meta.generation++;
        const existing = parseTimestamp(meta.deletionTimestamp);
        if (existing === undefined || existing > now) meta.deletionTimestamp = formatTimestamp(now);
        meta.deletionGracePeriodSeconds = 0;
        changed = changed || meta.deletionTimestamp !== current.metadata.deletionTimestamp || current.metadata.deletionGracePeriodSeconds !== 0;
      }
    }
    if (!finalizers.length) delete meta.finalizers;
    const blocked = def.strategy.blocksDeletion?.(object) ?? false;
    const pending = finalizers.length > 0 || blocked || (graceful && (meta.deletionGracePeriodSeconds ?? 0) > 0);

    if (options.dryRun) return { state: pending ? 'pending' : 'deleted', object, warnings };
    try {
      if (pending) {
        if (!changed) return { state: 'pending', object: current, warnings };
        delete meta.resourceVersion;
        return { state: 'pending', object: ctx.store.update(def.storageKey, entry.key, inEncodedOrder(object, def.custom), writeOrigin(req), entry.rv).object, warnings };
      }
      let last = entry;
      // Only a graceful deletion writes its deletionTimestamp before the object goes.
      if (graceful && changed) {
        delete meta.resourceVersion;
        last = ctx.store.update(def.storageKey, entry.key, inEncodedOrder(object, def.custom), writeOrigin(req), entry.rv);
      }
      if (updatesFirst && admit) await recordWarnings(warnings, admitDelete(ctx, req, last.object, options, grace));
      return { state: 'deleted', object: ctx.store.delete(def.storageKey, entry.key, writeOrigin(req), last.rv), warnings };
    } catch (err) {
      if (err instanceof StorageError && err.code === 'conflict') continue;
      if (err instanceof StorageError && err.code === 'notFound') throw new StatusError(notFoundStatus(targetOf(def, name)));
      throw err;
    }
  }
  throw new StatusError(conflictStatus(targetOf(def, name)));
}

/** The deletion's admission (mutating, then validating) against `current`, with the grace period the store computed. */
async function admitDelete(
  ctx: ServerContext,
  req: ApiRequest,
  current: KubeObject,
  options: DeleteOptions,
  grace: number | undefined,
): Promise<string[]> {
  const deleteOptions: Record<string, unknown> = { kind: 'DeleteOptions' };
  if (grace !== undefined) deleteOptions.gracePeriodSeconds = grace;
  if (options.preconditions.uid !== undefined || options.preconditions.resourceVersion !== undefined) deleteOptions.preconditions = { ...options.preconditions };
  if (options.orphanDependents !== undefined) deleteOptions.orphanDependents = options.orphanDependents;
  if (options.propagationPolicy) deleteOptions.propagationPolicy = options.propagationPolicy;
  const attributes = admissionAttributes(req, 'DELETE', undefined, current, options.dryRun, deleteOptions);
  const warnings: string[] = [];
  await recordWarnings(warnings, ctx.admission.admit(attributes));
  await recordWarnings(warnings, ctx.admission.validate(attributes));
  return warnings;
}

function writePending(ctx: ServerContext, req: ApiRequest, key: string, rv: number, object: KubeObject, options: DeleteOptions): Omit<DeleteOutcome, 'warnings'> {
  if (options.dryRun) return { state: 'pending', object };
  delete object.metadata.resourceVersion;
  try {
    return { state: 'pending', object: ctx.store.update(req.def.storageKey, key, inEncodedOrder(object, req.def.custom), writeOrigin(req), rv).object };
  } catch (err) {
    if (err instanceof StorageError) throw new StatusError(conflictStatus(targetOf(req.def, object.metadata.name ?? '')));
    throw err;
  }
}
