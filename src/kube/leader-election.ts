// Leader election on a coordination.k8s.io/v1 Lease, as client-go's leaderelection does it: a candidate
// acquires the lease when it is free or its holder stopped renewing it for a whole lease duration (judged
// by when this process last saw the record change, never by the holder's clock); the leader renews every
// retry period and steps down when it has not renewed within the renew deadline of sending its last write;
// on shutdown it releases the lease so another replica takes over at once. Every Lease call is bounded: one
// an API server leaves hanging is cancelled, so it can neither keep a leader leading past its deadline nor
// stall a campaign or a shutdown.

import { sleep, systemClock, type Clock } from './clock.ts';
import { isAlreadyExists, isConflict, isNotFound, type KubeClient, type KubeObject } from './client.ts';
import { silentLogger, type Logger } from './log.ts';
import type { RuntimeMetrics } from './metrics.ts';
import { LEASES } from './resources.ts';

interface LeaseSpec {
  holderIdentity?: string;
  leaseDurationSeconds?: number;
  acquireTime?: string;
  renewTime?: string;
  leaseTransitions?: number;
}

interface Lease extends KubeObject {
  spec?: LeaseSpec;
}

export interface LeaderElectionOptions {
  client: KubeClient;
  namespace: string;
  name: string;
  /** This replica's identity (e.g. the pod name plus a random suffix). */
  identity: string;
  leaseDurationMs?: number;
  renewDeadlineMs?: number;
  retryPeriodMs?: number;
  /** Give the lease up when stopped (client-go ReleaseOnCancel). Default true. */
  releaseOnCancel?: boolean;
  clock?: Clock;
  logger?: Logger;
  metrics?: RuntimeMetrics;
}

export interface LeaderCallbacks {
  /** Called on becoming leader; `leading` aborts when leadership ends (lost or released). */
  onStartedLeading(leading: AbortSignal): void;
  /** Called when leadership ends. */
  onStoppedLeading?(): void;
  onNewLeader?(identity: string): void;
}

/** metav1.MicroTime: RFC 3339 with microseconds. */
const microTime = (ms: number): string => new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');

export class LeaderElector {
  readonly #options: Required<Omit<LeaderElectionOptions, 'metrics' | 'logger' | 'clock'>>;
  readonly #clock: Clock;
  readonly #log: Logger;
  readonly #metrics: RuntimeMetrics | undefined;
  /** The last record seen, and when (local clock) it last changed. */
  #observed: { spec: LeaseSpec; resourceVersion: string } | undefined;
  #observedAt = 0;
  /** When (local clock) our last successful create or replace of the Lease was sent. */
  #wroteAt = 0;
  #leader = false;
  #reportedLeader = '';

  constructor(options: LeaderElectionOptions) {
    this.#options = {
      leaseDurationMs: 15_000,
      renewDeadlineMs: 10_000,
      retryPeriodMs: 2_000,
      releaseOnCancel: true,
      ...options,
    };
    if (this.#options.leaseDurationMs <= this.#options.renewDeadlineMs) throw new Error('leaseDuration must be greater than renewDeadline');
    if (this.#options.renewDeadlineMs <= this.#options.retryPeriodMs * 1.2) throw new Error('renewDeadline must be greater than retryPeriod*1.2');
    this.#clock = options.clock ?? systemClock;
    this.#log = (options.logger ?? silentLogger()).child({ lease: `${options.namespace}/${options.name}`, identity: options.identity });
    this.#metrics = options.metrics;
  }

  isLeader(): boolean {
    return this.#leader;
  }

  /** Campaigns until `signal` aborts: acquire, lead while renewing, and campaign again after losing the lease. */
  async run(signal: AbortSignal, callbacks: LeaderCallbacks): Promise<void> {
    // A standby reports 0 from the start, so "no replica leads" is visible as a sum of 0.
    this.#setLeader(false);
    while (!signal.aborted) {
      if (!(await this.#acquire(signal, callbacks))) return;
      const leading = new AbortController();
      this.#setLeader(true);
      this.#log.info('became leader');
      callbacks.onStartedLeading(leading.signal);
      await this.#renew(signal);
      this.#setLeader(false);
      leading.abort();
      // Bounded like a renewal: a hung API server must not keep a stopping process alive.
      if (signal.aborted && this.#options.releaseOnCancel) await this.#bounded(this.#options.renewDeadlineMs, undefined, (bound) => this.#release(bound));
      this.#log.info(signal.aborted ? 'stopped leading' : 'lost the lease');
      callbacks.onStoppedLeading?.();
    }
  }

  #setLeader(leader: boolean): void {
    this.#leader = leader;
    this.#metrics?.leaderStatus.set({ name: this.#options.name }, leader ? 1 : 0);
  }

  async #acquire(signal: AbortSignal, callbacks: LeaderCallbacks): Promise<boolean> {
    const { leaseDurationMs, renewDeadlineMs, retryPeriodMs } = this.#options;
    while (!signal.aborted) {
      // Leading ends a renew deadline after the write was sent; an answer later than that would make us
      // leader for no time at all, so an attempt gives up well before.
      if (await this.#bounded(leaseDurationMs - renewDeadlineMs, signal, (attempt) => this.#tryAcquireOrRenew(attempt, callbacks))) return true;
      await sleep(this.#clock, retryPeriodMs * (1 + Math.random() * 0.2), signal);
    }
    return false;
  }

  /**
   * Renews every retry period; returns once the renew deadline, counted from when the last successful write
   * was sent, has passed without a renewal, or on abort.
   */
  async #renew(signal: AbortSignal): Promise<void> {
    const { name, renewDeadlineMs, retryPeriodMs } = this.#options;
    // Others expire the lease a lease duration after they saw our last write, and they cannot have seen it
    // before we sent it: so that is the instant the deadline counts from, not when a round began. A renewal
    // answered late and then a hung server would otherwise keep us leading past the lease.
    const timeLeft = (): number => this.#wroteAt + renewDeadlineMs - this.#clock.now();
    while (!signal.aborted && timeLeft() > 0) {
      // The deadline cancels the call in flight, as client-go's PollUntilContextTimeout does: waiting for a
      // hung request would keep us leading after a standby took the expired lease.
      const renewed = await this.#bounded(timeLeft(), signal, async (round) => {
        while (!round.aborted) {
          if (await this.#tryAcquireOrRenew(round)) return true;
          this.#metrics?.leaderSlowpath.inc({ name });
          await sleep(this.#clock, retryPeriodMs, round);
        }
        return false;
      });
      if (!renewed) return;
      await sleep(this.#clock, Math.max(0, Math.min(retryPeriodMs, timeLeft())), signal);
    }
  }

  /** Runs `work` with a signal that aborts with `signal` or once `ms` pass on the clock. */
  async #bounded<T>(ms: number, signal: AbortSignal | undefined, work: (bound: AbortSignal) => Promise<T>): Promise<T> {
    const deadline = new AbortController();
    const cancel = this.#clock.setTimer(() => deadline.abort(new DOMException(`no answer within ${ms} ms`, 'TimeoutError')), ms);
    try {
      return await work(signal ? AbortSignal.any([signal, deadline.signal]) : deadline.signal);
    } finally {
      cancel();
    }
  }

  async #tryAcquireOrRenew(signal: AbortSignal, callbacks?: LeaderCallbacks): Promise<boolean> {
    const { client, namespace, name, identity, leaseDurationMs } = this.#options;
    const now = this.#clock.now();
    const desired: LeaseSpec = {
      holderIdentity: identity,
      // Whole seconds, rounded up: others then wait at least as long as this leader may lead unrenewed.
      leaseDurationSeconds: Math.ceil(leaseDurationMs / 1000),
      acquireTime: microTime(now),
      renewTime: microTime(now),
      leaseTransitions: 0,
    };
    let lease: Lease;
    try {
      lease = await client.get<Lease>(LEASES, namespace, name, signal);
    } catch (err) {
      if (!isNotFound(err)) return this.#failed(err);
      try {
        const created = await client.create<Lease>(LEASES, { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name, namespace }, spec: desired }, { signal });
        this.#observe(created, callbacks);
        this.#wroteAt = now;
        return true;
      } catch (createErr) {
        return isAlreadyExists(createErr) ? false : this.#failed(createErr);
      }
    }
    this.#observe(lease, callbacks);
    const spec = lease.spec ?? {};
    const heldByOther = spec.holderIdentity && spec.holderIdentity !== identity;
    if (heldByOther && this.#observedAt + (spec.leaseDurationSeconds ?? 0) * 1000 > now) return false;
    if (spec.holderIdentity === identity) {
      desired.acquireTime = spec.acquireTime ?? desired.acquireTime;
      desired.leaseTransitions = spec.leaseTransitions ?? 0;
    } else {
      desired.leaseTransitions = (spec.leaseTransitions ?? 0) + 1;
    }
    try {
      const updated = await client.replace<Lease>(LEASES, { ...lease, spec: desired }, { signal });
      this.#observe(updated, callbacks);
      this.#wroteAt = now;
      return true;
    } catch (err) {
      return isConflict(err) ? false : this.#failed(err);
    }
  }

  /**
   * Seen when the answer arrived, as client-go's observedTime: dated when the request was sent, a slow
   * answer would make the holder's lease look older than it is, and expire early.
   */
  #observe(lease: Lease, callbacks?: LeaderCallbacks): void {
    const spec = lease.spec ?? {};
    const resourceVersion = lease.metadata.resourceVersion ?? '';
    if (this.#observed?.resourceVersion !== resourceVersion) {
      this.#observed = { spec, resourceVersion };
      this.#observedAt = this.#clock.now();
    }
    const holder = spec.holderIdentity ?? '';
    if (holder && holder !== this.#reportedLeader) {
      this.#reportedLeader = holder;
      callbacks?.onNewLeader?.(holder);
    }
  }

  #failed(err: unknown): false {
    this.#log.warn({ err }, 'lease request failed');
    return false;
  }

  /** Gives the lease up: no holder and a one-second duration, so the next candidate takes it at once. */
  async #release(signal: AbortSignal): Promise<void> {
    const { client, namespace, name, identity } = this.#options;
    try {
      const lease = await client.get<Lease>(LEASES, namespace, name, signal);
      if (lease.spec?.holderIdentity !== identity) return;
      const now = microTime(this.#clock.now());
      await client.replace<Lease>(LEASES, {
        ...lease,
        spec: { ...lease.spec, holderIdentity: '', leaseDurationSeconds: 1, acquireTime: now, renewTime: now },
      }, { signal });
      this.#log.info('released the lease');
    } catch (err) {
      this.#log.warn({ err }, 'could not release the lease');
    }
  }
}
