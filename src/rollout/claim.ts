// At most one RolloutLifecycle acts for a workload. The validating webhook refuses a second one from its cache,
// which two simultaneous creates can both pass; the controller settles it: of the RolloutLifecycles targeting a
// workload, the oldest (creationTimestamp, then name) claims it, and the others do nothing while it exists.

import type { RolloutLifecycle } from '../api/rolloutlifecycle.ts';

export const targetsSame = (a: RolloutLifecycle, b: RolloutLifecycle): boolean =>
  a.metadata.namespace === b.metadata.namespace && a.spec?.targetRef?.kind === b.spec?.targetRef?.kind && a.spec?.targetRef?.name === b.spec?.targetRef?.name;

/** The RolloutLifecycle that claims `rl`'s workload among `all` (those being deleted aside): `rl` itself, or an older one. */
export function claimantOf(rl: RolloutLifecycle, all: readonly RolloutLifecycle[]): RolloutLifecycle {
  const rivals = all.filter((other) => targetsSame(other, rl) && !other.metadata.deletionTimestamp);
  const order = (o: RolloutLifecycle): string => `${o.metadata.creationTimestamp ?? ''}\u0000${o.metadata.name ?? ''}`;
  return [rl, ...rivals].reduce((oldest, other) => (order(other) < order(oldest) ? other : oldest));
}
