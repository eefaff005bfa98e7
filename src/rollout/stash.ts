// The two annotations podops keeps on a held workload, read and written here only: the stash (the user's own
// values of the fields a hold changes, restored exactly at the end) and the stamp (which rollout the held
// template is: its id, template hash, ROLLOUT or ROLLBACK, the revision it comes from, when it started).

import { RL_ROLLOUT_ANNOTATION, RL_USER_SETTINGS_ANNOTATION, type RolloutType } from '../api/rolloutlifecycle.ts';
import type { Settings, Workload } from './workload.ts';

/** What the webhook stamped on the workload when its template changed (or podops, when the webhook did not see it). */
export interface RolloutStamp {
  /** Unique to this template change: a template rolled out again later is another rollout, with other Jobs. */
  id: string;
  templateHash: string;
  type: RolloutType;
  /** The revision the pods ran before (ReplicaSet or ControllerRevision name). */
  from?: string;
  /** RFC 3339. */
  changedAt: string;
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

/** The stash on a workload: the user's settings while podops holds it; undefined when it is not held. */
export const stashOf = (workload: Workload): Settings | undefined => parseSettings(workload.metadata.annotations?.[RL_USER_SETTINGS_ANNOTATION]);

export const stampOf = (workload: Workload): RolloutStamp | undefined => parseStamp(workload.metadata.annotations?.[RL_ROLLOUT_ANNOTATION]);

/** The annotations of a hold: the user's settings, and the rollout's stamp when one is given. */
export const stashAnnotations = (user: Settings, stamp?: RolloutStamp): Record<string, string> => ({
  [RL_USER_SETTINGS_ANNOTATION]: JSON.stringify(user),
  ...(stamp && { [RL_ROLLOUT_ANNOTATION]: JSON.stringify(stamp) }),
});

/** The annotations' removal at a release: null removes, as in a merge patch. */
export const STASH_REMOVED: Record<string, null> = { [RL_USER_SETTINGS_ANNOTATION]: null, [RL_ROLLOUT_ANNOTATION]: null };
