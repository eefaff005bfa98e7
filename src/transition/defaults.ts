// Defaulting of PodTransitionRule webhook rules (the mutating admission webhook), and the same
// defaults applied when reading a rule, because an object can bypass admission (upstream then
// dereferences nil poll intervals and panics).

import type { JsonPatchOperation } from '../api/kube.ts';
import type { FailurePolicy, PodTransitionRule, TransitionRuleWebhook, WebhookPollConfig } from '../api/podtransitionrule.ts';

export const DEFAULT_POLL_INTERVAL_SECONDS = 5;
export const DEFAULT_POLL_TIMEOUT_SECONDS = 60;
/** errors and time-outs reject and retry unless the rule says Ignore (upstream defaults Ignore and never reads it). */
export const DEFAULT_FAILURE_POLICY: FailurePolicy = 'Fail';

export const failurePolicyOf = (webhook: TransitionRuleWebhook): FailurePolicy => webhook.failurePolicy ?? DEFAULT_FAILURE_POLICY;

export interface EffectivePoll {
  url: string;
  rawQueryKey: string;
  caBundle: string;
  intervalSeconds: number;
  timeoutSeconds: number;
}

const positiveOr = (value: number | undefined, fallback: number): number => (value !== undefined && value > 0 ? value : fallback);

/**
 * The poll configuration with its defaults, or undefined when the rule has none. An interval or timeout
 * that is not positive (admission refuses them) also takes the default, so polls never run back to back.
 */
export function effectivePoll(poll: WebhookPollConfig | undefined): EffectivePoll | undefined {
  if (poll == null) return undefined;
  return {
    url: poll.url ?? '',
    rawQueryKey: poll.rawQueryKey ?? '',
    caBundle: poll.caBundle ?? '',
    intervalSeconds: positiveOr(poll.intervalSeconds, DEFAULT_POLL_INTERVAL_SECONDS),
    timeoutSeconds: positiveOr(poll.timeoutSeconds, DEFAULT_POLL_TIMEOUT_SECONDS),
  };
}

export interface Defaulted {
  rule: PodTransitionRule;
  /** RFC 6902 operations turning the input into `rule`, for the AdmissionResponse. Empty when nothing changed. */
  patch: JsonPatchOperation[];
}

/** Fills failurePolicy (Fail) and, when poll is set, intervalSeconds (5) and timeoutSeconds (60) of every webhook rule. */
export function defaultPodTransitionRule(input: PodTransitionRule): Defaulted {
  const rule = structuredClone(input);
  const patch: JsonPatchOperation[] = [];
  (rule.spec?.rules ?? []).forEach((r, i) => {
    const webhook = r.webhook;
    if (webhook == null) return;
    const base = `/spec/rules/${i}/webhook`;
    const poll = webhook.clientConfig?.poll;
    if (poll != null) {
      const pollPath = `${base}/clientConfig/poll`;
      if (poll.intervalSeconds == null) {
        poll.intervalSeconds = DEFAULT_POLL_INTERVAL_SECONDS;
        patch.push({ op: 'add', path: `${pollPath}/intervalSeconds`, value: DEFAULT_POLL_INTERVAL_SECONDS });
      }
      if (poll.timeoutSeconds == null) {
        poll.timeoutSeconds = DEFAULT_POLL_TIMEOUT_SECONDS;
        patch.push({ op: 'add', path: `${pollPath}/timeoutSeconds`, value: DEFAULT_POLL_TIMEOUT_SECONDS });
      }
    }
    if (webhook.failurePolicy == null) {
      webhook.failurePolicy = DEFAULT_FAILURE_POLICY;
      patch.push({ op: 'add', path: `${base}/failurePolicy`, value: DEFAULT_FAILURE_POLICY });
    }
  });
  return { rule, patch };
}
