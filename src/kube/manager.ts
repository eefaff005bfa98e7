// The manager (controller-runtime's Manager): runs the operator's parts until shutdown. Parts that serve on
// every replica (informers, the webhook server, probes, certificates) start at once; parts that need
// leadership (controllers) start only on the leader. Losing the lease stops everything with an error, so the
// process exits and restarts clean, as controller-runtime does.

import { untilAborted } from './clock.ts';
import { LeaderElector, type LeaderElectionOptions } from './leader-election.ts';
import { silentLogger, type Logger } from './log.ts';

export interface Runnable {
  name: string;
  /** Only the leader runs it. */
  needLeaderElection: boolean;
  /** Runs until the signal aborts. */
  start(signal: AbortSignal): Promise<void>;
}

export class LeadershipLostError extends Error {
  override name = 'LeadershipLostError';
}

export interface ManagerOptions {
  /** Without it every runnable starts at once (a single replica). */
  leaderElection?: Omit<LeaderElectionOptions, 'logger'>;
  logger?: Logger;
}

export class Manager {
  readonly #runnables: Runnable[] = [];
  readonly #options: ManagerOptions;
  readonly #log: Logger;
  #elector: LeaderElector | undefined;

  constructor(options: ManagerOptions = {}) {
    this.#options = options;
    this.#log = (options.logger ?? silentLogger()).child({ component: 'manager' });
  }

  add(runnable: Runnable): void {
    this.#runnables.push(runnable);
  }

  isLeader(): boolean {
    return this.#elector ? this.#elector.isLeader() : true;
  }

  /** Runs until `signal` aborts (then waits for every part to stop), or rejects when leadership is lost. */
  async run(signal: AbortSignal): Promise<void> {
    const all = new AbortController();
    const stop = (): void => all.abort();
    signal.addEventListener('abort', stop, { once: true });
    if (signal.aborted) stop();
    const running: Promise<void>[] = [];
    let failure: unknown;
    const launch = (runnable: Runnable, scope: AbortSignal): void => {
      this.#log.info({ runnable: runnable.name }, 'starting');
      running.push(
        runnable.start(scope).catch((err: unknown) => {
          this.#log.error({ err, runnable: runnable.name }, 'stopped with an error');
          failure ??= err;
          all.abort();
        }),
      );
    };
    for (const runnable of this.#runnables.filter((r) => !r.needLeaderElection)) launch(runnable, all.signal);
    const leaderOnly = this.#runnables.filter((r) => r.needLeaderElection);
    if (!this.#options.leaderElection) {
      for (const runnable of leaderOnly) launch(runnable, all.signal);
    } else {
      this.#elector = new LeaderElector({ ...this.#options.leaderElection, logger: this.#log });
      running.push(
        this.#elector.run(all.signal, {
          onStartedLeading: (leading) => {
            for (const runnable of leaderOnly) launch(runnable, AbortSignal.any([leading, all.signal]));
          },
          onStoppedLeading: () => {
            if (!signal.aborted) {
              failure ??= new LeadershipLostError('leader election lost');
              all.abort();
            }
          },
        }),
      );
    }
    await untilAborted(all.signal);
    await Promise.all(running);
    signal.removeEventListener('abort', stop);
    if (failure !== undefined) throw failure;
  }
}
