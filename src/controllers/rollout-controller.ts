// The RolloutLifecycle controller: a driver of src/rollout. Per RolloutLifecycle it labels its workload (so
// the workload webhook holds that workload's template changes), reads where the rollout is (the workload,
// its ReplicaSets or ControllerRevisions, its pods, the hook Jobs), asks planRollout for the next step and
// does it: the workload's hold, the Jobs to create, delete or suspend, a DaemonSet's old pods to evict, the
// status, events. Deleting a RolloutLifecycle releases its workload and cancels its running hooks first. A
// RolloutLifecycle whose workload an older one claims does nothing but say so (src/rollout/claim.ts).

import type { JsonPatchOperation, OwnerReference, Pod } from '../api/kube.ts';
import {
  RL_API_VERSION,
  RL_FIELD_MANAGER,
  RL_FINALIZER,
  RL_KIND,
  RL_RETRY_ANNOTATION,
  RL_ROLLOUT_ANNOTATION,
  RL_USER_SETTINGS_ANNOTATION,
  RL_WORKLOAD_LABEL,
  WORKLOAD_KINDS,
  type HookRecord,
  type RolloutLifecycle,
  type WorkloadKind,
} from '../api/rolloutlifecycle.ts';
import { labelSelectorString } from '../api/selector.ts';
import { isAlreadyExists, isConflict, isNotFound, isTooManyRequests, type KubeClient } from '../kube/client.ts';
import { Controller, type ControllerRuntimeOptions, keyOf, watch, type Reconciler, type Request, type Result, type Trigger } from '../kube/controller.ts';
import type { EventRecorder } from '../kube/events.ts';
import { Informer } from '../kube/informer.ts';
import { silentLogger, type Logger } from '../kube/log.ts';
import { CONTROLLER_REVISIONS, DAEMONSETS, DEPLOYMENTS, JOBS, PODS, REPLICASETS, ROLLOUTLIFECYCLES, STATEFULSETS, type ResourceType } from '../kube/resources.ts';
import { claimantOf, targetsSame } from '../rollout/claim.ts';
import { daemonSetMaxUnavailable, daemonSetReplacements } from '../rollout/daemonset.ts';
import { ResourceVersionExpectations } from './expectations.ts';
import { annotationOperations, holdFieldOperations, parseSettings } from '../rollout/admission.ts';
import { hookJob } from '../rollout/jobs.ts';
import { observeRollout, type ControllerRevision, type JobLike, type ObservedRollout, type ReplicaSetLike } from '../rollout/observe.ts';
import { planRollout, type Plan } from '../rollout/plan.ts';
import { holdSettings, sameTemplate, templateOf, type Workload } from '../rollout/workload.ts';

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

const rfc3339 = (date: Date): string => date.toISOString().replace(/\.\d{3}Z$/, 'Z');

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

/** A JSON patch operation that makes the write conditional on the version read: 409 Conflict otherwise. */
const guardedBy = (workload: Workload): JsonPatchOperation => ({ op: 'replace', path: '/metadata/resourceVersion', value: workload.metadata.resourceVersion ?? '' });

export class RolloutReconciler implements Reconciler {
  readonly #options: RolloutControllerOptions;
  readonly #log: Logger;
  /** Skip a reconcile while the cache is behind podops' own last write of the RolloutLifecycle or its workload. */
  readonly #expectations = new ResourceVersionExpectations();

  constructor(options: RolloutControllerOptions) {
    this.#options = options;
    this.#log = (options.logger ?? silentLogger()).child({ controller: ROLLOUT_CONTROLLER_NAME });
  }

  #now(): Date {
    return (this.#options.now ?? (() => new Date()))();
  }

  async reconcile({ namespace, name }: Request): Promise<Result | void> {
    const rl = this.#options.rolloutLifecycles.get(namespace, name);
    if (!rl) return;
    const key = keyOf(namespace, name);
    if (!this.#expectations.satisfied(`rl:${key}`, rl.metadata.resourceVersion)) return;
    const kind = kindOf(rl);
    if (rl.metadata.deletionTimestamp) return this.#finalize(rl, kind);
    if (!kind) return;
    const target = `${kind}/${rl.spec?.targetRef?.name}`;
    const claimant = claimantOf(rl, this.#options.rolloutLifecycles.list(namespace));
    if (claimant !== rl) return this.#refuse(rl, target, claimant.metadata.name ?? '');
    if (!(rl.metadata.finalizers ?? []).includes(RL_FINALIZER)) {
      await this.#patchRolloutLifecycle(rl, { metadata: { resourceVersion: rl.metadata.resourceVersion, finalizers: [...(rl.metadata.finalizers ?? []), RL_FINALIZER] } });
      return;
    }
    const workload = await this.#workload(kind, namespace, rl.spec?.targetRef?.name ?? '');
    if (workload && !this.#expectations.satisfied(`workload:${key}`, workload.metadata.resourceVersion)) return;
    if (!workload) return this.#writeStatus(rl, { target, conditions: [] }, { reason: 'TargetNotFound', message: `the ${kind} ${rl.spec?.targetRef?.name} does not exist` });
    if (workload.metadata.labels?.[RL_WORKLOAD_LABEL] !== name) {
      await this.#patchWorkload(kind, workload, { metadata: { labels: { [RL_WORKLOAD_LABEL]: name } } });
      return;
    }
    const observed = await this.#observe(kind, workload, (rl.status?.hooks ?? []).filter((h) => h.phase === 'Running'));
    const retry = rl.metadata.annotations?.[RL_RETRY_ANNOTATION]?.split(',').map((h) => h.trim()).filter(Boolean);
    const plan = planRollout({
      now: rfc3339(this.#now()),
      workloadName: workload.metadata.name ?? '',
      hooks: rl.spec?.hooks ?? [],
      ...(rl.status?.rollout && { rollout: rl.status.rollout }),
      ...(rl.status?.hooks && { hookRecords: rl.status.hooks }),
      ...(rl.status?.conditions && { conditions: rl.status.conditions }),
      ...(rl.metadata.generation !== undefined && { generation: rl.metadata.generation }),
      observation: observed,
      ...(retry && { retry }),
    });
    // Jobs first (a status never records a hook running without its Job), then the status, then the hold: a
    // release drops the workload's stamp, and once the status records the rollout a restart cannot take it for
    // a new one.
    await this.#jobs(rl, kind, workload, observed, plan);
    await this.#writeStatus(rl, {
      target: `${kind}/${workload.metadata.name}`,
      conditions: plan.conditions,
      ...(plan.rollout && { rollout: plan.rollout }),
      hooks: plan.hooks,
    });
    if (plan.hold) await this.#hold(kind, workload, observed, plan);
    for (const event of plan.events) {
      this.#options.events?.event({ ...rl, apiVersion: RL_API_VERSION, kind: RL_KIND }, event.type, event.reason, event.message);
      this.#options.events?.event({ ...workload, apiVersion: 'apps/v1', kind } as never, event.type, event.reason, event.message);
    }
    if (plan.retried) await this.#patchRolloutLifecycle(rl, { metadata: { annotations: { [RL_RETRY_ANNOTATION]: null } } });
    return;
  }

  /** A RolloutLifecycle whose workload an older one claims: it says so (a Warning event when it starts to), and does nothing. */
  async #refuse(rl: RolloutLifecycle, target: string, claimant: string): Promise<void> {
    const message = `${target} is claimed by RolloutLifecycle ${claimant}, the oldest that targets it (at most one per workload): this one does nothing while ${claimant} exists`;
    const before = rl.status?.conditions?.find((c) => c.type === 'Progressing');
    await this.#writeStatus(rl, { target, conditions: [] }, { reason: 'TargetClaimed', message });
    if (before?.reason !== 'TargetClaimed' || before.message !== message) this.#options.events?.event({ ...rl, apiVersion: RL_API_VERSION, kind: RL_KIND }, 'Warning', 'TargetClaimed', message);
  }

  async #workload(kind: WorkloadKind, namespace: string, name: string): Promise<Workload | undefined> {
    const cached = this.#options.workloads[kind].get(namespace, name);
    if (cached) return cached;
    try {
      return await this.#options.client.get<Workload>(WORKLOAD_TYPES[kind], namespace, name);
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  }

  async #observe(kind: WorkloadKind, workload: Workload, running: readonly HookRecord[] = []): Promise<ObservedRollout> {
    const { client, jobs } = this.#options;
    const namespace = workload.metadata.namespace;
    const labelSelector = labelSelectorString((workload.spec?.selector ?? {}) as never);
    const hookJobs: JobLike[] = jobs.list(namespace).filter((job) => job.metadata.labels?.[RL_WORKLOAD_LABEL] === workload.metadata.labels?.[RL_WORKLOAD_LABEL]);
    // A Job created a moment ago may not be in the cache yet: it is not gone until the API server says so.
    for (const hook of running) {
      if (hookJobs.some((job) => job.metadata.name === hook.job)) continue;
      try {
        hookJobs.push(await client.get<JobLike>(JOBS, namespace, hook.job));
      } catch (err) {
        if (!isNotFound(err)) throw err;
      }
    }
    const now = this.#now().getTime();
    if (kind === 'Deployment') return observeRollout({ kind, workload, replicaSets: await this.#replicaSets(workload), jobs: hookJobs, now });
    const [history, pods] = await Promise.all([
      client.list<ControllerRevision>(CONTROLLER_REVISIONS, { namespace, labelSelector }),
      client.list<Pod>(PODS, { namespace, labelSelector }),
    ]);
    const owned = pods.items.filter((pod) => (pod.metadata.ownerReferences ?? []).some((o) => o.uid === workload.metadata.uid));
    return observeRollout({ kind, workload, controllerRevisions: history.items, pods: owned, jobs: hookJobs, now });
  }

  /**
   * A Deployment's ReplicaSets, from the cache once podops labelled them (so their changes reach this controller
   * at once, and a reconcile costs no read); listed, and labelled, while the cache lacks the current template's.
   */
  async #replicaSets(workload: Workload): Promise<ReplicaSetLike[]> {
    const namespace = workload.metadata.namespace;
    const owned = (rs: ReplicaSetLike): boolean => (rs.metadata.ownerReferences ?? []).some((o) => o.uid === workload.metadata.uid);
    const cached = (this.#options.replicaSets.list(namespace) as ReplicaSetLike[]).filter(owned);
    if (cached.some((rs) => sameTemplate(templateOf(rs) ?? {}, templateOf(workload) ?? {}))) return cached;
    const { client } = this.#options;
    const listed = (await client.list<ReplicaSetLike>(REPLICASETS, { namespace, labelSelector: labelSelectorString((workload.spec?.selector ?? {}) as never) })).items.filter(owned);
    const label = workload.metadata.labels?.[RL_WORKLOAD_LABEL];
    for (const rs of listed.filter((r) => label !== undefined && r.metadata.labels?.[RL_WORKLOAD_LABEL] !== label)) {
      await this.#ignoreGone(client.patch(REPLICASETS, namespace, rs.metadata.name ?? '', 'merge', { metadata: { labels: { [RL_WORKLOAD_LABEL]: label } } }, { fieldManager: RL_FIELD_MANAGER }));
    }
    return listed;
  }

  /** The hook Jobs the plan suspends, deletes and creates. */
  async #jobs(rl: RolloutLifecycle, kind: WorkloadKind, workload: Workload, observed: ObservedRollout, plan: Plan): Promise<void> {
    const { client } = this.#options;
    const namespace = workload.metadata.namespace ?? '';
    for (const job of plan.suspendJobs) await this.#ignoreGone(client.patch(JOBS, namespace, job, 'merge', { spec: { suspend: true } }));
    for (const job of plan.deleteJobs) await this.#ignoreGone(client.delete(JOBS, namespace, job, { propagationPolicy: 'Background' }));
    for (const action of plan.createJobs) {
      const hook = (rl.spec?.hooks ?? []).find((h) => h.name === action.hook);
      const record = plan.rollout;
      if (!hook?.jobSpec || !record) continue;
      const job = hookJob({
        namespace,
        name: action.name,
        rolloutLifecycle: rl.metadata.name ?? '',
        hook: action.hook,
        point: action.point,
        workload: { kind, name: workload.metadata.name ?? '' },
        ...(record.toRevision !== undefined && { toRevision: record.toRevision }),
        rollout: record.id,
        templateHash: record.templateHash,
        jobSpec: hook.jobSpec,
        owner: this.#owner(kind, workload, observed, record.toRevision),
        env: {
          type: record.type,
          from: record.fromRevision ? `${namespace}/${record.fromRevision}` : '',
          to: record.toRevision ? `${namespace}/${record.toRevision}` : '',
        },
      });
      try {
        await client.create(JOBS, job as never);
      } catch (err) {
        // Made by this controller before a restart: the same name is the same hook run.
        if (!isAlreadyExists(err)) throw err;
      }
    }
  }

  /** The owner of a hook Job: the revision it runs for (pruned with it), or the workload before that exists. */
  #owner(kind: WorkloadKind, workload: Workload, observed: ObservedRollout, revision: string | undefined): OwnerReference {
    const uid = observed.revisions.find((r) => r.name === revision)?.uid;
    if (revision !== undefined && uid !== undefined) return { apiVersion: 'apps/v1', kind: kind === 'Deployment' ? 'ReplicaSet' : 'ControllerRevision', name: revision, uid };
    return { apiVersion: 'apps/v1', kind, name: workload.metadata.name ?? '', uid: workload.metadata.uid ?? '' };
  }

  /** Puts the workload under the plan's hold (stashing the user's settings first), or gives it back. */
  async #hold(kind: WorkloadKind, workload: Workload, observed: ObservedRollout, plan: Plan): Promise<void> {
    const hold = plan.hold ?? { type: 'release' };
    const settings = holdSettings(kind, observed.user, hold, { replicas: observed.replicas, newReplicas: observed.newReplicas });
    const fields = holdFieldOperations(kind, workload, settings);
    if (plan.stamp || (!observed.held && hold.type !== 'release')) {
      // The first hold podops imposes (the webhook did not see the template change), with the rollout's stamp
      // when the webhook wrote none: the user's settings are read from this very version, so the write is
      // guarded by it.
      const annotations = { [RL_USER_SETTINGS_ANNOTATION]: JSON.stringify(observed.user), ...(plan.stamp && { [RL_ROLLOUT_ANNOTATION]: JSON.stringify(plan.stamp) }) };
      await this.#patchWorkload(kind, workload, [guardedBy(workload), ...annotationOperations(workload, annotations), ...fields]);
    } else if (hold.type === 'release') {
      if (observed.held) await this.#release(kind, workload);
      return;
    } else if (fields.length > 0) {
      // A step: fields only podops sets while the workload is held (the webhook stashes anyone else's change),
      // so no resourceVersion guard, which the workload's own status writes would keep failing.
      await this.#patchWorkload(kind, workload, fields);
    }
    if (kind === 'DaemonSet' && hold.type === 'step') {
      for (const pod of daemonSetReplacements(observed.pods, hold.count, daemonSetMaxUnavailable(observed.user, observed.replicas))) await this.#evict(workload.metadata.namespace ?? '', pod);
    }
  }

  /**
   * The user's settings back, exactly, and podops' annotations gone. Read and written in one version (the stash
   * may have taken a change of the user's meanwhile); a conflict with the workload's status writes is retried
   * at once from a fresh read.
   */
  async #release(kind: WorkloadKind, workload: Workload): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      const fresh = attempt === 0 ? workload : await this.#options.client.get<Workload>(WORKLOAD_TYPES[kind], workload.metadata.namespace, workload.metadata.name ?? '');
      const stash = fresh.metadata.annotations?.[RL_USER_SETTINGS_ANNOTATION];
      if (stash === undefined) return;
      try {
        await this.#patchWorkload(kind, fresh, [
          guardedBy(fresh),
          ...annotationOperations(fresh, { [RL_USER_SETTINGS_ANNOTATION]: null, [RL_ROLLOUT_ANNOTATION]: null }),
          ...holdFieldOperations(kind, fresh, parseSettings(stash) ?? {}),
        ]);
        return;
      } catch (err) {
        if (!isConflict(err) || attempt >= 4) throw err;
      }
    }
  }

  /** Eviction, not deletion: PodDisruptionBudgets (and podops' own eviction answer for controlled pods) apply. */
  async #evict(namespace: string, pod: string): Promise<void> {
    try {
      await this.#options.client.evict(namespace, pod);
    } catch (err) {
      if (isTooManyRequests(err)) this.#log.debug({ pod }, 'eviction refused for now (disruption budget)');
      else if (!isNotFound(err)) throw err;
    }
  }

  async #finalize(rl: RolloutLifecycle, kind: WorkloadKind | undefined): Promise<void> {
    if (!(rl.metadata.finalizers ?? []).includes(RL_FINALIZER)) return;
    const namespace = rl.metadata.namespace ?? '';
    const found = kind && (await this.#workload(kind, namespace, rl.spec?.targetRef?.name ?? ''));
    // A workload another RolloutLifecycle claimed meanwhile is that one's to release.
    const label = found ? found.metadata.labels?.[RL_WORKLOAD_LABEL] : undefined;
    const workload = label === undefined || label === rl.metadata.name ? found : undefined;
    const running = (rl.status?.hooks ?? []).filter((h: HookRecord) => h.phase === 'Running' || h.phase === 'Pending');
    for (const hook of running) {
      const retain = (rl.spec?.hooks ?? []).find((h) => h.name === hook.name)?.retainPolicy ?? 'Always';
      if (retain === 'Always') await this.#ignoreGone(this.#options.client.patch(JOBS, namespace, hook.job, 'merge', { spec: { suspend: true } }));
      else await this.#ignoreGone(this.#options.client.delete(JOBS, namespace, hook.job, { propagationPolicy: 'Background' }));
    }
    if (kind && workload) {
      await this.#release(kind, workload);
      if (workload.metadata.labels?.[RL_WORKLOAD_LABEL] === rl.metadata.name) await this.#patchWorkload(kind, workload, { metadata: { labels: { [RL_WORKLOAD_LABEL]: null } } });
      this.#options.events?.event({ ...workload, apiVersion: 'apps/v1', kind } as never, 'Normal', 'RolloutReleased', `RolloutLifecycle ${rl.metadata.name} deleted: the workload is released${running.length ? `, hooks cancelled: ${running.map((h) => h.name).join(', ')}` : ''}`);
    }
    await this.#patchRolloutLifecycle(rl, { metadata: { resourceVersion: rl.metadata.resourceVersion, finalizers: (rl.metadata.finalizers ?? []).filter((f) => f !== RL_FINALIZER) } });
  }

  /** A JSON patch (operations) or a merge patch (an object) of the workload, as podops' field manager. */
  async #patchWorkload(kind: WorkloadKind, workload: Workload, body: JsonPatchOperation[] | Record<string, unknown>): Promise<void> {
    const type = Array.isArray(body) ? 'json' : 'merge';
    const written = await this.#options.client.patch<Workload>(WORKLOAD_TYPES[kind], workload.metadata.namespace, workload.metadata.name ?? '', type, body, { fieldManager: RL_FIELD_MANAGER });
    const label = workload.metadata.labels?.[RL_WORKLOAD_LABEL] ?? written.metadata.labels?.[RL_WORKLOAD_LABEL];
    if (label) this.#expectations.expect(`workload:${keyOf(workload.metadata.namespace, label)}`, written.metadata.resourceVersion);
  }

  async #patchRolloutLifecycle(rl: RolloutLifecycle, body: unknown): Promise<void> {
    const written = await this.#options.client.patch<RolloutLifecycle>(ROLLOUTLIFECYCLES, rl.metadata.namespace, rl.metadata.name ?? '', 'merge', body);
    this.#expectations.expect(`rl:${keyOf(rl.metadata.namespace, rl.metadata.name ?? '')}`, written.metadata.resourceVersion);
  }

  /** The status; with a `problem`, the only condition is Progressing False with its reason (kept, with its time, while it lasts). */
  async #writeStatus(rl: RolloutLifecycle, status: Omit<NonNullable<RolloutLifecycle['status']>, 'observedGeneration'>, problem?: { reason: string; message: string }): Promise<void> {
    const before = rl.status?.conditions?.find((c) => c.type === 'Progressing');
    const since = before?.status === 'False' && before.reason === problem?.reason ? before.lastTransitionTime : rfc3339(this.#now());
    const next = {
      ...(rl.metadata.generation !== undefined && { observedGeneration: rl.metadata.generation }),
      ...status,
      ...(problem && { conditions: [{ type: 'Progressing', status: 'False' as const, lastTransitionTime: since, ...problem }] }),
    };
    // A change of the new available count alone waits for the next change that matters: during a large rollout
    // it changes with every pod, and writing each would keep this controller (and the API server) busy.
    // Keys sorted: kube-apiserver returns a custom resource's fields in its own order, not in the order written.
    const sortedKeys = (_key: string, value: unknown) => (value && typeof value === 'object' && !Array.isArray(value) ? Object.fromEntries(Object.entries(value).sort(([a], [b]) => (a < b ? -1 : 1))) : value);
    const settled = (status: RolloutLifecycle['status']) => JSON.stringify({ ...status, rollout: status?.rollout && { ...status.rollout, newAvailable: 0 } }, sortedKeys);
    if (settled(next) === settled(rl.status)) return;
    // The whole status, unguarded: only this controller writes it, and never from a cache behind its last write
    // (the expectations), so a guard would only fail on the spec and annotation writes of others.
    const written = await this.#options.client.patch<RolloutLifecycle>(ROLLOUTLIFECYCLES, rl.metadata.namespace, rl.metadata.name ?? '', 'json', [{ op: rl.status ? 'replace' : 'add', path: '/status', value: next }], {
      subresource: 'status',
    });
    this.#expectations.expect(`rl:${keyOf(rl.metadata.namespace, rl.metadata.name ?? '')}`, written.metadata.resourceVersion);
  }

  async #ignoreGone(call: Promise<unknown>): Promise<void> {
    try {
      await call;
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
  }
}
