// Runs the scenarios against a cluster: first what the implementation offers, then each scenario in a namespace
// of its own (a few at a time, in the order given or shuffled), each with its own deadline, skipping those that
// need what is missing, and deleting every namespace it made, also when the user stops the run.

import type { KubeClient } from '../kube/client.ts';
import type { Capabilities } from './capabilities.ts';
import { Interrupted, ScenarioContext, type Leftover } from './context.ts';
import type { KnownDeviation } from './deviations.ts';
import { NAMESPACE_PREFIX, awaitNamespacesGone, createNamespace, deleteNamespace, waitForServiceAccount } from './namespaces.ts';
import { StepFailure, type Observed } from './observe.ts';
import { detectCapabilities } from './probes.ts';
import { topicOf, type Scenario } from './scenario.ts';

export interface RunOptions {
  client: KubeClient;
  scenarios: readonly Scenario[];
  image: string;
  /** Each scenario's deadline (and the probes'). */
  timeoutMs: number;
  /** How many scenarios run at once. */
  parallel: number;
  /** Runs the scenarios in the order this seed shuffles them into; without one, in the order given. */
  seed?: number;
  /** Aborted when the user stops the run. */
  interrupt: AbortSignal;
  /** Wall-clock milliseconds, for durations. */
  now: () => number;
  onCapabilities?(capabilities: Capabilities): void;
  onResult?(result: ScenarioResult): void;
}

export type ScenarioStatus = 'passed' | 'failed' | 'skipped' | 'interrupted';

export interface ScenarioResult {
  name: string;
  title: string;
  topic: string;
  status: ScenarioStatus;
  durationMs: number;
  namespace?: string;
  /** A failure: the step, what went wrong, what was observed, and the known deviation that fails that step. */
  step?: string;
  message?: string;
  observed?: Observed;
  deviation?: KnownDeviation;
  /** Labels of ended lifecycles left on pods back in service: a failure too, reported apart from the steps'. */
  leftovers?: Leftover[];
  /** A skip or an interrupted run: why. */
  reason?: string;
}

export interface Report {
  server: string;
  image: string;
  timeoutMs: number;
  parallel: number;
  /** The seed of the shuffled order the scenarios ran in, if they were shuffled. */
  seed?: number;
  capabilities: Capabilities | undefined;
  /** In the scenarios' order (not the order they ran in). */
  results: ScenarioResult[];
  durationMs: number;
  interrupted: boolean;
  namespaces: { created: number; left: { name: string; reason: string }[] };
}

/** How long the cleanup waits for the namespaces to go, at least: namespace deletion takes real clusters a while. */
const MIN_CLEANUP_MS = 60_000;

export async function runConformance(options: RunOptions): Promise<Report> {
  const { client, interrupt, now } = options;
  const started = now();
  const created: string[] = [];
  const cleanups: Promise<{ namespace: string; problems: string[] }>[] = [];
  const cleanupMs = Math.ceil(Math.max(MIN_CLEANUP_MS, options.timeoutMs));
  const cleanupSignal = (): AbortSignal => AbortSignal.timeout(cleanupMs);

  /** Known once probed, in the probes' own namespace not yet. */
  let capabilities: Capabilities | undefined;

  /**
   * Runs `body` in a new namespace of the suite with a fresh deadline; the body may make more namespaces. Starts
   * deleting them all after.
   */
  async function inNamespace<T>(purpose: string, body: (ctx: ScenarioContext) => Promise<T>): Promise<T> {
    const deadline = performance.now() + options.timeoutMs;
    const timeout = AbortSignal.timeout(Math.ceil(options.timeoutMs));
    const signal = AbortSignal.any([interrupt, timeout]);
    const namespaces: string[] = [];
    const newNamespace = async (what: string): Promise<string> => {
      // Not stopped by Ctrl-C: a create cut short might have made a namespace the cleanup would not know of.
      const namespace = await createNamespace(client, what, timeout);
      created.push(namespace);
      namespaces.push(namespace);
      await waitForServiceAccount(client, namespace, signal);
      return namespace;
    };
    try {
      const namespace = await newNamespace(purpose);
      const suffix = namespace.slice(NAMESPACE_PREFIX.length);
      const more = (what: string) => newNamespace(`${purpose}: ${what}`);
      return await body(new ScenarioContext({ client, namespace, suffix, newNamespace: more, image: options.image, deadline, interrupt, signal, ...(capabilities && { capabilities }) }));
    } finally {
      for (const namespace of namespaces) cleanups.push(deleteNamespace(client, namespace, cleanupSignal()).then((problems) => ({ namespace, problems })));
    }
  }

  const results = new Map<Scenario, ScenarioResult>();
  try {
    capabilities = await inNamespace('capability probes', detectCapabilities);
    options.onCapabilities?.(capabilities);
  } catch (err) {
    if (!interrupt.aborted) {
      await Promise.all(cleanups);
      throw err;
    }
  }

  const queue = options.seed === undefined ? [...options.scenarios] : shuffled(options.scenarios, options.seed);
  const worker = async (): Promise<void> => {
    for (let scenario = queue.shift(); scenario; scenario = queue.shift()) {
      const result = await runOne(scenario);
      results.set(scenario, result);
      options.onResult?.(result);
    }
  };

  async function runOne(scenario: Scenario): Promise<ScenarioResult> {
    const base = { name: scenario.name, title: scenario.title, topic: topicOf(scenario) };
    const begin = now();
    const offered = capabilities;
    if (interrupt.aborted || !offered) return { ...base, status: 'interrupted', durationMs: 0, reason: 'not run: the run was interrupted' };
    const missing = (scenario.requires ?? []).find((name) => !offered[name].available);
    if (missing) return { ...base, status: 'skipped', durationMs: 0, reason: offered[missing].summary };
    let context: ScenarioContext | undefined;
    try {
      await inNamespace(scenario.name, async (ctx) => {
        context = ctx;
        await scenario.run(ctx);
      });
    } catch (err) {
      const durationMs = now() - begin;
      const where = context && { namespace: context.namespace };
      const step = context?.currentStep ?? 'create its namespace';
      if (err instanceof Interrupted || interrupt.aborted) return { ...base, status: 'interrupted', durationMs, ...where, reason: `interrupted in step: ${step}` };
      const failure = err instanceof StepFailure ? { message: err.message, ...(err.observed && { observed: err.observed }) } : failureOf(err, options.timeoutMs);
      const deviation = context?.currentDeviation;
      return { ...base, status: 'failed', durationMs, ...where, step, ...failure, ...(deviation && { deviation }), ...leftoversOf(context) };
    }
    const leftovers = leftoversOf(context);
    return { ...base, status: leftovers.leftovers ? 'failed' : 'passed', durationMs: now() - begin, namespace: context!.namespace, ...leftovers };
  }

  await Promise.all(Array.from({ length: Math.max(1, Math.min(options.parallel, queue.length)) }, worker));
  const problems = new Map((await Promise.all(cleanups)).map(({ namespace, problems }) => [namespace, problems]));
  const left = await awaitNamespacesGone(client, created, cleanupMs);
  return {
    server: client.server,
    image: options.image,
    timeoutMs: options.timeoutMs,
    parallel: options.parallel,
    ...(options.seed !== undefined && { seed: options.seed }),
    capabilities,
    results: options.scenarios.map((s) => results.get(s)!),
    durationMs: now() - started,
    interrupted: interrupt.aborted,
    namespaces: { created: created.length, left: left.map(({ name, reason }) => ({ name, reason: [reason, ...(problems.get(name) ?? [])].join('; ') })) },
  };
}

const leftoversOf = (ctx: ScenarioContext | undefined): { leftovers?: Leftover[] } => (ctx?.leftovers.length ? { leftovers: [...ctx.leftovers] } : {});

/** An error that is not a failed expectation: an API answer (its message names the request), a connection, the deadline. */
function failureOf(err: unknown, timeoutMs: number): { message: string } {
  if ((err as Error).name === 'AbortError' || (err as Error).name === 'TimeoutError') return { message: `the scenario's deadline (${timeoutMs / 1000}s) passed during a request` };
  return { message: (err as Error).message };
}

/** The scenarios in the order a seed gives (Fisher-Yates driven by mulberry32): the same seed, the same order. */
export function shuffled<T>(items: readonly T[], seed: number): T[] {
  let state = seed >>> 0;
  const random = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
  const order = [...items];
  for (let i = order.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [order[i], order[j]] = [order[j]!, order[i]!];
  }
  return order;
}
