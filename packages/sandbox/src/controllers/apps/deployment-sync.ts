// One sync of a Deployment, as kube-controller-manager's deployment controller does it (syncDeployment
// and its rolling, recreate, scaling, status and cleanup steps): claim ReplicaSets, find or create the
// new one (named `<deployment>-<pod-template-hash>`), move revisions, scale, report status and
// conditions, and delete old ReplicaSets beyond revisionHistoryLimit. It works on a copy of the
// Deployment as the real controller does, so a status write after an earlier one in the same sync
// conflicts and the sync is retried.

import type { LocalClient } from '../../apiserver/local-client.ts';
import { StatusError } from '../../errors.ts';
import { cloneJson, objectKey, type KubeObject } from '../../meta/object.ts';
import { parseTimestamp, type Clock } from '../../meta/time.ts';
import { matchesLabels } from '../../selectors/labels.ts';
import type { ControllerContext } from '../in-process-controller.ts';
import type { EventRecorder } from '../event-recorder.ts';
import { claimObjects, controllerRefOf, newControllerRef, type OwnerKind } from './controller-ref.ts';
import type { ControllerIndex } from './controller-index.ts';
import {
  activeReplicaSets,
  annotationsOf,
  byCreation,
  byRevision,
  bySizeNewer,
  bySizeOlder,
  conditionOf,
  deploymentComplete,
  deploymentProgressing,
  deploymentStatusEqual,
  deploymentTimedOut,
  desiredReplicasAnnotation,
  equalIgnoreHash,
  findActiveOrLatest,
  findNewReplicaSet,
  findOldReplicaSets,
  isPaused,
  isRollingUpdate,
  isSaturated,
  maxRevision,
  maxSurge,
  maxUnavailable,
  newCondition,
  newReplicaSetReplicas,
  podTemplateHashLabel,
  progressDeadlineSeconds,
  proportion,
  readDeploymentStatus,
  reasons,
  removeCondition,
  renderDeploymentStatus,
  replicaCount,
  replicasAnnotationsNeedUpdate,
  revisionAnnotation,
  revisionHistoryLimit,
  setCondition,
  setDeploymentRevision,
  setNewReplicaSetAnnotations,
  setReplicasAnnotations,
  statusSum,
  strategyType,
  templateOf,
  type DeploymentCondition,
  type DeploymentStatus,
} from './deployment-util.ts';
import { errorText, namespaceTerminating } from './pod-control.ts';
import { podPhase } from './pod-state.ts';
import { podTemplateHash } from './pod-template-hash.ts';
import { replicaSetKind, replicaSetStorage, type ReplicaSetCondition } from './replica-set-controller.ts';
import { conditionsOf, minReadySecondsOf, selectorOf, specReplicas, statusCount } from './workload-fields.ts';

export const deploymentStorage = 'deployments.apps';
export const deploymentKind: OwnerKind = { group: 'apps', version: 'v1', resource: 'deployments', kind: 'Deployment' };

export interface DeploymentSyncDependencies {
  client: LocalClient;
  store: ControllerContext['store'];
  clock: Clock;
  recorder: EventRecorder;
  /** Pods by controller, for the pods of a Deployment's ReplicaSets. */
  pods: ControllerIndex;
  /** Syncs the key again after `ms` milliseconds. */
  requeueAfter(key: string, ms: number): void;
}

const isAlreadyExists = (err: unknown): boolean => err instanceof StatusError && err.status.code === 409 && err.status.reason === 'AlreadyExists';
const isNotFound = (err: unknown): boolean => err instanceof StatusError && err.status.code === 404;

export class DeploymentSync {
  readonly #deps: DeploymentSyncDependencies;

  constructor(deps: DeploymentSyncDependencies) {
    this.#deps = deps;
  }

  async sync(key: string): Promise<void> {
    const stored = this.#deps.store.get(deploymentStorage, key)?.object;
    if (!stored) return;
    const d = cloneJson(stored);
    const replicaSets = await this.#claimReplicaSets(d);
    if (d.metadata.deletionTimestamp) return this.#syncStatusOnly(d, replicaSets);
    // Paused and resumed show in the Progressing condition, so a resumed Deployment does not time out at once.
    await this.#checkPausedConditions(d);
    if (isPaused(d)) return this.#syncScale(d, replicaSets);
    if (await this.#isScalingEvent(d, replicaSets)) return this.#syncScale(d, replicaSets);
    const type = strategyType(d);
    if (type === 'Recreate') return this.#rolloutRecreate(d, replicaSets);
    if (type === 'RollingUpdate') return this.#rolloutRolling(d, replicaSets);
    throw new Error(`unexpected deployment strategy type: ${type}`);
  }

  // ---- ReplicaSets and pods of a Deployment ----

  /** getReplicaSetsForDeployment: the namespace's ReplicaSets this Deployment controls, after adoption and release. */
  async #claimReplicaSets(d: KubeObject): Promise<KubeObject[]> {
    const selector = selectorOf(d);
    if (!selector) throw new Error(`deployment ${d.metadata.namespace}/${d.metadata.name} has invalid label selector`);
    const candidates = this.#deps.store.list(replicaSetStorage, `${d.metadata.namespace}/`).map((e) => e.object);
    return claimObjects(candidates, {
      client: this.#deps.client,
      resource: replicaSetKind,
      owner: d,
      ownerKind: deploymentKind,
      matches: (rs) => matchesLabels(selector, rs.metadata.labels),
    });
  }

  /** getPodMapForDeployment, reduced to what Recreate asks: does any ReplicaSet but the new one still have a pod that is not terminal? */
  #oldPodsRunning(d: KubeObject, newRS: KubeObject | undefined, oldRSs: KubeObject[], replicaSets: KubeObject[]): boolean {
    if (statusSum(oldRSs, 'replicas') > 0) return true;
    const selector = selectorOf(d);
    for (const rs of replicaSets) {
      if (newRS && rs.metadata.uid === newRS.metadata.uid) continue;
      for (const podKey of this.#deps.pods.controlledBy(rs.metadata.uid ?? '')) {
        const pod = this.#deps.store.get('pods', podKey)?.object;
        if (!pod || !selector || !matchesLabels(selector, pod.metadata.labels)) continue;
        const phase = podPhase(pod);
        if (phase !== 'Failed' && phase !== 'Succeeded') return true;
      }
    }
    return false;
  }

  // ---- writes ----

  async #updateStatus(d: KubeObject, status: DeploymentStatus): Promise<void> {
    d.status = renderDeploymentStatus(status);
    await this.#deps.client.update(deploymentKind, d, { namespace: d.metadata.namespace, subresource: 'status' });
  }

  async #updateReplicaSet(rs: KubeObject): Promise<KubeObject> {
    return this.#deps.client.update(replicaSetKind, rs, { namespace: rs.metadata.namespace });
  }

  // ---- the new ReplicaSet and revisions ----

  /** getAllReplicaSetsAndSyncRevision */
  async #newAndOld(d: KubeObject, replicaSets: KubeObject[], createIfMissing: boolean): Promise<{ newRS: KubeObject | undefined; oldRSs: KubeObject[] }> {
    const oldRSs = findOldReplicaSets(d, replicaSets);
    const newRS = await this.#newReplicaSet(d, replicaSets, oldRSs, createIfMissing);
    return { newRS, oldRSs };
  }

  /** getNewReplicaSet: finds (and brings up to date) or creates the ReplicaSet of the current template. */
  async #newReplicaSet(d: KubeObject, replicaSets: KubeObject[], oldRSs: KubeObject[], createIfMissing: boolean): Promise<KubeObject | undefined> {
    const existing = findNewReplicaSet(d, replicaSets);
    const newRevision = maxRevision(oldRSs) + 1;
    const status = readDeploymentStatus(d);
    const now = this.#deps.clock();
    if (existing) {
      const copy = cloneJson(existing);
      const annotationsUpdated = setNewReplicaSetAnnotations(d, copy, newRevision, true);
      const rsSpec = copy.spec as Record<string, unknown>;
      if (annotationsUpdated || (rsSpec.minReadySeconds ?? 0) !== minReadySecondsOf(d)) {
        if (minReadySecondsOf(d)) rsSpec.minReadySeconds = minReadySecondsOf(d);
        else delete rsSpec.minReadySeconds;
        return this.#updateReplicaSet(copy);
      }
      let needsUpdate = setDeploymentRevision(d, annotationsOf(copy)[revisionAnnotation] ?? '');
      if (progressDeadlineSeconds(d) !== undefined && !conditionOf(status, 'Progressing')) {
        setCondition(status, newCondition('Progressing', 'True', reasons.foundNewRS, `Found new replica set "${copy.metadata.name}"`, now));
        needsUpdate = true;
      }
      if (needsUpdate) await this.#updateStatus(d, status);
      return copy;
    }
    if (!createIfMissing) return undefined;

    const template = cloneJson(templateOf(d)) as { metadata?: { labels?: Record<string, string> } };
    const hash = podTemplateHash(templateOf(d), status.collisionCount);
    template.metadata = { ...(template.metadata ?? {}), labels: { ...(template.metadata?.labels ?? {}), [podTemplateHashLabel]: hash } };
    const selector = cloneJson((d.spec as Record<string, unknown>).selector) as { matchLabels?: Record<string, string> };
    selector.matchLabels = { ...(selector.matchLabels ?? {}), [podTemplateHashLabel]: hash };
    const name = `${d.metadata.name}-${hash}`;
    const rs: KubeObject = {
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      metadata: { name, namespace: d.metadata.namespace, labels: template.metadata.labels, ownerReferences: [newControllerRef(d, deploymentKind)] },
      spec: { replicas: 0, ...(minReadySecondsOf(d) ? { minReadySeconds: minReadySecondsOf(d) } : {}), selector, template },
    };
    const replicas = newReplicaSetReplicas(d, [...oldRSs, rs], rs);
    (rs.spec as Record<string, unknown>).replicas = replicas;
    setNewReplicaSetAnnotations(d, rs, newRevision, false);

    let created: KubeObject;
    let alreadyExisted = false;
    try {
      created = await this.#deps.client.create(replicaSetKind, rs, { namespace: d.metadata.namespace });
    } catch (err) {
      if (isAlreadyExists(err)) {
        const found = this.#deps.store.get(replicaSetStorage, objectKey(d.metadata.namespace, name))?.object;
        if (!found) throw err;
        if (controllerRefOf(found)?.uid === d.metadata.uid && equalIgnoreHash(templateOf(d), templateOf(found))) {
          created = found;
          alreadyExisted = true;
        } else {
          // A hash collision: the next sync hashes with a higher collisionCount.
          status.collisionCount = (status.collisionCount ?? 0) + 1;
          await this.#updateStatus(d, status).catch(() => undefined);
          throw err;
        }
      } else {
        if (namespaceTerminating(err)) throw err;
        const message = `Failed to create new replica set "${name}": ${errorText(err)}`;
        if (progressDeadlineSeconds(d) !== undefined) {
          setCondition(status, newCondition('Progressing', 'False', reasons.failedRSCreate, message, now));
          await this.#updateStatus(d, status).catch(() => undefined);
        }
        this.#deps.recorder.warning(d, reasons.failedRSCreate, message);
        throw err;
      }
    }
    if (!alreadyExisted && replicas > 0) this.#deps.recorder.normal(d, 'ScalingReplicaSet', `Scaled up replica set ${created.metadata.name} from 0 to ${replicas}`);
    let needsUpdate = setDeploymentRevision(d, String(newRevision));
    if (!alreadyExisted && progressDeadlineSeconds(d) !== undefined) {
      setCondition(status, newCondition('Progressing', 'True', reasons.newRSCreated, `Created new replica set "${created.metadata.name}"`, now));
      needsUpdate = true;
    }
    if (needsUpdate) await this.#updateStatus(d, status);
    return created;
  }

  // ---- scaling ----

  /** scaleReplicaSet: writes a new size (and the replicas annotations) and records ScalingReplicaSet. */
  async #scaleReplicaSet(rs: KubeObject, newScale: number, d: KubeObject, operation: 'up' | 'down' | ''): Promise<{ scaled: boolean; rs: KubeObject }> {
    const oldScale = specReplicas(rs);
    const sizeNeedsUpdate = oldScale !== newScale;
    const desired = specReplicas(d);
    const max = desired + maxSurge(d);
    if (!sizeNeedsUpdate && !replicasAnnotationsNeedUpdate(rs, desired, max)) return { scaled: false, rs };
    const copy = cloneJson(rs);
    (copy.spec as Record<string, unknown>).replicas = newScale;
    setReplicasAnnotations(copy, desired, max);
    const updated = await this.#updateReplicaSet(copy);
    if (!sizeNeedsUpdate) return { scaled: false, rs: updated };
    const verb = operation === 'up' ? 'Scaled up' : 'Scaled down';
    this.#deps.recorder.normal(d, 'ScalingReplicaSet', `${verb} replica set ${updated.metadata.name} from ${oldScale} to ${newScale}`);
    return { scaled: true, rs: updated };
  }

  /** scaleReplicaSetAndRecordEvent */
  async #scaleTo(rs: KubeObject, newScale: number, d: KubeObject): Promise<{ scaled: boolean; rs: KubeObject }> {
    if (specReplicas(rs) === newScale) return { scaled: false, rs };
    return this.#scaleReplicaSet(rs, newScale, d, specReplicas(rs) < newScale ? 'up' : 'down');
  }

  /** isScalingEvent: an active ReplicaSet was sized for another replica count. */
  async #isScalingEvent(d: KubeObject, replicaSets: KubeObject[]): Promise<boolean> {
    const { newRS, oldRSs } = await this.#newAndOld(d, replicaSets, false);
    return activeReplicaSets([...oldRSs, newRS]).some((rs) => {
      const desired = annotationsOf(rs)[desiredReplicasAnnotation];
      return desired !== undefined && /^[+-]?\d+$/.test(desired) && Number(desired) !== specReplicas(d);
    });
  }

  /** scale: the only active ReplicaSet takes every replica; during a rollout, every active one its proportion. */
  async #scale(d: KubeObject, newRS: KubeObject | undefined, oldRSs: KubeObject[]): Promise<void> {
    const replicas = specReplicas(d);
    const activeOrLatest = findActiveOrLatest(newRS, oldRSs);
    if (activeOrLatest) {
      if (specReplicas(activeOrLatest) !== replicas) await this.#scaleTo(activeOrLatest, replicas, d);
      return;
    }
    if (isSaturated(d, newRS)) {
      for (const old of activeReplicaSets(oldRSs)) await this.#scaleTo(old, 0, d);
      return;
    }
    if (!isRollingUpdate(d)) return;
    const all = activeReplicaSets([...oldRSs, newRS]);
    const allowed = replicas > 0 ? replicas + maxSurge(d) : 0;
    const toAdd = allowed - replicaCount(all);
    let operation: 'up' | 'down' | '' = '';
    if (toAdd > 0) {
      all.sort(bySizeNewer);
      operation = 'up';
    } else if (toAdd < 0) {
      all.sort(bySizeOlder);
      operation = 'down';
    }
    let added = 0;
    const sizes = new Map<string, number>();
    for (const rs of all) {
      if (toAdd === 0) {
        sizes.set(rs.metadata.name ?? '', specReplicas(rs));
        continue;
      }
      const share = proportion(rs, d, toAdd, added);
      sizes.set(rs.metadata.name ?? '', specReplicas(rs) + share);
      added += share;
    }
    for (const [i, rs] of all.entries()) {
      const name = rs.metadata.name ?? '';
      // Leftovers go to the largest ReplicaSet.
      if (i === 0 && toAdd !== 0) sizes.set(name, Math.max(0, (sizes.get(name) ?? 0) + toAdd - added));
      await this.#scaleReplicaSet(rs, sizes.get(name) ?? 0, d, operation);
    }
  }

  /** sync: a paused Deployment or a scaling event: scale without rolling, then report status. */
  async #syncScale(d: KubeObject, replicaSets: KubeObject[]): Promise<void> {
    const { newRS, oldRSs } = await this.#newAndOld(d, replicaSets, false);
    await this.#scale(d, newRS, oldRSs);
    if (isPaused(d)) await this.#cleanup(d, oldRSs);
    await this.#syncDeploymentStatus(d, [...oldRSs, newRS], newRS);
  }

  async #syncStatusOnly(d: KubeObject, replicaSets: KubeObject[]): Promise<void> {
    const { newRS, oldRSs } = await this.#newAndOld(d, replicaSets, false);
    await this.#syncDeploymentStatus(d, [...oldRSs, newRS], newRS);
  }

  // ---- RollingUpdate ----

  async #rolloutRolling(d: KubeObject, replicaSets: KubeObject[]): Promise<void> {
    const { newRS, oldRSs } = await this.#newAndOld(d, replicaSets, true);
    if (!newRS) throw new Error('no new replica set');
    const all = [...oldRSs, newRS];
    if (await this.#reconcileNewReplicaSet(d, all, newRS)) return this.#syncRolloutStatus(d, all, newRS);
    if (await this.#reconcileOldReplicaSets(d, all, activeReplicaSets(oldRSs), newRS)) return this.#syncRolloutStatus(d, all, newRS);
    if (deploymentComplete(d, readDeploymentStatus(d))) await this.#cleanup(d, oldRSs);
    return this.#syncRolloutStatus(d, all, newRS);
  }

  async #reconcileNewReplicaSet(d: KubeObject, all: KubeObject[], newRS: KubeObject): Promise<boolean> {
    const replicas = specReplicas(d);
    if (specReplicas(newRS) === replicas) return false;
    if (specReplicas(newRS) > replicas) return (await this.#scaleTo(newRS, replicas, d)).scaled;
    return (await this.#scaleTo(newRS, newReplicaSetReplicas(d, all, newRS), d)).scaled;
  }

  /** reconcileOldReplicaSets: scale old ReplicaSets down as far as maxUnavailable allows, unhealthy replicas first. */
  async #reconcileOldReplicaSets(d: KubeObject, all: KubeObject[], oldRSs: KubeObject[], newRS: KubeObject): Promise<boolean> {
    if (replicaCount(oldRSs) === 0) return false;
    const minAvailable = specReplicas(d) - maxUnavailable(d);
    const newRSUnavailable = specReplicas(newRS) - statusCount(newRS, 'availableReplicas');
    const maxScaledDown = replicaCount(all) - minAvailable - newRSUnavailable;
    if (maxScaledDown <= 0) return false;
    // Errors here end the step quietly, as upstream: the next sync tries again.
    try {
      const { oldRSs: cleaned, count: cleanedUp } = await this.#cleanupUnhealthyReplicas(d, oldRSs, maxScaledDown);
      const scaledDown = await this.#scaleDownOldForRollingUpdate(d, [...cleaned, newRS], cleaned);
      return cleanedUp + scaledDown > 0;
    } catch {
      return false;
    }
  }

  async #cleanupUnhealthyReplicas(d: KubeObject, oldRSs: KubeObject[], maxCleanup: number): Promise<{ oldRSs: KubeObject[]; count: number }> {
    const sorted = [...oldRSs].sort(byCreation);
    let total = 0;
    for (const [i, rs] of sorted.entries()) {
      if (total >= maxCleanup) break;
      const replicas = specReplicas(rs);
      const available = statusCount(rs, 'availableReplicas');
      if (replicas === 0 || replicas === available) continue;
      const count = Math.min(maxCleanup - total, replicas - available);
      // More available pods than replicas (pods whose deletes were refused): upstream refuses to "clean up" into
      // a larger size, and the rollout step ends until a later sync.
      if (count < 0) throw new Error(`when cleaning up unhealthy replicas, got invalid request to scale down ${rs.metadata.namespace}/${rs.metadata.name} ${replicas} -> ${replicas - count}`);
      sorted[i] = (await this.#scaleTo(rs, replicas - count, d)).rs;
      total += count;
    }
    return { oldRSs: sorted, count: total };
  }

  async #scaleDownOldForRollingUpdate(d: KubeObject, all: KubeObject[], oldRSs: KubeObject[]): Promise<number> {
    const minAvailable = specReplicas(d) - maxUnavailable(d);
    const available = statusSum(all, 'availableReplicas');
    if (available <= minAvailable) return 0;
    const toScaleDown = available - minAvailable;
    let total = 0;
    for (const rs of [...oldRSs].sort(byCreation)) {
      if (total >= toScaleDown) break;
      const replicas = specReplicas(rs);
      if (replicas === 0) continue;
      const count = Math.min(replicas, toScaleDown - total);
      await this.#scaleTo(rs, replicas - count, d);
      total += count;
    }
    return total;
  }

  // ---- Recreate ----

  async #rolloutRecreate(d: KubeObject, replicaSets: KubeObject[]): Promise<void> {
    // The new ReplicaSet is created only once the old pods are gone.
    let { newRS, oldRSs } = await this.#newAndOld(d, replicaSets, false);
    let all = [...oldRSs, newRS];
    let scaledDown = false;
    for (const rs of activeReplicaSets(oldRSs)) if ((await this.#scaleTo(rs, 0, d)).scaled) scaledDown = true;
    if (scaledDown) return this.#syncRolloutStatus(d, all, newRS);
    if (this.#oldPodsRunning(d, newRS, oldRSs, replicaSets)) return this.#syncRolloutStatus(d, all, newRS);
    if (!newRS) {
      ({ newRS, oldRSs } = await this.#newAndOld(d, replicaSets, true));
      all = [...oldRSs, newRS];
    }
    if (newRS) await this.#scaleTo(newRS, specReplicas(d), d);
    if (deploymentComplete(d, readDeploymentStatus(d))) await this.#cleanup(d, oldRSs);
    return this.#syncRolloutStatus(d, all, newRS);
  }

  // ---- status ----

  /** calculateStatus: counts from the ReplicaSets and the Available condition. */
  #calculateStatus(d: KubeObject, all: (KubeObject | undefined)[], newRS: KubeObject | undefined): DeploymentStatus {
    const available = statusSum(all, 'availableReplicas');
    const current = readDeploymentStatus(d);
    const status: DeploymentStatus = {
      observedGeneration: d.metadata.generation ?? 0,
      replicas: statusSum(all, 'replicas'),
      updatedReplicas: statusSum([newRS], 'replicas'),
      readyReplicas: statusSum(all, 'readyReplicas'),
      availableReplicas: available,
      unavailableReplicas: Math.max(0, replicaCount(all) - available),
      conditions: current.conditions,
      collisionCount: current.collisionCount,
    };
    const now = this.#deps.clock();
    if (available >= specReplicas(d) - maxUnavailable(d)) {
      setCondition(status, newCondition('Available', 'True', reasons.minimumReplicasAvailable, 'Deployment has minimum availability.', now));
    } else {
      setCondition(status, newCondition('Available', 'False', reasons.minimumReplicasUnavailable, 'Deployment does not have minimum availability.', now));
    }
    return status;
  }

  async #syncDeploymentStatus(d: KubeObject, all: (KubeObject | undefined)[], newRS: KubeObject | undefined): Promise<void> {
    const status = this.#calculateStatus(d, all, newRS);
    if (deploymentStatusEqual(readDeploymentStatus(d), status)) return;
    await this.#updateStatus(d, status);
  }

  /** syncRolloutStatus: status plus the Progressing condition (progress, completion, deadline) and replica failures. */
  async #syncRolloutStatus(d: KubeObject, all: (KubeObject | undefined)[], newRS: KubeObject | undefined): Promise<void> {
    const status = this.#calculateStatus(d, all, newRS);
    const deadline = progressDeadlineSeconds(d);
    if (deadline === undefined) removeCondition(status, 'Progressing');
    const current = conditionOf(readDeploymentStatus(d), 'Progressing');
    const isCompleteDeployment = status.replicas === status.updatedReplicas && current?.reason === reasons.newRSAvailable;
    const now = this.#deps.clock();
    const subject = newRS ? `ReplicaSet "${newRS.metadata.name}"` : `Deployment "${d.metadata.name}"`;
    if (deadline !== undefined && !isCompleteDeployment) {
      if (deploymentComplete(d, status)) {
        setCondition(status, newCondition('Progressing', 'True', reasons.newRSAvailable, `${subject} has successfully progressed.`, now));
      } else if (deploymentProgressing(d, status)) {
        const condition = newCondition('Progressing', 'True', reasons.replicaSetUpdated, `${subject} is progressing.`, now);
        if (current) {
          if (current.status === 'True') condition.lastTransitionTime = current.lastTransitionTime;
          removeCondition(status, 'Progressing');
        }
        setCondition(status, condition);
      } else if (deploymentTimedOut(d, status, now)) {
        setCondition(status, newCondition('Progressing', 'False', reasons.timedOut, `${subject} has timed out progressing.`, now));
      }
    }
    const failure = replicaFailure(all, newRS);
    if (failure) setCondition(status, failure);
    else removeCondition(status, 'ReplicaFailure');
    if (deploymentStatusEqual(readDeploymentStatus(d), status)) {
      this.#requeueStuckDeployment(d, status);
      return;
    }
    await this.#updateStatus(d, status);
  }

  /** requeueStuckDeployment: check again when the progress deadline would pass. */
  #requeueStuckDeployment(d: KubeObject, status: DeploymentStatus): void {
    const deadline = progressDeadlineSeconds(d);
    const current = conditionOf(readDeploymentStatus(d), 'Progressing');
    if (deadline === undefined || !current) return;
    if (deploymentComplete(d, status) || current.reason === reasons.timedOut) return;
    const after = (parseTimestamp(current.lastUpdateTime) ?? 0) + deadline * 1000 - this.#deps.clock();
    const key = objectKey(d.metadata.namespace, d.metadata.name ?? '');
    this.#deps.requeueAfter(key, after < 1000 ? 5 : after + 1000);
  }

  async #checkPausedConditions(d: KubeObject): Promise<void> {
    if (progressDeadlineSeconds(d) === undefined) return;
    const status = readDeploymentStatus(d);
    const condition = conditionOf(status, 'Progressing');
    if (condition?.reason === reasons.timedOut) return;
    const pausedShown = condition?.reason === reasons.paused;
    const now = this.#deps.clock();
    if (isPaused(d) && !pausedShown) setCondition(status, newCondition('Progressing', 'Unknown', reasons.paused, 'Deployment is paused', now));
    else if (!isPaused(d) && pausedShown) setCondition(status, newCondition('Progressing', 'Unknown', reasons.resumed, 'Deployment is resumed', now));
    else return;
    await this.#updateStatus(d, status);
  }

  // ---- history ----

  /** cleanupDeployment: deletes the oldest empty ReplicaSets beyond revisionHistoryLimit. */
  async #cleanup(d: KubeObject, oldRSs: KubeObject[]): Promise<void> {
    const limit = revisionHistoryLimit(d);
    if (limit === undefined) return;
    const cleanable = oldRSs.filter((rs) => !rs.metadata.deletionTimestamp).sort(byRevision);
    const diff = cleanable.length - limit;
    for (const rs of cleanable.slice(0, Math.max(0, diff))) {
      if (statusCount(rs, 'replicas') !== 0 || specReplicas(rs) !== 0 || (rs.metadata.generation ?? 0) > statusCount(rs, 'observedGeneration')) continue;
      try {
        await this.#deps.client.delete(replicaSetKind, rs.metadata.name ?? '', { namespace: rs.metadata.namespace });
      } catch (err) {
        if (!isNotFound(err)) throw err;
      }
    }
  }
}

/** getReplicaFailures: the new ReplicaSet's ReplicaFailure, else the first old one's, as a Deployment condition. */
function replicaFailure(all: (KubeObject | undefined)[], newRS: KubeObject | undefined): DeploymentCondition | undefined {
  const failureOf = (rs: KubeObject | undefined): DeploymentCondition | undefined => {
    const c = rs ? conditionsOf<ReplicaSetCondition>(rs).find((x) => x.type === 'ReplicaFailure') : undefined;
    return c && { type: c.type, status: c.status, lastUpdateTime: c.lastTransitionTime, lastTransitionTime: c.lastTransitionTime, reason: c.reason, message: c.message };
  };
  return failureOf(newRS) ?? all.map(failureOf).find((c) => c !== undefined);
}
