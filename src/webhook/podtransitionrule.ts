// PodTransitionRule admission: defaulting (mutating) and validation (validating), thin drivers of
// src/transition. An unreachable webhook host is a warning, never a denial: the probe of the endpoints a
// write adds runs in parallel, for a bounded number of them, within a budget well under the webhook's own
// timeout.

import type { PodTransitionRule } from '../api/podtransitionrule.ts';
import { defaultPodTransitionRule } from '../transition/defaults.ts';
import { validatePodTransitionRule, validationMessage } from '../transition/validate.ts';
import { reachabilityWarnings, type ReachabilityOptions } from '../transition/webhook/probe.ts';
import { allowed, denied, errored, type AdmissionRequest, type Verdict } from './admission.ts';

/** Probes must answer well within the API server's call timeout (5 s in podops' webhook configurations). */
const PROBE_TIMEOUT_MS = 2000;

export function defaultTransitionRule(request: AdmissionRequest): Verdict {
  if (request.operation !== 'CREATE' && request.operation !== 'UPDATE') return allowed();
  const rule = request.object as PodTransitionRule | undefined;
  if (!rule?.metadata) return errored(400, `${request.operation} of a PodTransitionRule without an object`);
  return allowed(defaultPodTransitionRule(rule).patch);
}

/** Validates a rule write, and warns about the webhook URLs it adds that cannot be reached. */
export async function validateTransitionRule(request: AdmissionRequest, probe: (rule: PodTransitionRule, options: ReachabilityOptions) => Promise<string[]> = reachabilityWarnings): Promise<Verdict> {
  if (request.operation !== 'CREATE' && request.operation !== 'UPDATE') return allowed();
  const rule = request.object as PodTransitionRule | undefined;
  if (!rule?.metadata) return errored(400, `${request.operation} of a PodTransitionRule without an object`);
  // Status writes go through /status, which this webhook does not intercept. A spec unchanged by an update
  // (finalizers, annotations) was judged when it was written: judging it again by newer rules (the range of
  // availablePolicy values) would only stop its finalizer from being removed, as CRD validation ratchets.
  const previous = request.oldObject as PodTransitionRule | undefined;
  if (request.operation === 'UPDATE' && JSON.stringify(previous?.spec) === JSON.stringify(rule.spec)) return allowed();
  const { errors, warnings } = validatePodTransitionRule(rule);
  if (errors.length > 0) return denied(validationMessage(errors));
  const unreachable = request.dryRun ? [] : await probe(rule, { timeoutMs: PROBE_TIMEOUT_MS, ...(previous && { previous }) });
  return allowed(undefined, [...warnings, ...unreachable]);
}
