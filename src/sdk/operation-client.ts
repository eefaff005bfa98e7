// The operation API bound to a writer: each call reads nothing it was not given, applies the pure
// transform, and writes with resourceVersion, retrying on conflict from a fresh read.

import type { Pod } from '../api/kube.ts';
import { nanosFromMillis, type Nanos } from '../lifecycle/time.ts';
import { begin, finish, hasLifecycle, undo, type LifecycleAdapter, type PodUpdateFunc } from './operation.ts';
import { DEFAULT_RETRY, updateWithRetry, type PodWriter, type RetryOptions, type WriteResult } from './writer.ts';

export interface OperationClientOptions {
  /** Defaults to the system clock. */
  now?: () => Nanos;
  retry?: RetryOptions;
}

export class OperationClient {
  readonly #writer: PodWriter;
  readonly #now: () => Nanos;
  readonly #retry: RetryOptions;

  constructor(writer: PodWriter, options: OperationClientOptions = {}) {
    this.#writer = writer;
    this.#now = options.now ?? (() => nanosFromMillis(Date.now()));
    this.#retry = options.retry ?? DEFAULT_RETRY;
  }

  begin(adapter: LifecycleAdapter, pod: Pod, ...updates: PodUpdateFunc[]): Promise<WriteResult> {
    return updateWithRetry(this.#writer, pod, (p) => begin(adapter, p, this.#now(), ...updates), this.#retry);
  }

  /**
   * Undoes a lifecycle this ID already has on the pod (the webhook strips its labels in that write), then
   * begins afresh, so a stale lifecycle of the same ID restarts with new timestamps.
   */
  async beginWithCleaningOld(adapter: LifecycleAdapter, pod: Pod, ...updates: PodUpdateFunc[]): Promise<WriteResult> {
    let current = pod;
    let undone = false;
    if (hasLifecycle(adapter.id, current)) {
      current = (await this.undo(adapter, current)).pod;
      undone = true;
    }
    const begun = await this.begin(adapter, current, ...updates);
    return { pod: begun.pod, updated: begun.updated || undone };
  }

  finish(adapter: LifecycleAdapter, pod: Pod, ...updates: PodUpdateFunc[]): Promise<WriteResult> {
    return updateWithRetry(this.#writer, pod, (p) => finish(adapter, p, this.#now(), ...updates), this.#retry);
  }

  undo(adapter: LifecycleAdapter, pod: Pod): Promise<WriteResult> {
    return updateWithRetry(this.#writer, pod, (p) => undo(adapter, p), this.#retry);
  }
}
