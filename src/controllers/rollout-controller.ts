// The RolloutLifecycle controller: a driver of src/rollout. Per RolloutLifecycle it reads where the rollout is
// (the workload, its ReplicaSets or ControllerRevisions, its pods, the hook Jobs), asks planRollout for the next
// step and src/rollout/writes.ts for its requests (the Jobs to suspend, delete or create, the status, the
// workload's hold, a DaemonSet's old pods to evict), and sends them as they are, in order, each with the answers
// it may meet. Before that it labels the workload (so the workload webhook holds its template changes); deleting
// a RolloutLifecycle releases its workload and cancels its running hooks first. A RolloutLifecycle whose
// workload an older one claims does nothing but say so (src/rollout/claim.ts).

import { rfc3339, type Pod } from '../api/kube.ts';
import { RL_API_VERSION, RL_FINALIZER, RL_KIND, RL_WORKLOAD_LABEL, WORKLOAD_KINDS, type HookRecord, type RolloutLifecycle, type WorkloadKind } from '../api/rolloutlifecycle.ts';
import { labelSelectorString } from '../api/selector.ts';
import { during, isAlreadyExists, isConflict, isNotFound, isTooManyRequests, unlessNotFound, type KubeClient } from '../kube/client.ts';
import { Controller, type ControllerRuntimeOptions, keyOf, TerminalError, watch, type Reconciler, type Request, type Result, type Trigger } from '../kube/controller.ts';
import type { EventRecorder } from '../kube/events.ts';
import { Informer } from '../kube/informer.ts';
import { silentLogger, type Logger } from '../kube/log.ts';
import { CONTROLLER_REVISIONS, DAEMONSETS, DEPLOYMENTS, JOBS, PODS, REPLICASETS, ROLLOUTLIFECYCLES, STATEFULSETS, type ResourceType } from '../kube/resources.ts';
import { claimantOf, targetsSame } from '../rollout/claim.ts';
import { observeRollout, type ControllerRevision, type JobLike, type ObservedRollout, type ReplicaSetLike } from '../rollout/observe.ts';
import { planRollout, rolloutPlanInput } from '../rollout/plan.ts';
import { sameTemplate, selectorOf, templateOf, type Workload } from '../rollout/workload.ts';
import {
  claimRefused,
  finalizerAdded,
  finalizeWrites,
  replicaSetsLabelled,
  rolloutWrites,
  targetMissing,
  workloadLabelled,
  type RolloutRequest,
  type Tolerated,
  type Writes,
  type WrittenKind,
} from '../rollout/writes.ts';

export const ROLLOUT_CONTROLLER_NAME = 'rolloutlifecycle-controller';

export const WORKLOAD_TYPES: Record<WorkloadKind, ResourceType> = { Deployment: DEPLOYMENTS, StatefulSet: STATEFULSETS, DaemonSet: DAEMONSETS };

export interface RolloutControllerOptions {
  client: KubeClient;
  rolloutLifecycles: Informer<RolloutLifecycle>;
  /** Informers of the labelled workloads, by kind. */
  workloads: Record<WorkloadKind, Informer<Workload & { metadata: { name?: string } }>>;
  jobs: Informer<JobLike & { metadata: { name?: string; namespace?: string; labels?: Record<string, string> } }>;
  /** The labelled ReplicaSets of hooked Deployments: only to learn of their changes. */
  replicaSets: Informer<Workload>;
  events?: EventRecorder;
  now?: () => Date;
  logger?: Logger;
}

export type RolloutInformers = Pick<RolloutControllerOptions, 'rolloutLifecycles' | 'workloads' | 'jobs' | 'replicaSets'>;

/** The controller's caches: every RolloutLifecycle, and only the workloads, Jobs and ReplicaSets podops labelled for one. */
export function rolloutInformers(client: KubeClient, logger?: Logger): RolloutInformers {
  const labelled = { client, labelSelector: RL_WORKLOAD_LABEL, ...(logger && { logger }) };
  return {
    rolloutLifecycles: new Informer<RolloutLifecycle>({ client, type: ROLLOUTLIFECYCLES, ...(logger && { logger }) }),
    workloads: {
      Deployment: new Informer<Workload>({ ...labelled, type: DEPLOYMENTS }),
      StatefulSet: new Informer<Workload>({ ...labelled, type: STATEFULSETS }),
      DaemonSet: new Informer<Workload>({ ...labelled, type: DAEMONSETS }),
    },
    jobs: new Informer<JobLike & { metadata: { name?: string; namespace?: string } }>({ ...labelled, type: JOBS }),
    replicaSets: new Informer<Workload>({ ...labelled, type: REPLICASETS }),
  };
}

const isWorkloadKind = (kind: string | undefined): kind is WorkloadKind => WORKLOAD_KINDS.some((k) => k === kind);

const kindOf = (rl: RolloutLifecycle): WorkloadKind | undefined => WORKLOAD_KINDS.find((k) => k === rl.spec?.targetRef?.kind);

/** The RolloutLifecycle a labelled object (workload or hook Job) belongs to. */
const labelledKey = (object: { metadata: { namespace?: string; labels?: Record<string, string> } }): string[] => {
  const name = object.metadata.labels?.[RL_WORKLOAD_LABEL];
  return name === undefined ? [] : [keyOf(object.metadata.namespace, name)];
};

/** A RolloutLifecycle, and the others that target its workload: one of them may claim it when this one goes. */
const withRivals = (rolloutLifecycles: Informer<RolloutLifecycle>): Trigger =>
  watch(rolloutLifecycles, (rl) => [rl, ...rolloutLifecycles.list(rl.metadata.namespace).filter((other) => other.metadata.name !== rl.metadata.name && targetsSame(other, rl))].map((o) => keyOf(o.metadata.namespace, o.metadata.name ?? '')));

/** Every RolloutLifecycle (and its rivals for its workload), and the one a labelled workload, ReplicaSet or hook Job belongs to. */
export const rolloutTriggers = (options: Pick<RolloutControllerOptions, 'rolloutLifecycles' | 'workloads' | 'jobs' | 'replicaSets'>): Trigger[] => [
  withRivals(options.rolloutLifecycles),
  ...WORKLOAD_KINDS.map((kind) => watch(options.workloads[kind], (current, previous) => [...new Set([...labelledKey(current), ...(previous ? labelledKey(previous) : [])])])),
  watch(options.jobs, labelledKey),
  watch(options.replicaSets, labelledKey),
];

export function rolloutController(options: RolloutControllerOptions & ControllerRuntimeOptions): Controller {
  return new Controller({
    name: ROLLOUT_CONTROLLER_NAME,
    workers: options.workers ?? 3,
    reconciler: new RolloutReconciler(options),
    triggers: rolloutTriggers(options),
    metrics: options.metrics,
    logger: options.logger,
  });
}

const RESOURCES: Record<WrittenKind, ResourceType> = { ...WORKLOAD_TYPES, Job: JOBS, Pod: PODS, ReplicaSet: REPLICASETS, RolloutLifecycle: ROLLOUTLIFECYCLES };

const TOLERATED: Record<Tolerated, (err: unknown) => boolean> = { NotFound: isNotFound, AlreadyExists: isAlreadyExists, TooManyRequests: isTooManyRequests };

/** How often a write is made again from a fresh read when the workload's own status writes keep winning. */
const WRITE_ATTEMPTS = 5;

export class RolloutReconciler implements Reconciler {
  readonly #options: RolloutControllerOptions;
  readonly #log: Logger;

  constructor(options: RolloutControllerOptions) {
    this.#options = options;
    this.#log = (options.logger ?? silentLogger()).child({ controller: ROLLOUT_CONTROLLER_NAME });
  }

  #now(): string {
    return rfc3339((this.#options.now ?? (() => new Date()))());
  }

  async reconcile({ namespace, name }: Request, signal: AbortSignal): Promise<Result | void> {
    const rl = this.#options.rolloutLifecycles.get(namespace, name);
    if (!rl) return;
    const key = keyOf(namespace, name);
    const kind = kindOf(rl);
    const targetName = rl.spec?.targetRef?.name ?? '';
    if (rl.metadata.deletionTimestamp) {
      if (!(rl.metadata.finalizers ?? []).includes(RL_FINALIZER)) return;
      const found = kind && (await this.#workload(kind, namespace, targetName, signal));
      // A workload another RolloutLifecycle claimed meanwhile is that one's to release.
      const label = found ? found.metadata.labels?.[RL_WORKLOAD_LABEL] : undefined;
      return this.#carryOut(key, rl, found, finalizeWrites(rl, kind, label === undefined || label === name ? found : undefined), signal);
    }
    // The schema admits only the three kinds: another is on a RolloutLifecycle stored before that schema, and nothing can act on it.
    if (!kind) throw new TerminalError(`RolloutLifecycle ${key} targets a ${rl.spec?.targetRef?.kind}, not a Deployment, StatefulSet or DaemonSet`);
    const claimant = claimantOf(rl, this.#options.rolloutLifecycles.list(namespace));
    if (claimant !== rl) return this.#carryOut(key, rl, undefined, claimRefused(rl, `${kind}/${targetName}`, claimant.metadata.name ?? '', this.#now()), signal);
    if (!(rl.metadata.finalizers ?? []).includes(RL_FINALIZER)) return this.#carryOut(key, rl, undefined, { requests: [finalizerAdded(rl)], events: [] }, signal);
    const workload = await this.#workload(kind, namespace, targetName, signal);
    if (!workload) return this.#carryOut(key, rl, undefined, targetMissing(rl, kind, this.#now()), signal);
    if (workload.metadata.labels?.[RL_WORKLOAD_LABEL] !== name) return this.#carryOut(key, rl, workload, { requests: [workloadLabelled(kind, workload, name)], events: [] }, signal);
    const observed = await this.#observe(key, kind, workload, (rl.status?.hooks ?? []).filter((h) => h.phase === 'Running'), signal);
    const now = this.#now();
    const plan = planRollout(rolloutPlanInput(rl, workload.metadata.name ?? '', observed, now));
    return this.#carryOut(key, rl, workload, rolloutWrites({ rl, kind, workload, observed, plan, now }), signal);
  }

  /** Sends the requests in order, then records the events. */
  async #carryOut(key: string, rl: RolloutLifecycle, workload: Workload | undefined, writes: Writes, signal: AbortSignal): Promise<void> {
    for (const request of writes.requests) await this.#send(key, request, signal);
    const { events } = this.#options;
    for (const event of writes.events) {
      if (event.on.includes('RolloutLifecycle')) events?.event({ ...rl, apiVersion: RL_API_VERSION, kind: RL_KIND }, event.type, event.reason, event.message);
      if (workload && event.on.includes('workload')) events?.event({ ...workload, apiVersion: 'apps/v1', kind: kindOf(rl) }, event.type, event.reason, event.message);
    }
  }

  /** One request as the pure core built it; its tolerated answers end it quietly, a conflict of a release is made again from a fresh read. */
  async #send(key: string, request: RolloutRequest, signal: AbortSignal): Promise<void> {
    const failed = (sending: RolloutRequest, err: unknown): Error => new Error(`${describe(sending)} (${sending.why}): ${(err as Error).message}`, { cause: err });
    const tolerated = (sending: RolloutRequest, err: unknown): boolean => {
      const answer = sending.tolerate.find((name) => TOLERATED[name](err));
      if (answer) this.#log.debug({ key, request: describe(sending), answer }, 'tolerated answer');
      return answer !== undefined;
    };
    let current: RolloutRequest | undefined = request;
    for (let attempt = 1; current; attempt++) {
      const sending: RolloutRequest = current;
      try {
        await this.#sendOnce(sending, signal);
        return;
      } catch (err) {
        if (tolerated(sending, err)) return;
        if (sending.verb !== 'patch' || !sending.again || !isConflict(err) || attempt >= WRITE_ATTEMPTS) throw failed(sending, err);
        const again: (fresh: Workload) => RolloutRequest | undefined = sending.again;
        // Made again from a fresh read: nothing when there is nothing to write any more.
        const fresh: Workload | undefined = await this.#options.client.get<Workload>(RESOURCES[sending.kind], sending.namespace, sending.name, signal).catch((readErr: unknown) => {
          if (tolerated(sending, readErr)) return undefined;
          throw failed(sending, readErr);
        });
        current = fresh && again(fresh);
      }
    }
  }

  async #sendOnce(request: RolloutRequest, signal: AbortSignal): Promise<void> {
    const { client } = this.#options;
    if (request.verb === 'create') await client.create(JOBS, request.body, { signal });
    else if (request.verb === 'delete') await client.delete(JOBS, request.namespace, request.name, { propagationPolicy: request.propagationPolicy, signal });
    else if (request.verb === 'evict') await client.evict(request.namespace, request.name, { signal });
    else {
      const written = await client.patch<RolloutLifecycle & Workload>(RESOURCES[request.kind], request.namespace, request.name, request.patchType, request.body, {
        ...(request.subresource && { subresource: request.subresource }),
        ...(request.fieldManager && { fieldManager: request.fieldManager }),
        signal,
      });
      // The cache holds the write at once (assumed): the next reconcile starts from it, not from before it.
      if (request.kind === 'RolloutLifecycle') this.#options.rolloutLifecycles.assume(written);
      else if (isWorkloadKind(request.kind)) this.#options.workloads[request.kind].assume(written);
    }
  }

  /** The target from the cache of labelled workloads, or read (it is not labelled yet); undefined when it does not exist. */
  async #workload(kind: WorkloadKind, namespace: string, name: string, signal: AbortSignal): Promise<Workload | undefined> {
    const cached = this.#options.workloads[kind].get(namespace, name);
    if (cached) return cached;
    return during(`read the ${kind} ${namespace}/${name}`, unlessNotFound(this.#options.client.get<Workload>(WORKLOAD_TYPES[kind], namespace, name, signal)));
  }

  async #observe(key: string, kind: WorkloadKind, workload: Workload, running: readonly HookRecord[], signal: AbortSignal): Promise<ObservedRollout> {
    const { client, jobs } = this.#options;
    const namespace = workload.metadata.namespace;
    const labelSelector = labelSelectorString(selectorOf(workload));
    const hookJobs: JobLike[] = jobs.list(namespace).filter((job) => job.metadata.labels?.[RL_WORKLOAD_LABEL] === workload.metadata.labels?.[RL_WORKLOAD_LABEL]);
    // A Job created a moment ago may not be in the cache yet: it is not gone until the API server says so.
    for (const hook of running) {
      if (hookJobs.some((job) => job.metadata.name === hook.job)) continue;
      const job = await during(`read hook Job ${namespace}/${hook.job}`, unlessNotFound(client.get<JobLike>(JOBS, namespace, hook.job, signal)));
      if (job) hookJobs.push(job);
    }
    const now = Date.parse(this.#now());
    if (kind === 'Deployment') return observeRollout({ kind, workload, replicaSets: await this.#replicaSets(key, workload, signal), jobs: hookJobs, now });
    const [history, pods] = await Promise.all([
      during(`list the ControllerRevisions of ${key}'s ${kind}`, client.list<ControllerRevision>(CONTROLLER_REVISIONS, { namespace, labelSelector }, signal)),
      during(`list the pods of ${key}'s ${kind}`, client.list<Pod>(PODS, { namespace, labelSelector }, signal)),
    ]);
    const owned = pods.items.filter((pod) => (pod.metadata.ownerReferences ?? []).some((o) => o.uid === workload.metadata.uid));
    return observeRollout({ kind, workload, controllerRevisions: history.items, pods: owned, jobs: hookJobs, now });
  }

  /**
   * A Deployment's ReplicaSets, from the cache once podops labelled them (so their changes reach this controller
   * at once, and a reconcile costs no read); listed, and labelled, while the cache lacks the current template's.
   */
  async #replicaSets(key: string, workload: Workload, signal: AbortSignal): Promise<ReplicaSetLike[]> {
    const namespace = workload.metadata.namespace;
    const owned = (rs: ReplicaSetLike): boolean => (rs.metadata.ownerReferences ?? []).some((o) => o.uid === workload.metadata.uid);
    const cached = (this.#options.replicaSets.list(namespace) as ReplicaSetLike[]).filter(owned);
    if (cached.some((rs) => sameTemplate(templateOf(rs) ?? {}, templateOf(workload) ?? {}))) return cached;
    const list = this.#options.client.list<ReplicaSetLike>(REPLICASETS, { namespace, labelSelector: labelSelectorString(selectorOf(workload)) }, signal);
    const listed = (await during(`list the ReplicaSets of ${key}'s Deployment`, list)).items.filter(owned);
    const label = workload.metadata.labels?.[RL_WORKLOAD_LABEL];
    if (label !== undefined) for (const request of replicaSetsLabelled(label, listed)) await this.#send(key, request, signal);
    return listed;
  }
}

/** `patch Deployment shop/web`: what a log line or an error names. */
const describe = (request: RolloutRequest): string => {
  const name = request.verb === 'create' ? request.body.metadata.name : request.name;
  const subresource = request.verb === 'patch' && request.subresource ? `/${request.subresource}` : '';
  return `${request.verb} ${request.kind}${subresource} ${request.namespace}/${name}`;
};
