// What changed between two versions of a pod's labels, lifecycle by lifecycle: the phase each one left and
// entered, and how long it spent in the one it left, read off the labels' own timestamps (so a transition
// seen late still reports the time the protocol recorded). Metrics and logs are the drivers' business.

import { parseLifecycles, type Lifecycle, type PodLifecycles } from './parse.ts';
import { lifecyclePhase, phaseSince, type LifecyclePhase } from './phase.ts';
import { NANOS_PER_MILLI, type Nanos } from './time.ts';
import type { LabelSource } from './labels.ts';

/** Where a lifecycle goes when its labels leave the pod: finished from Completing, otherwise undone. */
export type LifecycleEnd = 'Done' | 'Undone';

export interface PhaseTransition {
  id: string;
  /** The operation type, when the labels still name it. */
  type: string | undefined;
  /** Undefined when the lifecycle began with this change. */
  from: LifecyclePhase | undefined;
  to: LifecyclePhase | LifecycleEnd;
  /** Seconds spent in `from`, when its start is on the labels (never negative). */
  seconds: number | undefined;
}

const readable = (labels: LabelSource | undefined): PodLifecycles | undefined => {
  try {
    return parseLifecycles(labels);
  } catch {
    // Labels validation would deny; they describe no phase to measure.
    return undefined;
  }
};

const secondsBetween = (start: Nanos | undefined, end: Nanos): number | undefined =>
  start === undefined ? undefined : Math.max(0, Number((end - start) / NANOS_PER_MILLI) / 1000);

/** The lifecycle transitions from `previous` to `current` labels of one pod, observed at `now`. */
export function phaseTransitions(previous: LabelSource | undefined, current: LabelSource | undefined, now: Nanos): PhaseTransition[] {
  const before = readable(previous);
  const after = readable(current);
  if (!before || !after) return [];
  const transitions: PhaseTransition[] = [];
  const left = (lifecycle: Lifecycle, to: PhaseTransition['to'], end: Nanos): void => {
    transitions.push({ id: lifecycle.id, type: lifecycle.type, from: lifecyclePhase(lifecycle), to, seconds: secondsBetween(phaseSince(lifecycle), end) });
  };
  for (const [id, lifecycle] of after.byId) {
    const to = lifecyclePhase(lifecycle);
    const old = before.byId.get(id);
    if (!old) transitions.push({ id, type: lifecycle.type, from: undefined, to, seconds: undefined });
    else if (lifecyclePhase(old) !== to) left({ ...old, type: old.type ?? lifecycle.type }, to, phaseSince(lifecycle) ?? now);
  }
  for (const [id, old] of before.byId) {
    if (!after.byId.has(id)) left(old, lifecyclePhase(old) === 'Completing' ? 'Done' : 'Undone', now);
  }
  return transitions;
}
