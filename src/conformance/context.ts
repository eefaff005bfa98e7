// What a scenario works with: its namespace, the API client, the pod image, its deadline, and the reads, writes
// and waits every scenario needs, each failing with a StepFailure that carries what was observed.

import { setTimeout as sleep } from 'node:timers/promises';
import type { Pod } from '../api/kube.ts';
import { CONTROL_LABEL, CONTROL_LABEL_VALUE, SERVICE_READY_GATE } from '../api/protocol.ts';
import { ApiError, isConflict, type KubeClient, type ObjectWithMeta } from '../kube/client.ts';
import { PODS, type ResourceType } from '../kube/resources.ts';
import type { Capabilities } from './capabilities.ts';
import { deviationLeaving, type KnownDeviation } from './deviations.ts';
import { inServiceMismatches, labelMismatches, labelsOfLifecycles, type LabelExpectation } from './expect.ts';
import { StepFailure, observedAnswer, observedPod, type Observed } from './observe.ts';

/** How often a wait reads again: a few reads a second per scenario is nothing for an API server. */
const POLL_MS = 100;

export interface PodOptions {
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  finalizers?: string[];
  /** Leave out kusionstack.io/control=true: a pod outside the protocol. */
  uncontrolled?: boolean;
  /** Create it with the service-ready gate already in its spec. */
  withGate?: boolean;
}

/** The user stopped the run (Ctrl-C): not a failure of the implementation. */
export class Interrupted extends Error {
  override name = 'Interrupted';
}

export interface ContextOptions {
  client: KubeClient;
  namespace: string;
  /** Ends every name the scenario gives its objects: unique to the run (the random part of its namespace). */
  suffix: string;
  /** Makes another namespace of the suite for the scenario, deleted with its own. */
  newNamespace(purpose: string): Promise<string>;
  image: string;
  /** performance.now() after which waits fail. */
  deadline: number;
  /** Aborted when the user stops the run (Ctrl-C). */
  interrupt: AbortSignal;
  /** Aborted at the deadline or on an interrupt: every request and wait of the scenario stops then. */
  signal: AbortSignal;
  /** What the implementation offers; none while the capabilities are being probed. */
  capabilities?: Capabilities;
}

/** Runs a request, and returns the API's refusal of it, or its answer when it went through. */
export async function refusalOf(call: () => Promise<unknown>): Promise<{ refusal: ApiError; answer?: undefined } | { refusal?: undefined; answer: unknown }> {
  try {
    return { answer: await call() };
  } catch (err) {
    if (err instanceof ApiError) return { refusal: err };
    throw err;
  }
}

/** Labels of lifecycles that had ended, still on a pod back in service: reported beside the scenario's own result. */
export interface Leftover {
  /** The step that saw the pod back in service. */
  step: string;
  pod: string;
  /** `key=value`. */
  labels: string[];
  /** The known deviation that leaves exactly these labels behind. */
  deviation?: KnownDeviation;
}

/** What a scenario's steps record, shared by its contexts in other namespaces. */
interface ScenarioLog {
  step: string;
  /** The known deviation that fails the step under way, if the implementation has it. */
  detects?: KnownDeviation | undefined;
  leftovers: Leftover[];
}

export class ScenarioContext {
  readonly client: KubeClient;
  readonly namespace: string;
  readonly image: string;
  readonly #options: ContextOptions;
  /** Aborts the scenario's requests at the deadline or on an interrupt. */
  readonly signal: AbortSignal;
  readonly capabilities: Capabilities | undefined;
  readonly #log: ScenarioLog;

  constructor(options: ContextOptions, log: ScenarioLog = { step: 'set up', leftovers: [] }) {
    this.#options = options;
    this.client = options.client;
    this.namespace = options.namespace;
    this.image = options.image;
    this.signal = options.signal;
    this.capabilities = options.capabilities;
    this.#log = log;
  }

  /** The step under way, named in a failure. */
  get currentStep(): string {
    return this.#log.step;
  }

  /** The known deviation the step under way detects: named beside its failure. */
  get currentDeviation(): KnownDeviation | undefined {
    return this.#log.detects;
  }

  get leftovers(): readonly Leftover[] {
    return this.#log.leftovers;
  }

  /** Runs a step; `detects` names the known deviation of an implementation that fails it. */
  async step<T>(title: string, run: () => Promise<T>, options: { detects?: KnownDeviation } = {}): Promise<T> {
    this.#log.step = title;
    this.#log.detects = options.detects;
    return run();
  }

  /** The name of an object of the scenario: `base` made unique to the run. */
  name(base: string): string {
    return `${base}-${this.#options.suffix}`;
  }

  /** A context in another namespace of the suite, deleted with the scenario's; same deadline, names and steps. */
  async otherNamespace(purpose: string): Promise<ScenarioContext> {
    const namespace = await this.#options.newNamespace(purpose);
    return new ScenarioContext({ ...this.#options, namespace }, this.#log);
  }

  /** A pod spec of the suite's image that needs nothing of the cluster: no service account token, the restricted Pod Security profile. */
  podSpec(): NonNullable<Pod['spec']> {
    return {
      containers: [
        {
          name: 'pause',
          image: this.image,
          securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] }, runAsNonRoot: true, runAsUser: 65535, seccompProfile: { type: 'RuntimeDefault' } },
        },
      ],
      automountServiceAccountToken: false,
      terminationGracePeriodSeconds: 0,
    };
  }

  podManifest(name: string, options: PodOptions = {}): Pod {
    return {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name,
        namespace: this.namespace,
        labels: { ...(!options.uncontrolled && { [CONTROL_LABEL]: CONTROL_LABEL_VALUE }), ...options.labels },
        ...(options.annotations && { annotations: options.annotations }),
        ...(options.finalizers && { finalizers: options.finalizers }),
      },
      spec: { ...this.podSpec(), ...(options.withGate && { readinessGates: [{ conditionType: SERVICE_READY_GATE }] }) },
    };
  }

  /** Creates a pod; the answer is the object as admitted. */
  createPod(name: string, options: PodOptions = {}): Promise<Pod> {
    return this.client.create<Pod>(PODS, this.podManifest(name, options), { signal: this.signal });
  }

  /**
   * Creates a controlled pod and checks that the implementation injected the readiness gate: everything else
   * builds on it, so a scenario stops here at once when no lifecycle webhook answers.
   */
  async createControlledPod(name: string, options: Omit<PodOptions, 'uncontrolled'> = {}): Promise<Pod> {
    const pod = await this.createPod(name, options);
    if (!(pod.spec?.readinessGates ?? []).some((g) => g.conditionType === SERVICE_READY_GATE)) {
      throw new StepFailure(`the readiness gate ${SERVICE_READY_GATE} was not injected when the controlled pod was created (is a mutating webhook for pods labelled ${CONTROL_LABEL}=${CONTROL_LABEL_VALUE} installed?)`, observedPod(pod));
    }
    return pod;
  }

  readPod(name: string): Promise<Pod> {
    return this.client.get<Pod>(PODS, this.namespace, name, this.signal);
  }

  /**
   * An update of the whole pod, as operation and cooperation controllers write (get, change, PUT with the
   * resourceVersion read, again on a conflict). The answer is the object as admitted: what the webhook did in
   * that very write.
   */
  async updatePod(name: string, change: (pod: Pod) => void): Promise<Pod> {
    for (let attempt = 1; ; attempt++) {
      const pod = structuredClone(await this.readPod(name));
      change(pod);
      try {
        return await this.client.replace<Pod>(PODS, pod, { signal: this.signal });
      } catch (err) {
        if (!isConflict(err) || attempt >= 10) throw err;
      }
    }
  }

  /** Sets (a string) or removes (null) labels of a pod, in one update. */
  setLabels(name: string, labels: Record<string, string | null>): Promise<Pod> {
    return this.updatePod(name, (pod) => {
      const current = (pod.metadata.labels ??= {});
      for (const [key, value] of Object.entries(labels)) {
        if (value === null) delete current[key];
        else current[key] = value;
      }
    });
  }

  /** Sets or removes labels of a pod with a merge patch, which no other write can make conflict. */
  patchLabels(name: string, labels: Record<string, string | null>): Promise<Pod> {
    return this.client.patch<Pod>(PODS, this.namespace, name, 'merge', { metadata: { labels } }, { signal: this.signal });
  }

  /**
   * Reads until `check` finds nothing wrong, and returns what it read. At the deadline, fails naming what it
   * waited for, what was still wrong and what it observed last.
   */
  async waitFor<T>(what: string, read: () => Promise<T>, check: (value: T) => string[], observe: (value: T) => Observed): Promise<T> {
    let wrong: string[] = [];
    let observed: Observed | undefined;
    for (;;) {
      try {
        const value = await read();
        wrong = check(value);
        if (wrong.length === 0) return value;
        observed = observe(value);
      } catch (err) {
        if (this.#options.interrupt.aborted) throw new Interrupted('interrupted');
        if (!this.signal.aborted) {
          wrong = [(err as Error).message];
          observed = observedAnswer(`a read while waiting for ${what}`, err);
        }
      }
      if (this.#options.interrupt.aborted) throw new Interrupted('interrupted');
      if (this.signal.aborted || performance.now() >= this.#options.deadline) {
        throw new StepFailure(`timed out waiting for ${what}${wrong.length ? `: ${wrong.join('; ')}` : ''}`, observed);
      }
      await sleep(POLL_MS, undefined, { signal: this.signal }).catch(() => {});
    }
  }

  waitForPod(name: string, what: string, check: (pod: Pod) => string[]): Promise<Pod> {
    return this.waitFor(what, () => this.readPod(name), check, observedPod);
  }

  /** Reads the pod for `ms`, and fails at the first read on which `check` finds something wrong. */
  async podStays(name: string, what: string, ms: number, check: (pod: Pod) => string[]): Promise<void> {
    const until = performance.now() + ms;
    while (performance.now() < until) {
      const pod = await this.readPod(name);
      this.expect(what, check(pod), observedPod(pod));
      await sleep(POLL_MS, undefined, { signal: this.signal });
    }
  }

  waitForLabels(name: string, what: string, expected: LabelExpectation): Promise<Pod> {
    return this.waitForPod(name, what, (pod) => labelMismatches(pod, expected));
  }

  /**
   * Waits until the pod is back in service after its lifecycles `ids` ended. Labels of those lifecycles still on
   * it do not fail the step: they are recorded as leftovers and reported apart, so that an implementation that
   * leaves one behind still gets the result of what the scenario is about.
   */
  async backInService(pod: string, ids: readonly string[]): Promise<Pod> {
    const served = await this.waitForPod(pod, `${pod} back in service`, inServiceMismatches);
    const keys = labelsOfLifecycles(served, ids);
    if (keys.length > 0) {
      const deviation = deviationLeaving(keys);
      this.#log.leftovers.push({ step: this.#log.step, pod: `${this.namespace}/${pod}`, labels: keys.map((key) => `${key}=${served.metadata.labels![key]}`), ...(deviation && { deviation }) });
    }
    return served;
  }

  waitForObject<T extends ObjectWithMeta>(type: ResourceType, name: string, what: string, check: (object: T) => string[]): Promise<T> {
    return this.waitFor(what, () => this.client.get<T>(type, this.namespace, name, this.signal), check, (object) => ({ kind: 'Object', name: `${type.kind} ${name}`, state: (object as { status?: unknown }).status ?? object }));
  }

  /** Fails unless the pod (typically the answer to a write) has the labels expected. */
  expectLabels(pod: Pod, where: string, expected: LabelExpectation): void {
    this.expect(where, labelMismatches(pod, expected), observedPod(pod));
  }

  expect(where: string, wrong: string[], observed?: Observed): void {
    if (wrong.length > 0) throw new StepFailure(`${where}: ${wrong.join('; ')}`, observed);
  }

  /** Runs a request that must be refused, and returns the refusal; a success is a failure of the step. */
  async expectRefusal(request: string, call: () => Promise<unknown>): Promise<ApiError> {
    const { refusal, answer } = await refusalOf(call);
    if (refusal) return refusal;
    throw new StepFailure(`${request} was accepted, expected a refusal`, answer && typeof answer === 'object' && 'metadata' in answer ? observedPod(answer as Pod) : observedAnswer(request, answer));
  }
}
