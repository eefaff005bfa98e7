// First requests of webhook rules, run in the background as the poll manager runs polls: a reconcile
// starts the call and returns, so a hanging rule server holds no controller worker, only its own call
// (at most one per rule, each with its deadline, and at most `concurrency` sent at once). When the call ends the owner is notified, so the
// controller requeues the PodTransitionRule, and the next evaluation reads the answer. An answer stays
// until an evaluation uses it up or replaces it with a new call; a call whose rule changed is dropped.

import type { PodTransitionRule } from '../../api/podtransitionrule.ts';
import { nowNanos } from '../../kube/clock.ts';
import type { Nanos } from '../../lifecycle/time.ts';
import type { WebhookAnswer, WebhookCall, WebhookCallOutcome } from '../webhook-rule.ts';
import { DEFAULT_MAX_RESPONSE_BYTES, DEFAULT_REQUEST_TIMEOUT_MS, sendWebhookRequest } from './client.ts';
import { Slots } from './slots.ts';

export const DEFAULT_CALL_CONCURRENCY = 64;

export interface CallManagerOptions {
  /** Called when a call ends (answered or failed) with its PodTransitionRule. */
  onAnswered?: (owner: { namespace: string; name: string }) => void;
  /** Requests sent at once, across every rule; the others wait their turn (still pending). Default 64. */
  concurrency?: number;
  /** Deadline of one request, from when it is sent. Default 30 s. */
  requestTimeoutMs?: number;
  maxResponseBytes?: number;
  /** The time an answer is stamped with. Default: the system clock. */
  clock?: () => Nanos;
}

interface Call {
  /** The rule's webhook as the call was made for it: another one makes the call stale. */
  fingerprint: string;
  state: WebhookCallOutcome;
  abort: AbortController;
}

const ownerKey = (ptr: PodTransitionRule): string => JSON.stringify([ptr.metadata.namespace ?? '', ptr.metadata.name ?? '', ptr.metadata.uid ?? '']);
const fingerprintOf = (ptr: PodTransitionRule, ruleIndex: number): string | undefined => {
  const rule = ptr.spec?.rules?.[ruleIndex];
  return rule?.webhook ? JSON.stringify([rule.name, rule.webhook]) : undefined;
};

export class CallManager {
  /** Owner -> rule index -> its call. */
  readonly #calls = new Map<string, Map<number, Call>>();
  readonly #options: CallManagerOptions;
  readonly #slots: Slots;
  #stopped = false;

  constructor(options: CallManagerOptions = {}) {
    this.#options = options;
    this.#slots = new Slots(options.concurrency ?? DEFAULT_CALL_CONCURRENCY, 'webhook call concurrency');
  }

  /** The rule's calls as an evaluation sees them (by rule index), after dropping those whose rule changed. */
  states(ptr: PodTransitionRule): Map<number, WebhookCallOutcome> {
    const calls = this.#calls.get(ownerKey(ptr));
    const states = new Map<number, WebhookCallOutcome>();
    for (const [index, call] of calls ?? []) {
      if (fingerprintOf(ptr, index) === call.fingerprint) states.set(index, call.state);
      else this.#drop(ptr, index);
    }
    return states;
  }

  /** Starts a first request in the background, replacing the rule's previous call. */
  start(ptr: PodTransitionRule, call: WebhookCall): void {
    if (this.#stopped) throw new Error('the call manager is stopped');
    const owner = ownerKey(ptr);
    this.#drop(ptr, call.ruleIndex);
    const record: Call = {
      fingerprint: fingerprintOf(ptr, call.ruleIndex) ?? '',
      state: { traceId: call.request.traceId, pods: call.pods, pending: true },
      abort: new AbortController(),
    };
    const calls = this.#calls.get(owner) ?? new Map<number, Call>();
    calls.set(call.ruleIndex, record);
    this.#calls.set(owner, calls);
    void this.#send(ptr, call, record);
  }

  async #send(ptr: PodTransitionRule, call: WebhookCall, record: Call): Promise<void> {
    if (!(await this.#slots.acquire())) return;
    try {
      // Dropped while it waited for a slot: nobody wants the answer any more.
      if (record.abort.signal.aborted) return;
      const options = { timeoutMs: this.#options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS, maxResponseBytes: this.#options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES, signal: record.abort.signal };
      const response = await sendWebhookRequest(call.url, call.caBundle, call.request, options);
      this.#answered(ptr, call, record, { response });
    } catch (err) {
      // Every failure is an answer: nothing may escape a background call.
      this.#answered(ptr, call, record, { error: err instanceof Error ? err.message : String(err) });
    } finally {
      this.#slots.release();
    }
  }

  /** Drops an answered call that an evaluation used up (unless a newer call replaced it meanwhile). */
  release(ptr: PodTransitionRule, ruleIndex: number, state: WebhookCallOutcome): void {
    if (this.#calls.get(ownerKey(ptr))?.get(ruleIndex)?.state === state) this.#drop(ptr, ruleIndex);
  }

  /** Drops (and aborts) every call of a PodTransitionRule. */
  forget(ptr: PodTransitionRule): void {
    for (const index of [...(this.#calls.get(ownerKey(ptr))?.keys() ?? [])]) this.#drop(ptr, index);
  }

  /** Calls in flight. */
  get inFlight(): number {
    let count = 0;
    for (const calls of this.#calls.values()) for (const call of calls.values()) if ('pending' in call.state) count++;
    return count;
  }

  /** Aborts every call; the manager starts no more. */
  stop(): void {
    this.#stopped = true;
    this.#slots.close();
    for (const calls of this.#calls.values()) for (const call of calls.values()) call.abort.abort();
    this.#calls.clear();
  }

  #answered(ptr: PodTransitionRule, call: WebhookCall, record: Call, answer: WebhookAnswer): void {
    if (record.abort.signal.aborted) return;
    const answeredAt = (this.#options.clock ?? nowNanos)();
    record.state = { traceId: call.request.traceId, pods: call.pods, answeredAt, ...answer };
    this.#options.onAnswered?.({ namespace: ptr.metadata.namespace ?? '', name: ptr.metadata.name ?? '' });
  }

  #drop(ptr: PodTransitionRule, ruleIndex: number): void {
    const owner = ownerKey(ptr);
    const calls = this.#calls.get(owner);
    const call = calls?.get(ruleIndex);
    if (!calls || !call) return;
    call.abort.abort();
    calls.delete(ruleIndex);
    if (calls.size === 0) this.#calls.delete(owner);
  }
}
