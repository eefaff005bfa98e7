// The I/O around one evaluation: evaluate, send the first requests it asks for, evaluate again with
// their outcomes until none is pending, then start and forget poll tasks as the final evaluation says.
// Each pass sees the same poll results (read once), so the passes agree with each other.

import { evaluate, type Evaluation, type EvaluationInput } from '../evaluate.ts';
import type { WebhookCall, WebhookCallOutcome } from '../webhook-rule.ts';
import { sendWebhookRequest, WebhookCallError, type RequestOptions } from './client.ts';
import type { PollManager } from './poll-manager.ts';

export interface WebhookDriverOptions {
  polls: PollManager;
  /** Deadline and size cap of each first request (defaults 30 s, 1 MiB). */
  request?: Omit<RequestOptions, 'signal'>;
  newTraceId?: () => string;
  signal?: AbortSignal;
}

export type DriverInput = Omit<EvaluationInput, 'polls' | 'webhookOutcomes' | 'newTraceId'>;

/** A complete evaluation (no pending call), with its first requests sent and its poll tasks registered. */
export async function evaluateWithWebhooks(input: DriverInput, options: WebhookDriverOptions): Promise<Evaluation> {
  const polls = options.polls.reader();
  const outcomes = new Map<number, WebhookCallOutcome>();
  // A pass can only add calls for rules later in a stage than the calls already answered.
  const maxPasses = (input.ptr.spec?.rules?.length ?? 0) + 1;
  for (let pass = 1; ; pass++) {
    const evaluation = evaluate({ ...input, polls, webhookOutcomes: outcomes, ...(options.newTraceId ? { newTraceId: options.newTraceId } : {}) });
    if (evaluation.calls.length === 0) {
      for (const ref of evaluation.forgetPolls) options.polls.forget(ref);
      for (const spec of evaluation.startPolls) options.polls.add(spec);
      return evaluation;
    }
    if (pass === maxPasses) throw new Error(`evaluation of ${input.ptr.metadata.namespace}/${input.ptr.metadata.name} still asks for webhook calls after ${pass} passes`);
    const answered = await Promise.all(evaluation.calls.map((call) => send(call, options)));
    evaluation.calls.forEach((call, i) => outcomes.set(call.ruleIndex, answered[i] as WebhookCallOutcome));
  }
}

async function send(call: WebhookCall, options: WebhookDriverOptions): Promise<WebhookCallOutcome> {
  const { traceId } = call.request;
  try {
    const response = await sendWebhookRequest(call.url, call.caBundle, call.request, { ...options.request, ...(options.signal ? { signal: options.signal } : {}) });
    return { traceId, pods: call.pods, response };
  } catch (err) {
    if (!(err instanceof WebhookCallError)) throw err;
    return { traceId, pods: call.pods, error: err.message };
  }
}
