// The workload webhook's decision, pure: a hooked workload whose pod template changes is frozen in the same
// write (its own controller never sees the new template un-held), the user's settings of the fields the hold
// changes are stashed, and the rollout is stamped (template hash, ROLLOUT or ROLLBACK, the revision it comes
// from). While a workload is held, other writers' changes of those fields go to the stash and the hold stays
// (a new template freezes it again):
// a GitOps sync that re-applies `paused: false` or a partition changes what is restored at the end, not the
// rollout in progress. podops' own writes (its field manager) pass as they are.

import { escapeJsonPointer, type JsonPatchOperation } from '../api/kube.ts';
import { RL_ROLLOUT_ANNOTATION, RL_USER_SETTINGS_ANNOTATION, type WorkloadKind } from '../api/rolloutlifecycle.ts';
import type { RolloutStamp } from './plan.ts';
import { HOLD_FIELDS, holdSettings, sameTemplate, settingsOf, templateHash, templateOf, type Json, type Settings, type Workload } from './workload.ts';

/** A revision of the workload that exists: a ReplicaSet, or a ControllerRevision's template. */
export interface Revision {
  name: string;
  /** The object's uid, when read from it (hook Jobs are owned by it). */
  uid?: string;
  template: Json;
}

export interface WorkloadUpdate {
  kind: WorkloadKind;
  oldObject: Workload;
  object: Workload;
  /** Written by podops' rollout controller. */
  byPodops: boolean;
  /** The workload's RolloutLifecycle has hooks: a template change is held. */
  hooked: boolean;
  /** The revisions that exist now (read before the write is stored, so a new one cannot be among them). */
  revisions: readonly Revision[];
  /** RFC 3339. */
  now: string;
  /** A fresh random id for the rollout a template change starts (the driver draws it: this module is pure). */
  rolloutId: string;
}

export const parseSettings = (text: string | undefined): Settings | undefined => {
  if (text === undefined) return undefined;
  try {
    const parsed: unknown = JSON.parse(text);
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Settings) : undefined;
  } catch {
    return undefined;
  }
};

export function parseStamp(text: string | undefined): RolloutStamp | undefined {
  const parsed = parseSettings(text);
  if (!parsed || typeof parsed.templateHash !== 'string' || typeof parsed.changedAt !== 'string' || (parsed.type !== 'ROLLOUT' && parsed.type !== 'ROLLBACK')) return undefined;
  // rolloutStamp's key order: a held workload's stamp is written back as it was read, unchanged.
  // A stamp without an id (written by an older podops) is told apart by its template and time.
  const id = typeof parsed.id === 'string' ? parsed.id : `${parsed.templateHash.slice(0, 5)}${parsed.changedAt.replace(/\D/g, '').slice(-5)}`;
  return { id, templateHash: parsed.templateHash, type: parsed.type, ...(typeof parsed.from === 'string' && { from: parsed.from }), changedAt: parsed.changedAt };
}

/** A rollback: an existing revision has the new template. */
const goesBack = (update: Pick<WorkloadUpdate, 'object' | 'revisions'>): boolean => update.revisions.some((revision) => sameTemplate(revision.template, templateOf(update.object) ?? {}));

/** The stamp of a rollout to the workload's template: a rollback when an existing revision has that template. */
export function rolloutStamp(update: Pick<WorkloadUpdate, 'object' | 'oldObject' | 'revisions' | 'now' | 'rolloutId'>, from: string | undefined): RolloutStamp {
  return {
    id: update.rolloutId,
    templateHash: templateHash(templateOf(update.object) ?? {}),
    type: goesBack(update) ? 'ROLLBACK' : 'ROLLOUT',
    ...(from !== undefined && { from }),
    changedAt: update.now,
  };
}

/** The revision the old template is: where the pods come from. */
export const revisionOf = (revisions: readonly Revision[], workload: Workload): string | undefined =>
  revisions.find((revision) => sameTemplate(revision.template, templateOf(workload) ?? {}))?.name;

/**
 * The stamp of a template change while a rollout is held. A rollover keeps the revision the held rollout came
 * from (most pods still run it); a rollback comes from the revision it abandons, none when that template never
 * got one (a Deployment held at point 0), never from the revision it goes back to.
 */
function heldRolloutStamp(update: WorkloadUpdate, previous: RolloutStamp | undefined): RolloutStamp {
  const abandoned = revisionOf(update.revisions, update.oldObject);
  return rolloutStamp(update, goesBack(update) ? abandoned : (previous?.from ?? abandoned));
}

/**
 * Operations setting each hold field of `object` to `settings`, the whole field at once (a merge would leave a
 * rolling update's parameters beside a Recreate strategy), and removing those `settings` lack. `add` replaces
 * an existing member, so the operations hold even if the field appeared since `object` was read.
 */
export function holdFieldOperations(kind: WorkloadKind, object: Workload, settings: Settings): JsonPatchOperation[] {
  const ops: JsonPatchOperation[] = [];
  for (const field of HOLD_FIELDS[kind]) {
    const want = settings[field];
    const have = object.spec?.[field];
    if (JSON.stringify(want) === JSON.stringify(have)) continue;
    const path = `/spec/${escapeJsonPointer(field)}`;
    ops.push(want === undefined ? { op: 'remove', path } : { op: 'add', path, value: want });
  }
  return ops;
}

/** Operations setting annotations to the given values, and removing those given as null. */
export function annotationOperations(object: Workload, values: Record<string, string | null>): JsonPatchOperation[] {
  const current = object.metadata.annotations;
  const set = Object.entries(values).filter((entry): entry is [string, string] => entry[1] !== null);
  if (current === undefined) return set.length === 0 ? [] : [{ op: 'add', path: '/metadata/annotations', value: Object.fromEntries(set) }];
  return Object.entries(values).flatMap(([key, value]): JsonPatchOperation[] => {
    const path = `/metadata/annotations/${escapeJsonPointer(key)}`;
    if (value === null) return key in current ? [{ op: 'remove', path }] : [];
    return current[key] === value ? [] : [{ op: 'add', path, value }];
  });
}

/** The JSON patch to the incoming object: empty when the write passes as it is. */
export function admitWorkloadUpdate(update: WorkloadUpdate): JsonPatchOperation[] {
  const { kind, oldObject, object } = update;
  if (update.byPodops) return [];
  const stashed = parseSettings(oldObject.metadata.annotations?.[RL_USER_SETTINGS_ANNOTATION]);
  const templateChanged = !sameTemplate(templateOf(oldObject) ?? {}, templateOf(object) ?? {});
  if (!stashed) {
    if (!templateChanged || !update.hooked) return [];
    const user = settingsOf(kind, object);
    const frozen = holdSettings(kind, user, { type: 'frozen' }, { replicas: 0, newReplicas: 0 });
    const stamp = rolloutStamp(update, revisionOf(update.revisions, oldObject));
    return [
      ...annotationOperations(object, { [RL_USER_SETTINGS_ANNOTATION]: JSON.stringify(user), [RL_ROLLOUT_ANNOTATION]: JSON.stringify(stamp) }),
      ...holdFieldOperations(kind, object, frozen),
    ];
  }
  // Held: the user's changes of the hold fields go to the stash; the fields keep podops' values.
  const user: Settings = { ...stashed };
  const incoming = settingsOf(kind, object);
  const holding = settingsOf(kind, oldObject);
  for (const field of HOLD_FIELDS[kind]) {
    if (JSON.stringify(incoming[field]) === JSON.stringify(holding[field])) continue;
    if (incoming[field] === undefined) delete user[field];
    else user[field] = incoming[field];
  }
  const annotations: Record<string, string> = { [RL_USER_SETTINGS_ANNOTATION]: JSON.stringify(user) };
  const previousStamp = parseStamp(oldObject.metadata.annotations?.[RL_ROLLOUT_ANNOTATION]);
  if (templateChanged) annotations[RL_ROLLOUT_ANNOTATION] = JSON.stringify(heldRolloutStamp(update, previousStamp));
  else if (previousStamp) annotations[RL_ROLLOUT_ANNOTATION] = JSON.stringify(previousStamp);
  // A new template (a rollover, or a rollback) starts frozen again: its point 0 comes before any of its pods.
  const fields = templateChanged ? holdSettings(kind, user, { type: 'frozen' }, { replicas: 0, newReplicas: 0 }) : holding;
  return [...annotationOperations(object, annotations), ...holdFieldOperations(kind, object, fields)];
}
