// The poll manager of webhook rules (Kuperator's behaviour, docs/podtransitionrule.md): one in-memory task per
// (rule, taskId), polled every interval until it is approved, stopped or timed out, with at most
// `concurrency` polls in flight. Every poll has its own deadline, so a hanging server holds a slot for
// at most that long and other rules' polls go on. After each poll the owner is notified, so the
// controller can requeue the PodTransitionRule. A task is forgotten timeout + 59 s after it started.
// Its timers do not keep the process alive.

import type { PollResponse } from '../../api/podtransitionrule.ts';
import { nanosFromMillis } from '../../lifecycle/time.ts';
import type { PollResult, PollResults, PollTaskRef, PollTaskSpec } from '../webhook-rule.ts';
import { DEFAULT_MAX_RESPONSE_BYTES, DEFAULT_REQUEST_TIMEOUT_MS, sendPollRequest } from './client.ts';
import { Slots } from './slots.ts';

export const DEFAULT_POLL_CONCURRENCY = 16;
/** Upstream forgets a task 59 s after its timeout. */
export const FORGET_AFTER_TIMEOUT_SECONDS = 59;
export const FIRST_POLL_MESSAGE = 'Waiting for first query...';

export interface PollManagerOptions {
  /** Called after every poll (and when a task times out) with the task's rule. */
  onPolled?: (task: PollTaskSpec) => void;
  /** Polls in flight at most. Default 16. */
  concurrency?: number;
  /** Deadline of one poll request. Default 30 s. */
  requestTimeoutMs?: number;
  maxResponseBytes?: number;
  /** Milliseconds in one second of the rule's intervalSeconds/timeoutSeconds (tests shorten it). Default 1000. */
  secondMs?: number;
  /** Milliseconds since the epoch. Default Date.now. */
  clock?: () => number;
}

export const ruleKeyOf = (spec: Pick<PollTaskSpec, 'namespace' | 'name' | 'rule'>): string => `${spec.namespace}/${spec.name}/${spec.rule}`;
const taskKey = (ruleKey: string, taskId: string): string => JSON.stringify([ruleKey, taskId]);

interface Task {
  spec: PollTaskSpec;
  startMs: number;
  result: PollResult & { approved: Set<string> };
  timers: Set<NodeJS.Timeout>;
  inFlight?: AbortController;
  forgotten: boolean;
}

export class PollManager {
  readonly #tasks = new Map<string, Task>();
  readonly #slots: Slots;
  #stopped = false;
  readonly #options: Required<Omit<PollManagerOptions, 'onPolled'>> & Pick<PollManagerOptions, 'onPolled'>;

  constructor(options: PollManagerOptions = {}) {
    this.#options = {
      onPolled: options.onPolled,
      concurrency: options.concurrency ?? DEFAULT_POLL_CONCURRENCY,
      requestTimeoutMs: options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS,
      maxResponseBytes: options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES,
      secondMs: options.secondMs ?? 1000,
      clock: options.clock ?? Date.now,
    };
    this.#slots = new Slots(this.#options.concurrency, 'poll concurrency');
  }

  /** Starts polling a task (replacing a task of the same rule and ID): first poll after one interval. */
  add(spec: PollTaskSpec): void {
    if (this.#stopped) throw new Error('the poll manager is stopped');
    const key = taskKey(ruleKeyOf(spec), spec.taskId);
    this.#drop(key);
    const task: Task = {
      spec,
      startMs: this.#options.clock(),
      result: { count: 0, stopped: false, timedOut: false, approveAll: false, approved: new Set(), lastMessage: FIRST_POLL_MESSAGE },
      timers: new Set(),
      forgotten: false,
    };
    this.#tasks.set(key, task);
    const second = this.#options.secondMs;
    this.#schedule(task, spec.intervalSeconds * second, () => void this.#poll(task));
    this.#schedule(task, (spec.timeoutSeconds + FORGET_AFTER_TIMEOUT_SECONDS) * second, () => this.#drop(key));
  }

  /** A copy of the task's result, or undefined when the task is unknown (never added, forgotten, or lost in a restart). */
  result(ruleKey: string, taskId: string): PollResult | undefined {
    const task = this.#tasks.get(taskKey(ruleKey, taskId));
    return task && { ...task.result, approved: new Set(task.result.approved) };
  }

  /** Results as one evaluation must see them: each task read once, then frozen. */
  reader(): PollResults {
    const seen = new Map<string, PollResult | undefined>();
    return (ruleKey, taskId) => {
      const key = taskKey(ruleKey, taskId);
      if (!seen.has(key)) seen.set(key, this.result(ruleKey, taskId));
      return seen.get(key);
    };
  }

  forget(ref: PollTaskRef): void {
    this.#drop(taskKey(ref.ruleKey, ref.taskId));
  }

  /** Tasks known. */
  get size(): number {
    return this.#tasks.size;
  }

  /** Cancels every timer and in-flight poll; the manager accepts no more tasks. */
  stop(): void {
    this.#stopped = true;
    for (const key of [...this.#tasks.keys()]) this.#drop(key);
    this.#slots.close();
  }

  #schedule(task: Task, delayMs: number, run: () => void): void {
    const timer = setTimeout(() => {
      task.timers.delete(timer);
      run();
    }, delayMs);
    timer.unref();
    task.timers.add(timer);
  }

  #drop(key: string): void {
    const task = this.#tasks.get(key);
    if (!task) return;
    this.#tasks.delete(key);
    task.forgotten = true;
    for (const timer of task.timers) clearTimeout(timer);
    task.timers.clear();
    task.inFlight?.abort();
  }

  async #poll(task: Task): Promise<void> {
    const { spec, result } = task;
    if (task.forgotten || result.stopped) return;
    if (!(await this.#slots.acquire())) return;
    try {
      if (task.forgotten) return;
      if (this.#options.clock() > task.startMs + spec.timeoutSeconds * this.#options.secondMs) {
        result.stopped = true;
        result.timedOut = true;
        result.lastMessage = `Polling Timeout. ${result.lastMessage}`;
      } else {
        await this.#query(task);
      }
    } finally {
      this.#slots.release();
    }
    if (task.forgotten) return;
    if (!result.stopped) this.#schedule(task, spec.intervalSeconds * this.#options.secondMs, () => void this.#poll(task));
    this.#options.onPolled?.(spec);
  }

  async #query(task: Task): Promise<void> {
    const { result } = task;
    task.inFlight = new AbortController();
    const queriedAt = this.#options.clock();
    let response: PollResponse;
    try {
      response = await sendPollRequest(task.spec.url, task.spec.caBundle, {
        timeoutMs: this.#options.requestTimeoutMs,
        maxResponseBytes: this.#options.maxResponseBytes,
        signal: task.inFlight.signal,
      });
    } catch (err) {
      result.count++;
      result.lastQueryTime = nanosFromMillis(queriedAt);
      result.lastError = (err as Error).message;
      return;
    } finally {
      task.inFlight = undefined;
    }
    result.count++;
    result.lastQueryTime = nanosFromMillis(queriedAt);
    delete result.lastError;
    for (const name of response.finishedNames ?? []) result.approved.add(name);
    result.lastMessage = response.message;
    if (response.success && response.finished) {
      result.approveAll = true;
      result.stopped = true;
    }
    if (response.stop) result.stopped = true;
  }
}
