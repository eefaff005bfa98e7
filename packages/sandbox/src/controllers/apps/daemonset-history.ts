// A DaemonSet's ControllerRevisions (constructHistory, snapshot, dedupCurHistories, cleanupHistory):
// the revision whose data restores the current template is the current one; it is named
// `<ds>-<pod-template-hash>` and labelled `controller-revision-hash: <hash>`, the value the daemon pods
// carry. A template equal to an older revision reuses it with the next revision number; a name taken
// by another template bumps status.collisionCount; revisions beyond revisionHistoryLimit that no pod
// uses are deleted, oldest first.

import type { LocalClient } from '../../apiserver/local-client.ts';
import { StatusError } from '../../errors.ts';
import { readPath, type KubeObject } from '../../meta/object.ts';
import type { ControllerContext } from '../in-process-controller.ts';
import {
  controllerRevisions,
  controllerRevisionsStorage,
  revisionNumber,
  revisionRaw,
  sortRevisions,
  templatePatch,
  updateRevisionNumber,
} from './controller-history.ts';
import { claimObjects, newControllerRef, type OwnerKind } from './controller-ref.ts';
import { podsResource, sortedMap } from './pod-control.ts';
import { podTemplateHash } from './pod-template-hash.ts';
import { selects } from './workload-fields.ts';

export const daemonSetKind: OwnerKind = { group: 'apps', version: 'v1', resource: 'daemonsets', kind: 'DaemonSet' };
export const daemonSetsStorage = 'daemonsets.apps';
/** apps.DefaultDaemonSetUniqueLabelKey, on revisions and pods. */
export const daemonRevisionLabel = 'controller-revision-hash';

const collisionCountOf = (ds: KubeObject): number | undefined => {
  const count = readPath(ds, ['status', 'collisionCount']);
  return typeof count === 'number' ? count : undefined;
};

/** Match: the revision's data restores the DaemonSet's current template. */
const matches = (ds: KubeObject, revision: KubeObject): boolean => revisionRaw(revision) === templatePatch(readPath(ds, ['spec', 'template'])).raw;

export interface DaemonSetHistory {
  current: KubeObject;
  old: KubeObject[];
  /** The current revision's hash: the `controller-revision-hash` of up-to-date pods. */
  hash: string;
}

/** controlledHistories: the namespace's revisions, adopting matching orphans and releasing strays. */
function controlledHistories(ctx: ControllerContext, ds: KubeObject): Promise<KubeObject[]> {
  const revisions = ctx.store.list(controllerRevisionsStorage, `${ds.metadata.namespace}/`).map((e) => e.object);
  return claimObjects(revisions, {
    client: ctx.client,
    resource: controllerRevisions,
    owner: ds,
    ownerKind: daemonSetKind,
    matches: (revision) => selects(ds, revision.metadata.labels),
  });
}

export async function constructHistory(ctx: ControllerContext, ds: KubeObject, daemonPods: () => KubeObject[]): Promise<DaemonSetHistory> {
  const currentHistories: KubeObject[] = [];
  const old: KubeObject[] = [];
  for (let history of await controlledHistories(ctx, ds)) {
    // A revision without the hash label gets its name (no hash to compute, so no collision to fear).
    if (history.metadata.labels?.[daemonRevisionLabel] === undefined) {
      const labels = { ...history.metadata.labels, [daemonRevisionLabel]: history.metadata.name ?? '' };
      history = await ctx.client.update(controllerRevisions, { ...history, metadata: { ...history.metadata, labels } }, { namespace: ds.metadata.namespace });
    }
    (matches(ds, history) ? currentHistories : old).push(history);
  }
  const next = old.reduce((max, r) => Math.max(max, revisionNumber(r)), 0) + 1;
  let current: KubeObject;
  if (!currentHistories.length) current = await snapshot(ctx.client, ds, next);
  else {
    current = await dedupCurrentHistories(ctx.client, ds, currentHistories, daemonPods);
    if (revisionNumber(current) < next) current = await updateRevisionNumber(ctx.client, current, next);
  }
  return { current, old, hash: current.metadata.labels?.[daemonRevisionLabel] ?? '' };
}

/** Keeps the newest of several revisions of the current template, relabelling pods to its hash. */
async function dedupCurrentHistories(client: LocalClient, ds: KubeObject, histories: KubeObject[], daemonPods: () => KubeObject[]): Promise<KubeObject> {
  const [only] = histories;
  if (histories.length === 1 && only) return only;
  const keep = histories.reduce((best, h) => (revisionNumber(h) >= revisionNumber(best) ? h : best));
  const hash = keep.metadata.labels?.[daemonRevisionLabel] ?? '';
  for (const pod of daemonPods()) {
    if (pod.metadata.labels?.[daemonRevisionLabel] !== hash) {
      await client.patch(podsResource, pod.metadata.name ?? '', 'merge', { metadata: { labels: { [daemonRevisionLabel]: hash } } }, { namespace: pod.metadata.namespace });
    }
  }
  for (const duplicate of histories) {
    if (duplicate !== keep) await client.delete(controllerRevisions, duplicate.metadata.name ?? '', { namespace: duplicate.metadata.namespace });
  }
  return keep;
}

/** snapshot: creates the current revision; a name collision with another template bumps collisionCount. */
async function snapshot(client: LocalClient, ds: KubeObject, revision: number): Promise<KubeObject> {
  const template = readPath(ds, ['spec', 'template']);
  const { data } = templatePatch(template);
  const hash = podTemplateHash(template, collisionCountOf(ds));
  const name = `${ds.metadata.name}-${hash}`;
  const namespace = ds.metadata.namespace;
  const templateLabels = (readPath(ds, ['spec', 'template', 'metadata', 'labels']) ?? {}) as Record<string, string>;
  const metadata: KubeObject['metadata'] = { name, namespace, labels: sortedMap({ ...templateLabels, [daemonRevisionLabel]: hash }) };
  if (ds.metadata.annotations) metadata.annotations = ds.metadata.annotations;
  metadata.ownerReferences = [newControllerRef(ds, daemonSetKind)];
  try {
    return await client.create(controllerRevisions, { apiVersion: 'apps/v1', kind: 'ControllerRevision', metadata, data, revision }, { namespace });
  } catch (err) {
    if (!(err instanceof StatusError && err.status.reason === 'AlreadyExists')) throw err;
    const existing = await client.get(controllerRevisions, name, { namespace });
    if (matches(ds, existing)) return existing;
    const fresh = await client.get(daemonSetKind, ds.metadata.name ?? '', { namespace });
    if (collisionCountOf(fresh) !== collisionCountOf(ds)) {
      throw new Error(`found a stale collision count (${collisionCountOf(ds)}, expected ${collisionCountOf(fresh)}) of DaemonSet "${ds.metadata.name}" while processing; will retry until it is updated`, { cause: err });
    }
    const status = { ...(fresh.status as object), collisionCount: (collisionCountOf(fresh) ?? 0) + 1 };
    await client.update(daemonSetKind, { ...fresh, status }, { namespace, subresource: 'status' });
    throw err;
  }
}

/** cleanupHistory: old revisions beyond revisionHistoryLimit, oldest first, unless a pod still uses them. */
export async function cleanupHistory(client: LocalClient, ds: KubeObject, old: KubeObject[], pods: KubeObject[]): Promise<void> {
  const limit = readPath(ds, ['spec', 'revisionHistoryLimit']);
  let toKill = old.length - (typeof limit === 'number' ? limit : 10);
  if (toKill <= 0) return;
  const liveHashes = new Set(pods.map((p) => p.metadata.labels?.[daemonRevisionLabel]).filter((h) => !!h));
  for (const history of sortRevisions(old)) {
    if (toKill <= 0) break;
    if (liveHashes.has(history.metadata.labels?.[daemonRevisionLabel])) continue;
    await client.delete(controllerRevisions, history.metadata.name ?? '', { namespace: history.metadata.namespace });
    toKill--;
  }
}
