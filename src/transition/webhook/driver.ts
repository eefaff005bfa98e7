// The I/O around one evaluation, without waiting for any: evaluate with the states of the rule's first
// requests and the poll results, then start the first requests it asks for in the background, and start
// and forget poll tasks; the answers it used up are released once the caller has written the status. A call's end requeues the PodTransitionRule
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

export interface DrivenEvaluation extends Evaluation {
  /**
   * Drops the answers the evaluation used up. The caller does so once the status that records them is
   * written: if the write is lost (a conflict), the next evaluation uses the same answers instead of asking
   * the rule servers again.
   */
  releaseAnswers(): void;
}

/** An evaluation with its first requests started and its poll tasks registered. Never waits for a rule server. */
export function evaluateWithWebhooks(input: DriverInput, options: WebhookDriverOptions): DrivenEvaluation {
  const states = options.calls.states(input.ptr);
  const evaluation = evaluate({ ...input, polls: options.polls.reader(), webhookOutcomes: states, ...(options.newTraceId ? { newTraceId: options.newTraceId } : {}) });
  const kept = new Set(evaluation.keptAnswers);
  const used = [...states].filter(([index, state]) => !('pending' in state) && !kept.has(index));
  for (const call of evaluation.calls) options.calls.start(input.ptr, call);
  for (const ref of evaluation.forgetPolls) options.polls.forget(ref);
  for (const spec of evaluation.startPolls) options.polls.add(spec);
  return {
    ...evaluation,
    releaseAnswers: () => {
      for (const [index, state] of used) options.calls.release(input.ptr, index, state);
    },
  };
}
