// The dashboard's one view of the cluster, shared by every browser: one informer (one list and one watch) per
// resource, whatever the number of pages open, turned into the rows and lists the page draws. Changes are gathered
// for a moment and sent to every subscriber as one update, serialised once.

import type { Pod } from '../api/kube.ts';
import type { PodTransitionRule } from '../api/podtransitionrule.ts';
import { CONTROL_LABEL, CONTROL_LABEL_VALUE } from '../api/protocol.ts';
import type { RolloutLifecycle } from '../api/rolloutlifecycle.ts';
import type { KubeClient, ObjectWithMeta } from '../kube/client.ts';
import { Informer, type InformerProblem } from '../kube/informer.ts';
import { silentLogger, type Logger } from '../kube/log.ts';
import { EVENTS, PODS, PODTRANSITIONRULES, ROLLOUTLIFECYCLES, type ResourceType } from '../kube/resources.ts';
import { explainPod, type PodReport } from '../lifecycle/explain.ts';
import { recentEvents, type KubeEvent } from './events.ts';
import { observePod, type PodHistory } from './pod-history.ts';
import { podKey, podRow } from './pod-row.ts';
import { describeProblem, resourceName } from './problems.ts';
import { rolloutView } from './rollouts.ts';
import { ruleView } from './rules.ts';
import type { PodRow, Problem, Snapshot, Update } from './views.ts';

export interface HubOptions {
  client: KubeClient;
  /** The namespace to watch; all when undefined. */
  namespace: string | undefined;
  logger?: Logger;
}

/** Receives the snapshot when it subscribes, then every update: the event's name and its JSON. */
export type Subscriber = (event: 'snapshot' | 'update', json: string) => void;

type List = 'rules' | 'rollouts' | 'events' | 'problems' | 'synced';

/** Deleted pods kept on the timeline at most (the oldest go first). */
const MAX_GONE = 1000;
/** How long changes are gathered into one update. */
const BATCH_MS = 50;
/** How long a pod that went (deleted, or no longer controlled) stays on the timeline. */
const GONE_RETENTION_MS = 5 * 60_000;

export class DashboardHub {
  readonly #options: HubOptions;
  readonly #log: Logger;
  readonly #pods: Informer<Pod>;
  readonly #rules: Informer<PodTransitionRule>;
  readonly #rollouts: Informer<RolloutLifecycle>;
  readonly #events: Informer<KubeEvent>;
  readonly #histories = new Map<string, PodHistory>();
  readonly #rows = new Map<string, PodRow>();
  readonly #dirtyPods = new Set<string>();
  readonly #dirtyLists = new Set<List>();
  readonly #problems = new Map<string, Problem>();
  readonly #subscribers = new Set<Subscriber>();
  #timer: NodeJS.Timeout | undefined;

  constructor(options: HubOptions) {
    this.#options = options;
    this.#log = (options.logger ?? silentLogger()).child({ component: 'dashboard' });
    const { client, namespace } = options;
    const informer = <T extends Pod | PodTransitionRule | RolloutLifecycle | KubeEvent>(type: ResourceType, selectors: { labelSelector?: string; fieldSelector?: string }) =>
      new Informer<T>({ client, type, namespace, ...selectors, logger: this.#log, onHealth: (problem) => this.#health(type, problem) });
    this.#pods = informer<Pod>(PODS, { labelSelector: `${CONTROL_LABEL}=${CONTROL_LABEL_VALUE}` });
    this.#rules = informer<PodTransitionRule>(PODTRANSITIONRULES, {});
    this.#rollouts = informer<RolloutLifecycle>(ROLLOUTLIFECYCLES, {});
    this.#events = informer<KubeEvent>(EVENTS, { fieldSelector: 'source=podops' });
    this.#pods.addHandler({
      onAdd: (pod) => this.#observe(pod),
      onUpdate: (_previous, pod) => this.#observe(pod),
      onDelete: (pod) => this.#gone(pod),
    });
    this.#listFollows(this.#rules, 'rules');
    this.#listFollows(this.#rollouts, 'rollouts');
    this.#listFollows(this.#events, 'events');
  }

  /** Any change of the informer's objects makes its whole list go out again (they are few). */
  #listFollows<T extends ObjectWithMeta>(informer: Informer<T>, list: List): void {
    const changed = (): void => this.#dirty(list);
    informer.addHandler({ onAdd: changed, onUpdate: changed, onDelete: changed });
  }

  /** Keeps the view current until the signal aborts. */
  async run(signal: AbortSignal): Promise<void> {
    const prune = setInterval(() => this.#pruneGone(), 10_000);
    void this.#pods.waitForSync(signal).then(() => this.#dirty('synced'));
    try {
      await Promise.all([this.#pods, this.#rules, this.#rollouts, this.#events].map((each) => each.run(signal)));
    } finally {
      clearInterval(prune);
      clearTimeout(this.#timer);
      this.#subscribers.clear();
    }
  }

  /** Sends the snapshot to `subscriber` now, then every update; returns the unsubscribe. */
  subscribe(subscriber: Subscriber): () => void {
    this.#subscribers.add(subscriber);
    subscriber('snapshot', JSON.stringify(this.snapshot()));
    return () => this.#subscribers.delete(subscriber);
  }

  get subscribers(): number {
    return this.#subscribers.size;
  }

  snapshot(): Snapshot {
    return {
      now: Date.now(),
      namespace: this.#options.namespace,
      server: this.#options.client.server,
      synced: this.#pods.hasSynced(),
      pods: [...this.#rows.values()],
      rules: this.#ruleViews(),
      rollouts: this.#rolloutViews(),
      events: recentEvents(this.#events.list()),
      problems: [...this.#problems.values()],
    };
  }

  /** A controlled pod as cached, for the inspect view. */
  pod(namespace: string, name: string): Pod | undefined {
    return this.#pods.get(namespace, name);
  }

  #observe(pod: Pod): void {
    const key = podKey(pod.metadata.namespace, pod.metadata.name);
    // A pod of the same name made again (a StatefulSet's) starts a history of its own.
    const history = this.#rows.get(key)?.gone === undefined ? this.#histories.get(key) : undefined;
    this.#record(key, pod, explainPod(pod), history);
  }

  #gone(pod: Pod): void {
    const key = podKey(pod.metadata.namespace, pod.metadata.name);
    // Its lifecycles end with it.
    const report: PodReport = { ...explainPod(pod), lifecycles: [], serviceAvailableSince: undefined };
    this.#record(key, pod, report, this.#histories.get(key));
    this.#rows.set(key, { ...(this.#rows.get(key) as PodRow), gone: Date.now() });
    this.#pruneGone(MAX_GONE);
  }

  #record(key: string, pod: Pod, report: PodReport, previous: PodHistory | undefined): void {
    const history = observePod(previous, report, Date.now());
    this.#histories.set(key, history);
    this.#rows.set(key, podRow(pod, report, history));
    this.#dirtyPods.add(key);
    this.#schedule();
  }

  /** Drops the pods that went, past their time on the timeline, and the oldest beyond `keep`. */
  #pruneGone(keep = Infinity): void {
    const gone = [...this.#rows.values()].filter((row) => row.gone !== undefined).sort((a, b) => (a.gone as number) - (b.gone as number));
    const cutoff = Date.now() - GONE_RETENTION_MS;
    gone.forEach((row, i) => {
      if ((row.gone as number) >= cutoff && gone.length - i <= keep) return;
      this.#rows.delete(row.key);
      this.#histories.delete(row.key);
      this.#dirtyPods.add(row.key);
      this.#schedule();
    });
  }

  #health(type: ResourceType, problem: InformerProblem | undefined): void {
    const resource = resourceName(type);
    if (problem === undefined) {
      if (!this.#problems.delete(resource)) return;
    } else {
      const described = describeProblem(type, this.#options.namespace, problem.verb, problem.error);
      const known = this.#problems.get(resource);
      if (known?.message === described.message && known.verb === described.verb) return;
      this.#problems.set(resource, described);
    }
    this.#dirty('problems');
  }

  #dirty(list: List): void {
    this.#dirtyLists.add(list);
    this.#schedule();
  }

  #schedule(): void {
    this.#timer ??= setTimeout(() => this.#flush(), BATCH_MS);
  }

  #flush(): void {
    this.#timer = undefined;
    const update: Update = { now: Date.now(), upsert: [], remove: [] };
    for (const key of this.#dirtyPods) {
      const row = this.#rows.get(key);
      if (row) update.upsert.push(row);
      else update.remove.push(key);
    }
    this.#dirtyPods.clear();
    const lists = this.#dirtyLists;
    if (lists.has('synced')) update.synced = this.#pods.hasSynced();
    if (lists.has('rules')) update.rules = this.#ruleViews();
    if (lists.has('rollouts')) update.rollouts = this.#rolloutViews();
    if (lists.has('events')) update.events = recentEvents(this.#events.list());
    if (lists.has('problems')) update.problems = [...this.#problems.values()];
    lists.clear();
    const json = JSON.stringify(update);
    for (const subscriber of this.#subscribers) {
      try {
        subscriber('update', json);
      } catch (err) {
        this.#log.warn({ err }, 'a dashboard subscriber failed; dropping it');
        this.#subscribers.delete(subscriber);
      }
    }
  }

  #ruleViews() {
    return this.#rules
      .list()
      .map(ruleView)
      .sort((a, b) => a.key.localeCompare(b.key));
  }

  #rolloutViews() {
    return this.#rollouts
      .list()
      .map(rolloutView)
      .sort((a, b) => a.key.localeCompare(b.key));
  }
}
