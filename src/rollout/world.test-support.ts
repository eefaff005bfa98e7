// A small world for the property tests of src/rollout: one workload, its native controller reduced to what a
// hold acts on, its pods and the hook Jobs, with podops' webhook and controller wired to src/rollout as
// src/webhook/rollout.ts and src/controllers/rollout-controller.ts wire them. Every step is explicit (a native
// controller sync, a pod becoming available, a Job finishing, a podops reconcile), so a test interleaves them.
// Time is a counter of seconds.
//
// The native controllers, as far as they matter here:
// - Deployment (the Deployment controller's sync and rolloutRolling, pods created and removed at once): paused,
//   no rollout (not even the new ReplicaSet), but a rolling Deployment with several active ReplicaSets is
//   scaled in proportion to replicas + maxSurge; else one sync scales the new ReplicaSet up within replicas +
//   maxSurge, or the old ones down keeping replicas - maxUnavailable available. Recreate empties the old ones
//   first.
// - StatefulSet: a deleted pod comes back at the update revision (the current one below a RollingUpdate's
//   partition); a RollingUpdate deletes the highest ordinal at or above the partition not yet updated, one at a
//   time, once every pod is available. OnDelete waits for someone to delete pods.
// - DaemonSet: a deleted pod comes back with the current template; a RollingUpdate deletes old pods, unavailable
//   ones first, keeping at most maxUnavailable (rounded up) unavailable. OnDelete waits.

import { CONTROLLER_REVISION_HASH_LABEL, resolveIntOrPercent, type Pod } from '../api/kube.ts';
import {
  RL_API_VERSION,
  RL_FINALIZER,
  RL_JOB_HOOK_LABEL,
  RL_KIND,
  RL_USER_SETTINGS_ANNOTATION,
  RL_WORKLOAD_LABEL,
  type LifecycleHook,
  type RolloutLifecycle,
  type RolloutLifecycleStatus,
  type WorkloadKind,
} from '../api/rolloutlifecycle.ts';
import { admitWorkloadUpdate } from './admission.ts';
import { applyPatch, mergePatch, NAME, NAMESPACE, template, UID } from './fixtures.test-support.ts';
import { observeRollout, type ControllerRevision, type ObservedRollout, type ReplicaSetLike } from './observe.ts';
import { planRollout, rolloutPlanInput, type Plan } from './plan.ts';
import { templateHash, type Json, type JsonObject, type Settings, type Workload } from './workload.ts';
import { rolloutWrites, type PatchRequest, type RolloutRequest, type Tolerated } from './writes.ts';

const START = Date.parse('2025-03-01T10:00:00Z');
const isObject = (value: unknown): value is JsonObject => typeof value === 'object' && value !== null && !Array.isArray(value);

export interface SimPod {
  name: string;
  ordinal: number;
  /** Index of the template it runs. */
  template: number;
  ready: boolean;
  terminating: boolean;
}

export interface SimJob {
  hook: string;
  phase: 'Active' | 'Succeeded' | 'Failed';
  suspended: boolean;
}

interface ReplicaSet {
  name: string;
  template: number;
  replicas: number;
  /** The max-replicas annotation: replicas + maxSurge when the controller last scaled it. */
  maxReplicas: number;
}

interface Revision {
  name: string;
  hash: string;
  template: number;
  revision: number;
}

export type Status = RolloutLifecycleStatus;

/** The RolloutLifecycle of the world's workload: `hooks`, as the workload's label names it. */
const RL_NAME = 'hooks';

/** Where podops is killed in a reconcile: after creating its Jobs, or after writing the status too. */
export type Crash = 'before-hold' | 'before-status';

/** What a reconcile saw and decided, handed to the test before it is acted on. */
export interface Reconcile {
  observed: ObservedRollout;
  plan: Plan;
  /** The status the plan was made from. */
  before: Status;
}

export class World {
  readonly kind: WorkloadKind;
  readonly replicas: number;
  readonly hooks: LifecycleHook[];
  readonly templates: JsonObject[] = [template('app:v0'), template('app:v1'), template('app:v2')];
  spec: JsonObject;
  annotations: Record<string, string> | undefined;
  generation = 1;
  observedGeneration = 1;
  pods: SimPod[] = [];
  sets: ReplicaSet[] = [];
  revisions: Revision[] = [];
  updateRevision = '';
  currentRevision = '';
  readonly jobs = new Map<string, SimJob>();
  rolloutLifecycle: RolloutLifecycle;
  /** The workload's resourceVersion: each stored write makes a new one, which guarded writes compare with. */
  resourceVersion = 1;
  second = 0;
  #podCounter = 0;

  constructor(kind: WorkloadKind, replicas: number, user: Settings, hooks: LifecycleHook[]) {
    this.kind = kind;
    this.replicas = replicas;
    this.hooks = hooks;
    this.rolloutLifecycle = {
      apiVersion: RL_API_VERSION,
      kind: RL_KIND,
      metadata: { name: RL_NAME, namespace: NAMESPACE, generation: 1, resourceVersion: '1', finalizers: [RL_FINALIZER] },
      spec: { targetRef: { kind, name: NAME }, hooks },
    };
    this.spec = { ...(kind !== 'DaemonSet' && { replicas }), selector: { matchLabels: { app: NAME } }, template: structuredClone(this.templates[0]!), ...structuredClone(user) };
    if (kind === 'Deployment') {
      this.sets.push({ name: this.#revisionName(0), template: 0, replicas, maxReplicas: replicas + this.#maxSurge() });
    } else {
      this.#ensureRevision();
      this.currentRevision = this.updateRevision;
    }
    for (let i = 0; i < replicas; i++) this.pods.push({ name: this.#podName(i), ordinal: i, template: 0, ready: true, terminating: false });
  }

  get now(): string {
    return new Date(START + this.second * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
  }

  /** The template the workload declares now, by index. */
  get target(): number {
    return this.templates.findIndex((t) => templateHash(t) === templateHash(this.spec.template as Json));
  }

  /** The RolloutLifecycle's status, as podops last wrote it. */
  get status(): Status {
    return this.rolloutLifecycle.status ?? {};
  }

  get held(): boolean {
    return this.annotations?.[RL_USER_SETTINGS_ANNOTATION] !== undefined;
  }

  #revisionName(index: number): string {
    return `${NAME}-${templateHash(this.templates[index]!).slice(0, 8)}`;
  }

  #podName(ordinal: number): string {
    return this.kind === 'Deployment' ? `${NAME}-pod-${this.#podCounter++}` : this.kind === 'StatefulSet' ? `${NAME}-${ordinal}` : `${NAME}-node-${ordinal}`;
  }

  // ---- the workload as the API server has it ----

  workload(): Workload {
    const live = this.pods.filter((p) => !p.terminating);
    const status: JsonObject =
      this.kind === 'Deployment'
        ? {
            observedGeneration: this.observedGeneration,
            replicas: live.length,
            updatedReplicas: live.filter((p) => p.template === this.target).length,
            availableReplicas: live.filter((p) => p.ready).length,
          }
        : this.kind === 'StatefulSet'
          ? { observedGeneration: this.observedGeneration, updateRevision: this.updateRevision, currentRevision: this.currentRevision }
          : { observedGeneration: this.observedGeneration, desiredNumberScheduled: this.replicas };
    return {
      apiVersion: 'apps/v1',
      kind: this.kind,
      metadata: { name: NAME, namespace: NAMESPACE, uid: UID, resourceVersion: String(this.resourceVersion), generation: this.generation, labels: { [RL_WORKLOAD_LABEL]: RL_NAME }, ...(this.annotations && { annotations: { ...this.annotations } }) },
      spec: structuredClone(this.spec),
      status,
    };
  }

  /** Stores a written workload: a changed spec is a new generation. */
  #store(written: Workload): void {
    this.resourceVersion++;
    if (JSON.stringify(written.spec) !== JSON.stringify(this.spec)) this.generation++;
    this.spec = written.spec ?? {};
    this.annotations = written.metadata.annotations && Object.keys(written.metadata.annotations).length > 0 ? written.metadata.annotations : undefined;
  }

  #revisionLabel(template: number): string {
    const revision = this.revisions.find((r) => r.template === template);
    return this.kind === 'StatefulSet' ? (revision?.name ?? '') : (revision?.hash ?? '');
  }

  observe(): ObservedRollout {
    const now = START + this.second * 1000;
    const jobs = [...this.jobs].map(([name, job]) => ({
      metadata: { name },
      status: { conditions: job.phase === 'Active' ? [] : [{ type: job.phase === 'Succeeded' ? 'Complete' : 'Failed', status: 'True' }] },
    }));
    if (this.kind === 'Deployment') {
      const replicaSets: ReplicaSetLike[] = this.sets.map((rs) => {
        const t = this.templates[rs.template]!;
        return {
          metadata: { name: rs.name, ownerReferences: [{ uid: UID }] },
          spec: { replicas: rs.replicas, template: { ...t, metadata: { labels: { app: NAME, 'pod-template-hash': rs.name } } } },
          status: {
            replicas: this.pods.filter((p) => p.template === rs.template).length,
            availableReplicas: this.pods.filter((p) => p.template === rs.template && p.ready && !p.terminating).length,
          },
        };
      });
      return observeRollout({ kind: this.kind, workload: this.workload(), replicaSets, jobs, now });
    }
    const controllerRevisions: ControllerRevision[] = this.revisions.map((r) => ({
      metadata: { name: r.name, labels: { [CONTROLLER_REVISION_HASH_LABEL]: r.hash }, ownerReferences: [{ uid: UID }] },
      revision: r.revision,
      data: { spec: { template: { ...this.templates[r.template]!, $patch: 'replace' } } },
    }));
    const pods: Pod[] = this.pods.map((p) => ({
      metadata: {
        name: p.name,
        labels: { app: NAME, [CONTROLLER_REVISION_HASH_LABEL]: this.#revisionLabel(p.template) },
        ownerReferences: [{ apiVersion: 'apps/v1', kind: this.kind, name: NAME, uid: UID }],
        ...(p.terminating && { deletionTimestamp: this.now }),
      },
      status: { conditions: [{ type: 'Ready', status: p.ready ? 'True' : 'False', lastTransitionTime: this.now }] },
    }));
    return observeRollout({ kind: this.kind, workload: this.workload(), controllerRevisions, pods, jobs, now });
  }

  // ---- the user ----

  /** A write of the user's, through podops' workload webhook (the API server applies its patch). */
  userWrite(change: (spec: JsonObject) => void): void {
    this.second++;
    const oldObject = this.workload();
    const object = structuredClone(oldObject);
    change(object.spec as JsonObject);
    const revisions = this.observe().revisions;
    const patch = admitWorkloadUpdate({ kind: this.kind, oldObject, object, byPodops: false, hooked: this.hooks.length > 0, revisions, now: this.now, rolloutId: `r${this.second}` });
    this.#store(applyPatch(object, patch));
  }

  /** A template change; `seen: false`, one the workload webhook did not see (it was not labelled then). */
  changeTemplate(index: number, seen = true): void {
    const change = (spec: JsonObject) => {
      spec.template = structuredClone(this.templates[index]!);
    };
    if (seen) return this.userWrite(change);
    this.second++;
    const written = this.workload();
    change(written.spec as JsonObject);
    this.#store(written);
  }

  /** The user deletes an old pod (what OnDelete waits for). */
  deletePod(pick: number): boolean {
    const old = this.pods.filter((p) => !p.terminating && p.template !== this.target);
    const pod = old[pick % Math.max(1, old.length)];
    if (!pod) return false;
    this.second++;
    pod.terminating = true;
    return true;
  }

  // ---- the kubelet and the Jobs ----

  podAvailable(pick: number): boolean {
    const waiting = this.pods.filter((p) => !p.ready && !p.terminating);
    const pod = waiting[pick % Math.max(1, waiting.length)];
    if (!pod) return false;
    this.second++;
    pod.ready = true;
    return true;
  }

  finishJob(pick: number, succeeds: (hook: string) => boolean): string | undefined {
    const active = [...this.jobs].filter(([, job]) => job.phase === 'Active' && !job.suspended);
    const entry = active[pick % Math.max(1, active.length)];
    if (!entry) return undefined;
    this.second++;
    entry[1].phase = succeeds(entry[1].hook) ? 'Succeeded' : 'Failed';
    return entry[0];
  }

  // ---- the native controllers ----

  /** One sync of the workload's controller; whether it changed anything. */
  native(): boolean {
    this.second++;
    const before = JSON.stringify([this.pods, this.sets, this.revisions, this.updateRevision, this.currentRevision, this.observedGeneration]);
    this.observedGeneration = this.generation;
    if (this.kind === 'Deployment') this.#deployment();
    else if (this.kind === 'StatefulSet') this.#statefulSet();
    else this.#daemonSet();
    return before !== JSON.stringify([this.pods, this.sets, this.revisions, this.updateRevision, this.currentRevision, this.observedGeneration]);
  }

  /** The stored strategy's maxSurge (0 for Recreate), and its maxUnavailable (never both 0). */
  #fenceposts(): { surge: number; unavailable: number } {
    const strategy = isObject(this.spec.strategy) ? this.spec.strategy : { type: 'RollingUpdate' };
    if (strategy.type === 'Recreate') return { surge: 0, unavailable: 0 };
    const rollingUpdate = isObject(strategy.rollingUpdate) ? strategy.rollingUpdate : {};
    const surge = resolveIntOrPercent(rollingUpdate.maxSurge, this.replicas, true, '25%');
    const unavailable = resolveIntOrPercent(rollingUpdate.maxUnavailable, this.replicas, false, '25%');
    return { surge, unavailable: surge === 0 && unavailable === 0 ? 1 : unavailable };
  }

  #maxSurge(): number {
    return this.#fenceposts().surge;
  }

  #scale(rs: ReplicaSet, replicas: number): void {
    rs.replicas = replicas;
    rs.maxReplicas = this.replicas + this.#maxSurge();
    const mine = this.pods.filter((p) => p.template === rs.template);
    for (let i = mine.length; i < replicas; i++) this.pods.push({ name: this.#podName(0), ordinal: 0, template: rs.template, ready: false, terminating: false });
    // Scaled down: the pods not ready go first.
    const gone = new Set(mine.sort((a, b) => Number(a.ready) - Number(b.ready)).slice(0, Math.max(0, mine.length - replicas)));
    this.pods = this.pods.filter((p) => !gone.has(p));
  }

  #available(rs: ReplicaSet): number {
    return this.pods.filter((p) => p.template === rs.template && p.ready && !p.terminating).length;
  }

  #deployment(): void {
    if (this.spec.paused === true) return this.#pausedSync();
    const target = this.target;
    let newRS = this.sets.find((rs) => rs.template === target);
    if (!newRS) {
      newRS = { name: this.#revisionName(target), template: target, replicas: 0, maxReplicas: 0 };
      this.sets.push(newRS);
    }
    const olds = this.sets.filter((rs) => rs !== newRS);
    const strategy = isObject(this.spec.strategy) ? this.spec.strategy : { type: 'RollingUpdate' };
    if (strategy.type === 'Recreate') {
      if (olds.some((rs) => rs.replicas > 0)) for (const rs of olds) this.#scale(rs, 0);
      else this.#scale(newRS, this.replicas);
      return;
    }
    const { surge, unavailable } = this.#fenceposts();
    const maxUnavailable = this.replicas === 0 ? 0 : Math.min(unavailable, this.replicas);
    const total = this.sets.reduce((sum, rs) => sum + rs.replicas, 0);
    if (newRS.replicas < this.replicas) {
      const up = Math.min(Math.max(0, this.replicas + surge - total), this.replicas - newRS.replicas);
      if (up > 0) return this.#scale(newRS, newRS.replicas + up);
    } else if (newRS.replicas > this.replicas) return this.#scale(newRS, this.replicas);
    const available = (rs: ReplicaSet) => this.#available(rs);
    const minAvailable = this.replicas - maxUnavailable;
    const newUnavailable = newRS.replicas - available(newRS);
    let budget = total - minAvailable - newUnavailable;
    if (budget <= 0) return;
    // Unhealthy old replicas first, then as far as availability allows.
    for (const rs of olds) {
      const unhealthy = Math.min(budget, rs.replicas - available(rs));
      if (unhealthy > 0) {
        this.#scale(rs, rs.replicas - unhealthy);
        budget -= unhealthy;
      }
    }
    let down = this.sets.reduce((sum, rs) => sum + available(rs), 0) - minAvailable;
    for (const rs of olds) {
      const count = Math.min(rs.replicas, Math.max(0, down));
      if (count > 0) {
        this.#scale(rs, rs.replicas - count);
        down -= count;
      }
    }
  }

  /** A paused Deployment's sync: no rollout, but scaling (the controller's `scale`, proportions and all). */
  #pausedSync(): void {
    const newRS = this.sets.find((rs) => rs.template === this.target);
    const active = this.sets.filter((rs) => rs.replicas > 0);
    if (active.length <= 1) {
      const only = active[0] ?? newRS ?? this.sets.at(-1);
      if (only && only.replicas !== this.replicas) this.#scale(only, this.replicas);
      return;
    }
    if (newRS && newRS.replicas === this.replicas && this.#available(newRS) === this.replicas) {
      for (const rs of this.sets) if (rs !== newRS) this.#scale(rs, 0);
      return;
    }
    if (isObject(this.spec.strategy) && this.spec.strategy.type === 'Recreate') return;
    const allowed = this.replicas > 0 ? this.replicas + this.#maxSurge() : 0;
    const toAdd = allowed - active.reduce((n, rs) => n + rs.replicas, 0);
    if (toAdd === 0) return;
    // Larger first; on a tie, newer first when adding, older first when removing. Leftovers go to the first.
    const order = active.map((rs) => ({ rs, created: this.sets.indexOf(rs) }));
    order.sort((a, b) => b.rs.replicas - a.rs.replicas || (toAdd > 0 ? b.created - a.created : a.created - b.created));
    const podCount = this.pods.filter((p) => !p.terminating).length;
    let added = 0;
    const sizes = order.map(({ rs }) => {
      if (toAdd === added) return rs.replicas;
      const before = rs.maxReplicas || podCount;
      const fraction = before === 0 ? 0 : Math.round((rs.replicas * allowed) / before) - rs.replicas;
      const share = toAdd > 0 ? Math.min(fraction, toAdd - added) : Math.max(fraction, toAdd - added);
      added += share;
      return rs.replicas + share;
    });
    sizes[0] = Math.max(0, (sizes[0] ?? 0) + toAdd - added);
    order.forEach(({ rs }, i) => this.#scale(rs, sizes[i] ?? rs.replicas));
  }

  /** The revision of the current template exists and is the newest (a rollback renumbers an earlier one). */
  #ensureRevision(): void {
    const target = Math.max(0, this.target);
    const newest = Math.max(0, ...this.revisions.map((r) => r.revision));
    let revision = this.revisions.find((r) => r.template === target);
    if (!revision) {
      const hash = templateHash(this.templates[target]!).slice(0, 8);
      revision = { name: `${NAME}-${hash}`, hash, template: target, revision: newest + 1 };
      this.revisions.push(revision);
    } else if (revision.revision !== newest) revision.revision = newest + 1;
    this.updateRevision = revision.name;
  }

  get #updateStrategy(): JsonObject {
    return isObject(this.spec.updateStrategy) ? this.spec.updateStrategy : { type: 'RollingUpdate' };
  }

  /** The template a StatefulSet pod of this ordinal is created with now. */
  statefulSetPodTemplate(ordinal: number): number {
    const strategy = this.#updateStrategy;
    const partition = isObject(strategy.rollingUpdate) && typeof strategy.rollingUpdate.partition === 'number' ? strategy.rollingUpdate.partition : 0;
    const current = this.revisions.find((r) => r.name === this.currentRevision)?.template ?? 0;
    return strategy.type !== 'OnDelete' && ordinal < partition ? current : this.target;
  }

  #statefulSet(): void {
    this.#ensureRevision();
    const terminating = this.pods.filter((p) => p.terminating);
    if (terminating.length > 0) {
      for (const pod of terminating) Object.assign(pod, { template: this.statefulSetPodTemplate(pod.ordinal), ready: false, terminating: false });
      return;
    }
    const strategy = this.#updateStrategy;
    if (strategy.type === 'RollingUpdate' && this.pods.every((p) => p.ready)) {
      const partition = isObject(strategy.rollingUpdate) && typeof strategy.rollingUpdate.partition === 'number' ? strategy.rollingUpdate.partition : 0;
      const next = this.pods.filter((p) => p.ordinal >= partition && p.template !== this.target).sort((a, b) => b.ordinal - a.ordinal)[0];
      if (next) next.terminating = true;
    }
    if (strategy.type === 'RollingUpdate' && this.pods.every((p) => p.template === this.target && p.ready)) this.currentRevision = this.updateRevision;
  }

  #daemonSet(): void {
    this.#ensureRevision();
    for (const pod of this.pods.filter((p) => p.terminating)) Object.assign(pod, { template: this.target, ready: false, terminating: false });
    const strategy = this.#updateStrategy;
    if (strategy.type !== 'RollingUpdate') return;
    const rollingUpdate = isObject(strategy.rollingUpdate) ? strategy.rollingUpdate : {};
    const maxUnavailable = Math.max(1, resolveIntOrPercent(rollingUpdate.maxUnavailable, this.replicas, true, '1'));
    let unavailable = this.pods.filter((p) => !p.ready).length;
    for (const pod of this.pods.filter((p) => p.template !== this.target).sort((a, b) => Number(a.ready) - Number(b.ready))) {
      if (pod.ready) {
        if (unavailable >= maxUnavailable) break;
        unavailable++;
      }
      pod.terminating = true;
    }
  }

  // ---- podops' controller ----

  /**
   * One reconcile, as RolloutReconciler does it: observe, plan, `check` the plan, then send the requests
   * src/rollout/writes.ts makes of it, in their order (Jobs, the status, the workload's hold), applied here as the
   * API server would apply them. `crash` stops it before the status or before the hold is written, as podops
   * killed there would.
   */
  reconcile(check: (reconcile: Reconcile) => void = () => {}, crash?: Crash): Reconcile {
    this.second++;
    const observed = this.observe();
    const rl = structuredClone(this.rolloutLifecycle);
    const before = structuredClone(this.status);
    const plan = planRollout(rolloutPlanInput(rl, NAME, observed, this.now));
    const reconcile = { observed, plan, before };
    check(reconcile);
    const { requests } = rolloutWrites({ rl, kind: this.kind, workload: this.workload(), observed, plan, now: this.now });
    for (const request of requests) {
      const status = request.kind === 'RolloutLifecycle' && request.verb === 'patch' && request.subresource === 'status';
      if (crash === 'before-status' && request.kind !== 'Job') return reconcile;
      if (crash === 'before-hold' && request.kind !== 'Job' && !status) return reconcile;
      this.#send(request);
    }
    return reconcile;
  }

  /** A request as the API server answers it: applied, or refused with an answer the request may tolerate. */
  #send(request: RolloutRequest | PatchRequest): void {
    try {
      this.#apply(request);
    } catch (err) {
      if (!(err instanceof Refused)) throw err;
      if (request.tolerate.includes(err.answer as Tolerated)) return;
      if (err.answer === 'Conflict' && request.verb === 'patch' && request.again) {
        const next = request.again(this.workload());
        if (next) this.#send(next);
        return;
      }
      throw new Error(`${request.verb} ${request.kind} (${request.why}): ${err.answer}`, { cause: err });
    }
  }

  #apply(request: RolloutRequest): void {
    if (request.verb === 'create') {
      const { name, labels } = request.body.metadata;
      if (this.jobs.has(name)) throw new Refused('AlreadyExists');
      this.jobs.set(name, { hook: labels[RL_JOB_HOOK_LABEL] ?? '', phase: 'Active', suspended: request.body.spec.suspend === true });
    } else if (request.verb === 'delete') {
      if (!this.jobs.delete(request.name)) throw new Refused('NotFound');
    } else if (request.verb === 'evict') {
      const pod = this.pods.find((p) => p.name === request.name);
      if (!pod) throw new Refused('NotFound');
      pod.terminating = true;
    } else if (request.kind === 'Job') {
      const job = this.jobs.get(request.name);
      if (!job) throw new Refused('NotFound');
      job.suspended = mergePatch({ spec: { suspend: job.suspended } }, request.body).spec.suspend === true;
    } else if (request.kind === 'RolloutLifecycle') {
      const written = this.#patched(this.rolloutLifecycle, request);
      this.rolloutLifecycle = request.subresource === 'status' ? { ...this.rolloutLifecycle, status: written.status } : { ...written, status: this.rolloutLifecycle.status };
      this.rolloutLifecycle.metadata.resourceVersion = String(Number(this.rolloutLifecycle.metadata.resourceVersion) + 1);
    } else if (request.kind === this.kind) {
      this.#store(this.#patched(this.workload(), request));
    } else {
      throw new Error(`no ${request.kind} in this world: ${request.why}`);
    }
  }

  /** The object a patch makes, after its resourceVersion guard (which the request must declare). */
  #patched<T extends { metadata: { resourceVersion?: string } }>(object: T, request: PatchRequest): T {
    const guard = Array.isArray(request.body)
      ? request.body.find((op) => op.op === 'replace' && op.path === '/metadata/resourceVersion')
      : (request.body.metadata as { resourceVersion?: string } | undefined)?.resourceVersion !== undefined
        ? { value: (request.body.metadata as { resourceVersion: string }).resourceVersion }
        : undefined;
    if ((guard !== undefined) !== request.guarded) throw new Error(`${request.kind} patch says it is ${request.guarded ? '' : 'not '}guarded, and its body ${guard ? 'is' : 'is not'}: ${request.why}`);
    if (guard && 'value' in guard && guard.value !== object.metadata.resourceVersion) throw new Refused('Conflict');
    return Array.isArray(request.body) ? applyPatch(object, request.body) : mergePatch(object, request.body);
  }
}

/** The API server's refusal of a request: what the request may tolerate, or a conflict with a newer version. */
class Refused extends Error {
  readonly answer: Tolerated | 'Conflict';

  constructor(answer: Tolerated | 'Conflict') {
    super(answer);
    this.answer = answer;
  }
}
