// GraceDelete's surge bound (feature gate GraceDeleteWebhook): the ReplicaSet controller's create of a
// controlled pod of a RollingUpdate Deployment is refused while the Deployment already has replicas + maxSurge
// pods that are not terminating, pods GraceDelete holds included (src/lifecycle/surge.ts). The ReplicaSet
// controller retries; the pod-deletion controller nudges it when a held pod is deleted.
//
// Decisions are made one Deployment at a time, and an admitted create is remembered until the API server shows
// its pod (or ADMITTED_FOR has passed: a later webhook or the storage may have refused it): creates reviewed at
// once never both take the last room. That memory is this process's own; with several podops replicas serving
// the webhook, two creates reviewed at the same moment by two replicas can.
//
// The memory is fed by reviews, which anyone reaching the webhook port can send: a review counts only when its
// pod's owner reference carries the ReplicaSet's uid, known only to those who can read it.
//
// The Deployment, its ReplicaSets and their controlled pods come from the shared caches, so a create costs the
// API server nothing whatever the Deployment's size; a ReplicaSet the cache does not hold yet (the first create
// of a new one) is read live once. The bound is a count, not a safety rule: when the Deployment cannot be read,
// the create is let through with a warning rather than held.

import type { Pod } from '../api/kube.ts';
import { GRACE_DELETE_WEBHOOK_NAME } from '../api/protocol.ts';
import { CACHES_NOT_SYNCED, cachesSynced } from '../cache/cluster-cache.ts';
import { replicaSetOf, type WorkloadReads } from '../cache/workloads.ts';
import { KeySerializer } from '../kube/key-serializer.ts';
import type { Logger } from '../kube/log.ts';
import { creationRoom, notYetStored, subjectToSurgeBound, surgeLimit } from '../lifecycle/surge.ts';
import { NANOS_PER_SECOND, type Nanos } from '../lifecycle/time.ts';
import { allowed, denied, type AdmissionRequest, type Verdict } from './admission.ts';

/** How long an admitted create counts while its pod does not show: longer than the rest of any create request takes. */
const ADMITTED_FOR = 10n * NANOS_PER_SECOND;

export interface DeploymentSurgeOptions {
  workloads: WorkloadReads;
  now: () => Nanos;
  logger?: Logger;
}

export class DeploymentSurgeAdmission {
  readonly #options: DeploymentSurgeOptions;
  readonly #decisions = new KeySerializer();
  /** Per Deployment (uid): the pods admitted and not seen stored yet, with when. */
  readonly #admitted = new Map<string, Map<string, Nanos>>();

  constructor(options: DeploymentSurgeOptions) {
    this.#options = options;
  }

  async admit(request: AdmissionRequest): Promise<Verdict> {
    if (request.operation !== 'CREATE' || request.subResource) return allowed();
    const pod = request.object as Pod | undefined;
    const owner = pod?.metadata && replicaSetOf(pod);
    if (!pod || !owner || !subjectToSurgeBound(pod, request.userInfo?.username ?? '')) return allowed();
    const { workloads, logger } = this.#options;
    const namespace = request.namespace ?? pod.metadata.namespace ?? '';
    // The validating phase sees the generated name.
    const name = pod.metadata.name ?? request.name ?? request.uid;
    try {
      if (!(await cachesSynced(workloads.caches))) throw new Error(CACHES_NOT_SYNCED);
      const replicaSet = await workloads.replicaSet(namespace, owner);
      if (!replicaSet) return allowed();
      const deployment = await workloads.deploymentOf(replicaSet);
      if (!deployment?.metadata.uid || surgeLimit(deployment) === undefined) return allowed();
      const uid = deployment.metadata.uid;
      return await this.#decisions.run(uid, async () => {
        const { replicaSets, pods } = workloads.deploymentFamily(deployment, [replicaSet]);
        const pending = this.#pending(uid, pods);
        const room = creationRoom(deployment, replicaSets, pods, pending.size);
        if (room.allowed && !request.dryRun) pending.set(name, this.#options.now());
        if (pending.size > 0) this.#admitted.set(uid, pending);
        return room.allowed ? allowed() : denied(`failed to validate ${GRACE_DELETE_WEBHOOK_NAME}, ${room.why}`);
      });
    } catch (err) {
      logger?.warn({ err, pod: `${namespace}/${name}` }, "cannot check the Deployment's surge bound: the create goes through");
      return allowed(undefined, [`podops could not check the Deployment's surge bound (${(err as Error).message}): the pod is created without it`]);
    }
  }

  /**
   * The Deployment's admitted creates whose pods do not show yet. Expired ones are forgotten, every Deployment's
   * (one deleted meanwhile is never decided on again), and so is the Deployment's record until it is stored again.
   */
  #pending(deploymentUid: string, pods: readonly Pod[]): Map<string, Nanos> {
    const now = this.#options.now();
    for (const [uid, admitted] of this.#admitted) {
      for (const [name, at] of admitted) if (now - at >= ADMITTED_FOR) admitted.delete(name);
      if (admitted.size === 0) this.#admitted.delete(uid);
    }
    const admitted = this.#admitted.get(deploymentUid);
    this.#admitted.delete(deploymentUid);
    const waiting = new Set(notYetStored(admitted?.keys() ?? [], pods));
    return new Map([...(admitted ?? [])].filter(([name]) => waiting.has(name)));
  }
}
