// The manager (controller-runtime's Manager): runs the operator's parts in stages and stops them in reverse.
//
// Start: servers (metrics, probes), then webhooks, then caches, then the other parts, each stage once the one
// before is ready (a server listening, a cache synced); then the leader election, and the parts that need
// leadership (the controllers) on the leader only. Stop: the same stages in reverse, so the webhooks answer
// while the controllers wind down and the probes answer to the end; the whole stop is bounded by a grace
// period, after which every part still running is told to stop but no longer waited for, and run() returns.
// Losing the lease stops everything with an error, so the process exits and restarts clean, as
// controller-runtime does.

import { systemClock, untilAborted, type Clock } from './clock.ts';
import { LeaderElector, type LeaderElectionOptions } from './leader-election.ts';
import { silentLogger, type Logger } from './log.ts';

export const STAGES = ['servers', 'webhooks', 'caches', 'others', 'leader'] as const;
export type Stage = (typeof STAGES)[number];

export interface Runnable {
  name: string;
  /** When it starts: `leader` parts run only while this replica leads. */
  stage: Stage;
  /** Runs until the signal aborts. */
  start(signal: AbortSignal): Promise<void>;
  /** Resolves once it serves (listening, synced), or when the signal aborts; the next stage waits for it. */
  ready?(signal: AbortSignal): Promise<void>;
}

export class LeadershipLostError extends Error {
  override name = 'LeadershipLostError';
}

export interface ManagerOptions {
  /** Without it the leader stage starts at once (a single replica). */
  leaderElection?: Omit<LeaderElectionOptions, 'logger'>;
  /** How long a stop may take in all (controller-runtime's GracefulShutdownTimeout). Default 25 s. */
  gracefulShutdownMs?: number;
  clock?: Clock;
  logger?: Logger;
}

interface Running {
  runnable: Runnable;
  stop: AbortController;
  done: Promise<void>;
  settled: boolean;
}

export class Manager {
  readonly #runnables: Runnable[] = [];
  readonly #options: ManagerOptions;
  readonly #clock: Clock;
  readonly #log: Logger;
  #elector: LeaderElector | undefined;

  constructor(options: ManagerOptions = {}) {
    this.#options = options;
    this.#clock = options.clock ?? systemClock;
    this.#log = (options.logger ?? silentLogger()).child({ component: 'manager' });
  }

  add(runnable: Runnable): void {
    this.#runnables.push(runnable);
  }

  /** Whether this replica runs the leader stage now (always, without leader election). */
  isLeader(): boolean {
    return this.#options.leaderElection ? (this.#elector?.isLeader() ?? false) : true;
  }

  /** Runs until `signal` aborts, then stops in reverse order within the grace period; rejects with the first failure. */
  async run(signal: AbortSignal): Promise<void> {
    const shutdown = new AbortController();
    const stop = (): void => shutdown.abort();
    signal.addEventListener('abort', stop, { once: true });
    if (signal.aborted) stop();
    // Stop order: the leader's parts, then the election (the lease is released once they stopped, so the
    // next leader never overlaps them), then the stages in reverse.
    const groups = new Map<Stage | 'election', Running[]>([...STAGES, 'election' as const].map((group) => [group, []]));
    let failure: unknown;
    const launch = (runnable: Runnable, group: Stage | 'election', scope?: AbortSignal): void => {
      // A lease re-acquired after a loss would otherwise start leader parts while their group is stopping.
      if (shutdown.signal.aborted) return;
      const own = new AbortController();
      this.#log.info({ runnable: runnable.name, stage: runnable.stage }, 'starting');
      const entry: Running = { runnable, stop: own, done: Promise.resolve(), settled: false };
      entry.done = runnable
        .start(scope ? AbortSignal.any([own.signal, scope]) : own.signal)
        .catch((err: unknown) => {
          if (own.signal.aborted || shutdown.signal.aborted) this.#log.warn({ err, runnable: runnable.name }, 'failed while stopping');
          else {
            this.#log.error({ err, runnable: runnable.name }, 'stopped with an error');
            failure ??= err;
          }
          stop();
        })
        .finally(() => (entry.settled = true));
      groups.get(group)?.push(entry);
    };

    for (const stage of STAGES.slice(0, -1)) {
      if (shutdown.signal.aborted) break;
      const parts = this.#runnables.filter((r) => r.stage === stage);
      for (const runnable of parts) launch(runnable, stage);
      await Promise.all(parts.map((runnable) => runnable.ready?.(shutdown.signal)));
    }
    if (!shutdown.signal.aborted) {
      this.#startLeading(launch, () => {
        if (shutdown.signal.aborted) return;
        failure ??= new LeadershipLostError('leader election lost');
        stop();
      });
    }

    await untilAborted(shutdown.signal);
    await this.#stop(['leader', 'election', 'others', 'caches', 'webhooks', 'servers'].map((group) => groups.get(group as Stage) ?? []));
    signal.removeEventListener('abort', stop);
    if (failure !== undefined) throw failure;
  }

  #startLeading(launch: (runnable: Runnable, group: Stage | 'election', scope?: AbortSignal) => void, lost: () => void): void {
    const leaderOnly = this.#runnables.filter((r) => r.stage === 'leader');
    const election = this.#options.leaderElection;
    if (!election) {
      for (const runnable of leaderOnly) launch(runnable, 'leader');
      return;
    }
    const elector = new LeaderElector({ ...election, logger: this.#log });
    this.#elector = elector;
    const campaign: Runnable = {
      name: 'leader-election',
      stage: 'leader',
      start: (signal) =>
        elector.run(signal, {
          onStartedLeading: (leading) => {
            for (const runnable of leaderOnly) launch(runnable, 'leader', leading);
          },
          onStoppedLeading: lost,
        }),
    };
    launch(campaign, 'election');
  }

  /**
   * Stops group after group, each given what is left of the grace period. Once it has run out, the groups
   * not reached yet are still told to stop, only no longer waited for (controller-runtime cancels them all).
   */
  async #stop(groups: Running[][]): Promise<void> {
    const deadline = this.#clock.now() + (this.#options.gracefulShutdownMs ?? 25_000);
    for (const [index, parts] of groups.entries()) {
      if (parts.length === 0) continue;
      for (const part of parts) part.stop.abort();
      let cancelTimer = (): void => {};
      const timedOut = new Promise<boolean>((resolve) => (cancelTimer = this.#clock.setTimer(() => resolve(true), Math.max(0, deadline - this.#clock.now()))));
      const stopped = Promise.all(parts.map((part) => part.done)).then(() => false);
      const late = await Promise.race([stopped, timedOut]);
      cancelTimer();
      if (late) {
        const stuck = parts.filter((part) => !part.settled).map((part) => part.runnable.name);
        this.#log.error({ stuck }, 'graceful shutdown timed out; leaving the rest behind');
        for (const part of groups.slice(index + 1).flat()) part.stop.abort();
        return;
      }
    }
  }
}
