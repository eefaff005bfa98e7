// Whether a webhook is called for a request, as the generic webhook plugin decides (ShouldCallHook):
// namespaceSelector, objectSelector, then the rules (operation, group, version, resource and
// subresource, scope), with matchPolicy Equivalent trying the other versions of the same resource.
// Selector errors only surface for webhooks whose rules match. matchConditions are not evaluated
// (there is no CEL here): a webhook that has them is called as if they all held.

import { internalErrorStatus, notFoundStatus, StatusError } from '../errors.ts';
import type { KubeObject } from '../meta/object.ts';
import { matchesLabels } from '../selectors/labels.ts';
import type { AdmissionAttributes } from '../apiserver/admission.ts';
import type { GroupVersionKind, GroupVersionResource } from '../registry/types.ts';
import type { ParsedSelector, Webhook, WebhookRule } from './configuration.ts';

/** The resource and kind a webhook is called with (another version than the request's under matchPolicy Equivalent). */
export interface Invocation {
  readonly webhook: Webhook;
  readonly resource: GroupVersionResource;
  readonly subresource: string;
  readonly kind: GroupVersionKind;
}

/** Another served version of the requested resource, and the kind it serves for the subresource. */
export interface EquivalentResource {
  resource: GroupVersionResource;
  kind: GroupVersionKind;
}

export interface MatchContext {
  /** The labels of a namespace, undefined when it does not exist. */
  namespaceLabels(name: string): Readonly<Record<string, string>> | undefined;
  /** Every served version of the resource that also serves the subresource, the requested one included. */
  equivalents(resource: GroupVersionResource, subresource: string): EquivalentResource[];
}

/** The namespace the admission request names; for a Namespace object itself, its own name. */
export function requestNamespace(a: AdmissionAttributes): string {
  if (a.namespace) return a.namespace;
  return a.resource.resource === 'namespaces' && a.resource.group === '' ? a.name : '';
}

/** The configurations of admission itself are never sent to webhooks (they could lock themselves out). */
export function isExemptFromWebhooks(a: AdmissionAttributes): boolean {
  return (
    a.kind.group === 'admissionregistration.k8s.io' &&
    ['ValidatingWebhookConfiguration', 'MutatingWebhookConfiguration', 'ValidatingAdmissionPolicy', 'ValidatingAdmissionPolicyBinding'].includes(a.kind.kind)
  );
}

const exactOrWildcard = (items: readonly string[], requested: string): boolean => items.some((i) => i === '*' || i === requested);

function scopeMatches(rule: WebhookRule, resource: GroupVersionResource, namespace: string): boolean {
  const isNamespace = resource.group === '' && resource.version === 'v1' && resource.resource === 'namespaces';
  switch (rule.scope) {
    case '*':
      return true;
    case 'Namespaced':
      return !isNamespace && namespace !== '';
    case 'Cluster':
      return isNamespace || namespace === '';
    default:
      return false;
  }
}

function resourceMatches(rule: WebhookRule, resource: string, subresource: string): boolean {
  return rule.resources.some((entry) => {
    const slash = entry.indexOf('/');
    const res = slash < 0 ? entry : entry.slice(0, slash);
    const sub = slash < 0 ? '' : entry.slice(slash + 1);
    return (res === '*' || res === resource) && (sub === '*' || sub === subresource);
  });
}

export function ruleMatches(rule: WebhookRule, a: AdmissionAttributes, resource: GroupVersionResource = a.resource): boolean {
  return (
    scopeMatches(rule, resource, requestNamespace(a)) &&
    rule.operations.some((op) => op === '*' || op === a.operation) &&
    exactOrWildcard(rule.apiGroups, resource.group) &&
    exactOrWildcard(rule.apiVersions, resource.version) &&
    resourceMatches(rule, resource.resource, a.subresource ?? '')
  );
}

type SelectorOutcome = { matches: true } | { matches: false; error?: StatusError };

const selectorError = (parsed: ParsedSelector): StatusError | undefined =>
  'error' in parsed ? new StatusError(internalErrorStatus(parsed.error)) : undefined;

function matchNamespaceSelector(webhook: Webhook, a: AdmissionAttributes, ctx: MatchContext): SelectorOutcome {
  const namespace = requestNamespace(a);
  // Cluster-scoped objects other than namespaces are never exempted by a namespaceSelector.
  if (namespace === '' && a.resource.resource !== 'namespaces') return { matches: true };
  const parsed = webhook.namespaceSelector;
  if ('error' in parsed) return { matches: false, error: selectorError(parsed) };
  if (parsed.selector.requirements.length === 0 && !parsed.selector.matchesNothing) return { matches: true };
  // A namespace being created or updated is judged by its new labels; a deleted one by the stored ones.
  let labels: Readonly<Record<string, string>> | undefined;
  if (a.resource.resource === 'namespaces' && !a.subresource && (a.operation === 'CREATE' || a.operation === 'UPDATE')) {
    labels = a.object?.metadata.labels ?? {};
  } else {
    labels = ctx.namespaceLabels(namespace);
    if (!labels) return { matches: false, error: new StatusError(notFoundStatus({ resource: 'namespaces', group: '', name: namespace })) };
  }
  return matchesLabels(parsed.selector, labels) ? { matches: true } : { matches: false };
}

function matchObjectSelector(webhook: Webhook, a: AdmissionAttributes): SelectorOutcome {
  const parsed = webhook.objectSelector;
  if ('error' in parsed) return { matches: false, error: selectorError(parsed) };
  if (parsed.selector.requirements.length === 0 && !parsed.selector.matchesNothing) return { matches: true };
  const selects = (o: KubeObject | undefined): boolean => o !== undefined && matchesLabels(parsed.selector, o.metadata.labels ?? {});
  // The old object counts too: an UPDATE that removes the selected label, or a DELETE, is still seen.
  return selects(a.object) || selects(a.oldObject) ? { matches: true } : { matches: false };
}

/** The invocation of `webhook` for this request, or undefined when it is not called. Throws a StatusError when matching fails. */
export function matchWebhook(webhook: Webhook, a: AdmissionAttributes, ctx: MatchContext): Invocation | undefined {
  const byNamespace = matchNamespaceSelector(webhook, a, ctx);
  if (!byNamespace.matches && !byNamespace.error) return undefined;
  const byObject = matchObjectSelector(webhook, a);
  if (!byObject.matches && !byObject.error) return undefined;

  const subresource = a.subresource ?? '';
  let invocation: Invocation | undefined;
  if (webhook.rules.some((rule) => ruleMatches(rule, a))) {
    invocation = { webhook, resource: a.resource, subresource, kind: a.kind };
  } else if (webhook.matchPolicy === 'Equivalent') {
    const others = ctx.equivalents(a.resource, subresource).filter((e) => !sameResource(e.resource, a.resource));
    // Earlier rules win over later ones; within a rule, the first equivalent that matches.
    outer: for (const rule of webhook.rules) {
      for (const other of others) {
        if (ruleMatches(rule, a, other.resource)) {
          invocation = { webhook, resource: other.resource, subresource, kind: other.kind };
          break outer;
        }
      }
    }
  }
  if (!invocation) return undefined;
  if (!byNamespace.matches) throw byNamespace.error;
  if (!byObject.matches) throw byObject.error;
  return invocation;
}

const sameResource = (x: GroupVersionResource, y: GroupVersionResource): boolean =>
  x.group === y.group && x.version === y.version && x.resource === y.resource;
