// The I/O around one evaluation, without waiting for any: evaluate with the states of the rule's first
// requests and the poll results, then start the first requests it asks for in the background, release
// the answers it used up, and start and forget poll tasks. A call's end requeues the PodTransitionRule
// (CallManager's onAnswered), and that evaluation reads the answer.

import { evaluate, type Evaluation, type EvaluationInput } from '../evaluate.ts';
import type { CallManager } from './call-manager.ts';
import type { PollManager } from './poll-manager.ts';

export interface WebhookDriverOptions {
  polls: PollManager;
  calls: CallManager;
  newTraceId?: () => string;
}

export type DriverInput = Omit<EvaluationInput, 'polls' | 'webhookOutcomes' | 'newTraceId'>;

/** An evaluation with its first requests started and its poll tasks registered. Never waits for a rule server. */
export function evaluateWithWebhooks(input: DriverInput, options: WebhookDriverOptions): Evaluation {
  const states = options.calls.states(input.ptr);
  const evaluation = evaluate({ ...input, polls: options.polls.reader(), webhookOutcomes: states, ...(options.newTraceId ? { newTraceId: options.newTraceId } : {}) });
  const kept = new Set(evaluation.keptAnswers);
  for (const [index, state] of states) if (!('pending' in state) && !kept.has(index)) options.calls.release(input.ptr, index, state);
  for (const call of evaluation.calls) options.calls.start(input.ptr, call);
  for (const ref of evaluation.forgetPolls) options.polls.forget(ref);
  for (const spec of evaluation.startPolls) options.polls.add(spec);
  return evaluation;
}
