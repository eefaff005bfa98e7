// Validation of a PodTransitionRule (the validating admission webhook), with upstream's messages
// where upstream has a check (Kuperator's behaviour, docs/podtransitionrule.md) and field errors in apimachinery's format for
// podops' extra checks. Pure: the reachability probe of webhook hosts is in webhook/probe.ts.

import type { PodTransitionRule, TransitionRule, TransitionRuleWebhook, WebhookPollConfig } from '../api/podtransitionrule.ts';
import { TRANSITION_STAGES } from '../api/protocol.ts';
import { compileLabelSelector, LabelSelectorError, type LabelSelector } from '../api/selector.ts';
import { scaledIntOrPercent } from './available.ts';
import { fieldPathProblem } from './parameters.ts';
import { isLifecycleStage, ruleDefinitions, RULE_TYPES } from './rules.ts';
import { caBundlePem, CaBundleError } from './wire.ts';

export const SELECTOR_REQUIRED_MESSAGE = 'podtransitionrule selector cannot be nil';
export const RULE_NAME_REQUIRED_MESSAGE = 'podtransitionrule rule name is required';

export interface ValidationResult {
  /** Field errors: any one rejects the object. */
  errors: string[];
  /** Admission warnings: accepted, but probably not what the user meant. */
  warnings: string[];
}

/**
 * Validates a PodTransitionRule. Like upstream, a missing selector or an unnamed rule is reported
 * alone; other problems are aggregated.
 */
export function validatePodTransitionRule(ptr: PodTransitionRule): ValidationResult {
  const spec = ptr.spec ?? {};
  if (spec.selector == null) return { errors: [SELECTOR_REQUIRED_MESSAGE], warnings: [] };
  const rules = spec.rules ?? [];
  if (rules.some((rule) => rule.name == null || rule.name === '')) return { errors: [RULE_NAME_REQUIRED_MESSAGE], warnings: [] };
  const errors: string[] = [];
  const warnings: string[] = [];
  selectorErrors('spec.selector', spec.selector, errors);
  const seen = new Set<string>();
  for (const rule of rules) {
    const name = rule.name as string;
    const path = `spec.rule.${name}`;
    if (seen.has(name)) errors.push(`${path}: Duplicate value: ${goValue(name)}`);
    seen.add(name);
    ruleErrors(rule, path, errors, warnings);
  }
  return { errors, warnings };
}

/** The denial message for a list of errors, as apimachinery's aggregate prints it (`[a, b]` for several). */
export function validationMessage(errors: readonly string[]): string {
  const unique = [...new Set(errors)];
  return unique.length === 1 ? (unique[0] as string) : `[${unique.join(', ')}]`;
}

function ruleErrors(rule: TransitionRule, path: string, errors: string[], warnings: string[]): void {
  const definitions = ruleDefinitions(rule);
  if (definitions.length === 0) errors.push(`${path}: Required value: one of ${RULE_TYPES.join(', ')} is required`);
  if (definitions.length > 1) errors.push(`${path}: Invalid value: ${goValue(definitions.join(', '))}: a rule holds exactly one of ${RULE_TYPES.join(', ')}`);
  if (rule.stage != null && !isLifecycleStage(rule.stage)) {
    warnings.push(`${path}.stage: ${goValue(rule.stage)} is not a PodOpsLifecycle stage (${TRANSITION_STAGES.join(', ')}): the rule never runs`);
  }
  if ((rule.conditions ?? []).length > 0) {
    warnings.push(`${path}.conditions: podops registers no conditions and ignores them: the rule applies to every selected pod (Kuperator would skip every pod)`);
  }
  if (rule.filter?.labelSelector != null) selectorErrors(`${path}.filter.labelSelector`, rule.filter.labelSelector, errors);
  if (rule.webhook != null) webhookErrors(rule.webhook, path, errors, warnings);
  if (rule.labelCheck != null) {
    if (rule.labelCheck.requires == null) errors.push(`${path}: Invalid value: "null": nil label check required`);
    else selectorErrors(`${path}.labelCheck.requires`, rule.labelCheck.requires, errors);
  }
  const available = rule.availablePolicy;
  if (available != null) {
    if (available.maxUnavailableValue == null && available.minAvailableValue == null) {
      errors.push(`${path}: Invalid value: "null": minAvailableValue and maxUnavailableValue must have at least one configured`);
    }
    for (const field of ['maxUnavailableValue', 'minAvailableValue'] as const) {
      const value = available[field];
      if (value == null) continue;
      const where = `${path}.availablePolicy.${field}`;
      const problem = intOrPercentProblem(value);
      if (problem) errors.push(`${where}: Invalid value: ${goValue(value)}: ${problem}`);
    }
    // Accepted (Kuperator accepts them, and they mean something), but worth a word: no available pod passes.
    if (available.maxUnavailableValue === 0 || available.maxUnavailableValue === '0%') {
      warnings.push(`${path}.availablePolicy.maxUnavailableValue: ${goValue(available.maxUnavailableValue)} lets no service-available pod through this rule: every operation of a selected pod waits until the rule changes`);
    }
    if (available.minAvailableValue === '100%') {
      warnings.push(`${path}.availablePolicy.minAvailableValue: "100%" keeps every selected pod available: every operation of a selected pod waits until the rule changes`);
    }
  }
}

/**
 * Why a count or percentage of pods is not usable: not an IntOrString of the protocol (upstream's wording), or
 * out of range (the wording of PodDisruptionBudget's validation). Kuperator accepts a negative count or a
 * percentage over 100% and reads them as 0 and 100%: podops refuses them rather than guess what was meant.
 */
function intOrPercentProblem(value: number | string): string | undefined {
  const scaled = scaledIntOrPercent(value, 100, false);
  if (typeof scaled === 'string') return scaled;
  if (scaled < 0) return 'must be greater than or equal to 0';
  if (typeof value === 'string' && scaled > 100) return 'must not be greater than 100%';
  return undefined;
}

function webhookErrors(webhook: TransitionRuleWebhook, path: string, errors: string[], warnings: string[]): void {
  const config = webhook.clientConfig ?? {};
  urlErrors(`${path}.clientConfig.url`, config.url, errors);
  caBundleErrors(`${path}.clientConfig.caBundle`, config.caBundle, errors);
  if (config.poll != null) pollErrors(`${path}.clientConfig.poll`, config.poll, errors);
  if (webhook.failurePolicy != null && webhook.failurePolicy !== 'Fail' && webhook.failurePolicy !== 'Ignore') {
    errors.push(`${path}.failurePolicy: Unsupported value: ${goValue(webhook.failurePolicy)}: supported values: "Fail", "Ignore"`);
  }
  (webhook.parameters ?? []).forEach((parameter, i) => {
    const where = `${path}.parameters[${i}]`;
    if (parameter.key == null || parameter.key === '') warnings.push(`${where}.key: the parameter has no key`);
    if (parameter.value != null && parameter.value !== '') return;
    const fieldPath = parameter.valueFrom?.fieldRef?.fieldPath;
    if (fieldPath == null) {
      warnings.push(`${where}: neither value nor valueFrom.fieldRef is set: every request of this rule fails`);
      return;
    }
    const problem = fieldPathProblem(fieldPath);
    if (problem) warnings.push(`${where}.valueFrom.fieldRef.fieldPath: ${problem}: every request of this rule fails`);
  });
}

function pollErrors(path: string, poll: WebhookPollConfig, errors: string[]): void {
  urlErrors(`${path}.url`, poll.url, errors);
  caBundleErrors(`${path}.caBundle`, poll.caBundle, errors);
  for (const field of ['intervalSeconds', 'timeoutSeconds'] as const) {
    const value = poll[field];
    if (value != null && !(Number.isInteger(value) && value > 0)) errors.push(`${path}.${field}: Invalid value: ${goValue(value)}: must be a positive integer`);
  }
}

/** Upstream only needs the URL to parse (Go's url.Parse accepts almost anything); podops needs an absolute http(s) URL. */
export function urlProblem(url: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return `parse ${goValue(url)}: invalid URL`;
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return `parse ${goValue(url)}: the scheme must be http or https`;
  if (parsed.hostname === '') return `parse ${goValue(url)}: missing host`;
  return undefined;
}

function urlErrors(path: string, url: string | undefined, errors: string[]): void {
  if (url == null || url === '') {
    errors.push(`${path}: Required value`);
    return;
  }
  const problem = urlProblem(url);
  if (problem) errors.push(`${path}: Invalid value: ${goValue(url)}: podtransitionrule validate webhook failed, check server reachable, while parse url error: ${problem}`);
}

function caBundleErrors(path: string, caBundle: string | undefined, errors: string[]): void {
  try {
    caBundlePem(caBundle);
  } catch (err) {
    if (!(err instanceof CaBundleError)) throw err;
    errors.push(`${path}: Invalid value: ${goValue(caBundle ?? '')}: ${err.message}`);
  }
}

function selectorErrors(path: string, selector: LabelSelector, errors: string[]): void {
  try {
    compileLabelSelector(selector);
  } catch (err) {
    if (!(err instanceof LabelSelectorError)) throw err;
    errors.push(`${path}: Invalid value: ${goValue(JSON.stringify(selector))}: ${err.message}`);
  }
}

/** A bad value as field errors print it: strings quoted, numbers bare. */
const goValue = (value: string | number): string => (typeof value === 'number' ? String(value) : JSON.stringify(value));
