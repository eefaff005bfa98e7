// Runs the scenarios against a cluster: first what the implementation offers, then each scenario in a namespace
// of its own (a few at a time), each with its own deadline, skipping those that need what is missing, and
// deleting every namespace it made, also when the user stops the run.

import type { KubeClient } from '../kube/client.ts';
import type { Capabilities } from './capabilities.ts';
import { Interrupted, ScenarioContext } from './context.ts';
import { awaitNamespacesGone, createNamespace, deleteNamespace, waitForServiceAccount } from './namespaces.ts';
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
  /** A failure: the step, what went wrong, what was observed. */
  step?: string;
  message?: string;
  observed?: Observed;
  /** A skip or an interrupted run: why. */
  reason?: string;
}

export interface Report {
  server: string;
  image: string;
  timeoutMs: number;
  capabilities: Capabilities | undefined;
  /** In the scenarios' order. */
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

  /** Runs `body` in a new namespace of the suite with a fresh deadline, and starts deleting the namespace after. */
  async function inNamespace<T>(purpose: string, body: (ctx: ScenarioContext) => Promise<T>): Promise<T> {
    const deadline = performance.now() + options.timeoutMs;
    const timeout = AbortSignal.timeout(Math.ceil(options.timeoutMs));
    // Not stopped by Ctrl-C: a create cut short might have made a namespace the cleanup would not know of.
    const namespace = await createNamespace(client, purpose, timeout);
    created.push(namespace);
    const signal = AbortSignal.any([interrupt, timeout]);
    try {
      await waitForServiceAccount(client, namespace, signal);
      return await body(new ScenarioContext({ client, namespace, image: options.image, deadline, interrupt, signal, ...(capabilities && { capabilities }) }));
    } finally {
      cleanups.push(deleteNamespace(client, namespace, cleanupSignal()).then((problems) => ({ namespace, problems })));
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

  const queue = [...options.scenarios];
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
    let namespace: string | undefined;
    let step = 'create its namespace';
    try {
      await inNamespace(scenario.name, async (ctx) => {
        namespace = ctx.namespace;
        try {
          await scenario.run(ctx);
        } finally {
          step = ctx.currentStep;
        }
      });
      return { ...base, status: 'passed', durationMs: now() - begin, namespace };
    } catch (err) {
      const durationMs = now() - begin;
      if (err instanceof Interrupted || interrupt.aborted) return { ...base, status: 'interrupted', durationMs, ...(namespace && { namespace }), reason: `interrupted in step: ${step}` };
      const failure = err instanceof StepFailure ? { message: err.message, ...(err.observed && { observed: err.observed }) } : failureOf(err, options.timeoutMs);
      return { ...base, status: 'failed', durationMs, ...(namespace && { namespace }), step, ...failure };
    }
  }

  await Promise.all(Array.from({ length: Math.max(1, options.parallel) }, worker));
  const problems = new Map((await Promise.all(cleanups)).map(({ namespace, problems }) => [namespace, problems]));
  const left = await awaitNamespacesGone(client, created, cleanupMs);
  return {
    server: client.server,
    image: options.image,
    timeoutMs: options.timeoutMs,
    capabilities,
    results: options.scenarios.map((s) => results.get(s)!),
    durationMs: now() - started,
    interrupted: interrupt.aborted,
    namespaces: { created: created.length, left: left.map(({ name, reason }) => ({ name, reason: [reason, ...(problems.get(name) ?? [])].join('; ') })) },
  };
}

/** An error that is not a failed expectation: an API answer (its message names the request), a connection, the deadline. */
function failureOf(err: unknown, timeoutMs: number): { message: string } {
  if ((err as Error).name === 'AbortError' || (err as Error).name === 'TimeoutError') return { message: `the scenario's deadline (${timeoutMs / 1000}s) passed during a request` };
  return { message: (err as Error).message };
}
