// A StatefulSet's revision history: its ControllerRevisions (those matching its selector that it
// controls or that are orphans, which it adopts), the current and update revisions of a sync (a
// template equal to an older revision reuses it with the next revision number), and truncation to
// revisionHistoryLimit, which keeps the revisions live pods or the status still name.

import type { LocalClient } from '../../apiserver/local-client.ts';
import { labelSelectorMatches } from '../../selectors/label-selector.ts';
import type { KubeObject } from '../../meta/object.ts';
import type { ControllerContext } from '../in-process-controller.ts';
import {
  adoptRevision,
  controllerRevisions,
  controllerRevisionsStorage,
  createControllerRevision,
  newControllerRevision,
  revisionHashLabel,
  revisionNumber,
  revisionRaw,
  updateRevisionNumber,
} from './controller-history.ts';
import { controllerRefOf } from './controller-ref.ts';
import { podRevision } from './statefulset-identity.ts';
import { collisionCountOf, observedCurrentRevision, revisionHistoryLimit, statefulSetKind, templateOf } from './statefulset-spec.ts';

/** ListControllerRevisions: matching the selector, and controlled by the set or by nobody. */
export function listRevisions(ctx: ControllerContext, set: KubeObject): KubeObject[] {
  const selector = (set.spec as { selector?: unknown }).selector;
  return ctx.store
    .list(controllerRevisionsStorage, `${set.metadata.namespace}/`)
    .map((e) => e.object)
    .filter((r) => labelSelectorMatches(selector, r.metadata.labels) && (controllerRefOf(r) === undefined || controllerRefOf(r)?.uid === set.metadata.uid));
}

/** adoptOrphanRevisions: orphans are adopted once a fresh read confirms the set is not being deleted. */
export async function adoptOrphanRevisions(ctx: ControllerContext, set: KubeObject): Promise<void> {
  const orphans = listRevisions(ctx, set).filter((r) => controllerRefOf(r) === undefined);
  if (!orphans.length) return;
  const fresh = await ctx.client.get(statefulSetKind, set.metadata.name ?? '', { namespace: set.metadata.namespace });
  if (fresh.metadata.uid !== set.metadata.uid || fresh.metadata.deletionTimestamp) throw new Error(`can't adopt ControllerRevisions: ${set.metadata.namespace}/${set.metadata.name} is being deleted or replaced`);
  for (const orphan of orphans) await adoptRevision(ctx.client, set, statefulSetKind, orphan);
}

/** A hash label compares as history.EqualRevision reads it: only when it parses as an int32. */
const parsedHash = (revision: KubeObject): number | undefined => {
  const text = revision.metadata.labels?.[revisionHashLabel];
  if (text === undefined || !/^[+-]?[0-9]+$/.test(text)) return undefined;
  const value = Number(text);
  return value >= -2147483648 && value <= 2147483647 ? value : undefined;
};

function equalRevision(a: KubeObject, b: KubeObject): boolean {
  const ha = parsedHash(a);
  const hb = parsedHash(b);
  if (ha !== undefined && hb !== undefined && ha !== hb) return false;
  return revisionRaw(a) === revisionRaw(b);
}

export interface SetRevisions {
  current: KubeObject;
  update: KubeObject;
  collisionCount: number;
}

/**
 * getStatefulSetRevisions: the update revision is the set's template (an existing equal revision, the
 * newest one unchanged or an older one renumbered, else a new one); the current revision is the one
 * the status names, or the update revision when there is none.
 */
export async function statefulSetRevisions(client: LocalClient, set: KubeObject, sorted: KubeObject[]): Promise<SetRevisions> {
  const next = sorted.length ? revisionNumber(sorted[sorted.length - 1] as KubeObject) + 1 : 1;
  let collisionCount = collisionCountOf(set);
  const candidate = newControllerRevision(set, statefulSetKind, templateOf(set), next, collisionCount);
  const equal = sorted.filter((r) => equalRevision(r, candidate));
  const last = sorted[sorted.length - 1];
  const lastEqual = equal[equal.length - 1];
  let update: KubeObject;
  if (lastEqual && last && equalRevision(last, lastEqual)) update = last;
  else if (lastEqual) update = await updateRevisionNumber(client, lastEqual, next);
  else ({ revision: update, collisionCount } = await createControllerRevision(client, set, candidate, collisionCount));
  const current = sorted.find((r) => r.metadata.name === observedCurrentRevision(set)) ?? update;
  return { current, update, collisionCount };
}

/** truncateHistory: deletes the oldest revisions that nothing uses beyond revisionHistoryLimit. */
export async function truncateHistory(client: LocalClient, set: KubeObject, pods: KubeObject[], sorted: KubeObject[], live: (KubeObject | undefined)[]): Promise<void> {
  const liveNames = new Set<string>([...live.map((r) => r?.metadata.name ?? ''), ...pods.map(podRevision)]);
  const history = sorted.filter((r) => !liveNames.has(r.metadata.name ?? ''));
  const limit = revisionHistoryLimit(set);
  if (limit < 0 || history.length <= limit) return;
  for (const revision of history.slice(0, history.length - limit)) {
    await client.delete(controllerRevisions, revision.metadata.name ?? '', { namespace: revision.metadata.namespace });
  }
}
