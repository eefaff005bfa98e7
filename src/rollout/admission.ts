// The workload webhook's decision, pure: a hooked workload whose pod template changes is frozen in the same
// write (its own controller never sees the new template un-held), the user's settings of the fields the hold
// changes are stashed, and the rollout is stamped (template hash, ROLLOUT or ROLLBACK, the revision it comes
// from). While a workload is held, other writers' changes of those fields go to the stash and the hold stays
// (a new template freezes it again):
// a GitOps sync that re-applies `paused: false` or a partition changes what is restored at the end, not the
// rollout in progress. podops' own writes (its field manager) pass as they are.

import type { JsonPatchOperation } from '../api/kube.ts';
import type { WorkloadKind } from '../api/rolloutlifecycle.ts';
import type { Revision } from './observe.ts';
import { stampOf, stashAnnotations, stashOf, type RolloutStamp } from './stash.ts';
import { annotationOperations, holdFieldOperations } from './workload-patch.ts';
import { HOLD_FIELDS, holdSettings, sameTemplate, settingsOf, templateHash, templateOf, type Settings, type Workload } from './workload.ts';

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

/** The JSON patch to the incoming object: empty when the write passes as it is. */
export function admitWorkloadUpdate(update: WorkloadUpdate): JsonPatchOperation[] {
  const { kind, oldObject, object } = update;
  if (update.byPodops) return [];
  const stashed = stashOf(oldObject);
  const templateChanged = !sameTemplate(templateOf(oldObject) ?? {}, templateOf(object) ?? {});
  if (!stashed) {
    if (!templateChanged || !update.hooked) return [];
    const user = settingsOf(kind, object);
    const frozen = holdSettings(kind, user, { type: 'frozen' }, { replicas: 0, newReplicas: 0 });
    const stamp = rolloutStamp(update, revisionOf(update.revisions, oldObject));
    return [...annotationOperations(object, stashAnnotations(user, stamp)), ...holdFieldOperations(kind, object, frozen)];
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
  const previousStamp = stampOf(oldObject);
  const annotations = stashAnnotations(user, templateChanged ? heldRolloutStamp(update, previousStamp) : previousStamp);
  // A new template (a rollover, or a rollback) starts frozen again: its point 0 comes before any of its pods.
  const fields = templateChanged ? holdSettings(kind, user, { type: 'frozen' }, { replicas: 0, newReplicas: 0 }) : holding;
  return [...annotationOperations(object, annotations), ...holdFieldOperations(kind, object, fields)];
}
