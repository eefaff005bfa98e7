// The capability probes: what the installed implementation offers, found out from the cluster rather than from
// any implementation's configuration: the webhook configurations that send controlled pods (and evictions) to a
// webhook, the apps.kusionstack.io resources served, and, for what only the running webhook knows (its feature
// gates), a dry-run probe of a controlled pod in the suite's own namespace.

import { PTR_GROUP, PTR_PLURAL, PTR_VERSION } from '../api/podtransitionrule.ts';
import { CONTROL_LABEL, CONTROL_LABEL_VALUE, EVICTION_DEFERRED_MESSAGE, EVICTION_NOT_DEFERRED_WARNING, GRACE_DELETE_MESSAGE, GRACE_DELETE_WEBHOOK_NAME } from '../api/protocol.ts';
import { RL_PLURAL } from '../api/rolloutlifecycle.ts';
import { labelSelectorMatches, type LabelSelector } from '../api/selector.ts';
import { ApiError, isTooManyRequests, unlessNotFound, type KubeClient } from '../kube/client.ts';
import { MUTATING_WEBHOOK_CONFIGURATIONS, PODS, VALIDATING_WEBHOOK_CONFIGURATIONS, type ResourceType } from '../kube/resources.ts';
import type { Capabilities, Capability } from './capabilities.ts';
import { refusalOf, type ScenarioContext } from './context.ts';
import { StepFailure } from './observe.ts';

interface WebhookRule {
  operations?: string[];
  apiGroups?: string[];
  resources?: string[];
}

interface Webhook {
  /** `<webhook> (<configuration>)`, as reported. */
  label: string;
  rules: WebhookRule[];
  objectSelector?: LabelSelector;
}

const matchesAny = (values: string[] | undefined, value: string): boolean => (values ?? []).some((v) => v === '*' || v === value);

/** Whether a webhook's rules send this operation on this resource (of the core group, or a subresource like `pods/status`). */
function covers(webhook: Webhook, resource: string, operation: string): boolean {
  const [base] = resource.split('/');
  return webhook.rules.some(
    (rule) => matchesAny(rule.apiGroups, '') && matchesAny(rule.operations, operation) && (rule.resources ?? []).some((r) => r === resource || r === '*' || r === '*/*' || (resource.includes('/') && r === `${base}/*`)),
  );
}

/** Whether the webhook's objectSelector lets a pod labelled only kusionstack.io/control=true through. */
function seesControlledPods(webhook: Webhook): boolean {
  try {
    return labelSelectorMatches(webhook.objectSelector ?? {}, { [CONTROL_LABEL]: CONTROL_LABEL_VALUE });
  } catch {
    return false;
  }
}

async function webhooksOf(client: KubeClient, type: ResourceType, signal: AbortSignal): Promise<Webhook[]> {
  const list = await client.list<{ metadata: { name?: string }; webhooks?: (Omit<Webhook, 'label'> & { name: string })[] }>(type, {}, signal);
  return list.items.flatMap((config) => (config.webhooks ?? []).map((w) => ({ label: `${w.name} (${config.metadata.name})`, rules: w.rules ?? [], ...(w.objectSelector && { objectSelector: w.objectSelector }) })));
}

/** The resources the apps.kusionstack.io API serves (an installed and established CRD), from discovery. */
async function servedResources(client: KubeClient, signal: AbortSignal): Promise<string[]> {
  const list = await unlessNotFound(client.request<{ resources?: { name: string }[] }>({ method: 'GET', path: `/apis/${PTR_GROUP}/${PTR_VERSION}`, signal }));
  return (list?.resources ?? []).map((r) => r.name);
}

const served = (resources: string[], plural: string, feature: string): Capability =>
  resources.includes(plural)
    ? { available: true, summary: `${plural}.${PTR_GROUP}/${PTR_VERSION} is served` }
    : { available: false, summary: `the API does not serve ${plural}.${PTR_GROUP}/${PTR_VERSION} (no CRD installed: the implementation has no ${feature})` };

/** A dry-run request that either an implementation's webhook refuses (on) or the API server accepts (off). */
const probe = async (request: () => Promise<unknown>): Promise<ApiError | undefined> => (await refusalOf(request)).refusal;

async function probeGraceDelete(ctx: ScenarioContext, pod: string): Promise<Capability> {
  const refusal = await probe(() => ctx.client.delete(PODS, ctx.namespace, pod, { dryRun: true, signal: ctx.signal }));
  if (refusal === undefined) return { available: false, summary: 'off: a dry-run DELETE of a controlled pod with the service-ready gate went through (GraceDelete is behind the feature gate GraceDeleteWebhook, off by default)' };
  const message = refusal.status.message ?? refusal.message;
  if (message.includes(GRACE_DELETE_MESSAGE)) return { available: true, summary: `on: a dry-run DELETE of a controlled pod was refused by ${GRACE_DELETE_WEBHOOK_NAME}` };
  return { available: false, summary: `unknown: a dry-run DELETE of a controlled pod was refused otherwise: ${message}` };
}

async function probeEviction(ctx: ScenarioContext, pod: string, webhooks: Webhook[]): Promise<Capabilities['gracefulEviction']> {
  const eviction = webhooks.filter((w) => covers(w, 'pods/eviction', 'CREATE'));
  if (eviction.length === 0) return { available: false, needsCordon: false, summary: 'no webhook for pods/eviction is registered (graceful evictions are a podops addition)' };
  const names = eviction.map((w) => w.label).join(', ');
  const warnings: string[] = [];
  const listening = ctx.client.withOptions({ onWarning: (warning) => warnings.push(warning) });
  let refusal: ApiError | undefined;
  try {
    refusal = await probe(() => listening.evict(ctx.namespace, pod, { dryRun: true, signal: ctx.signal }));
  } finally {
    listening.close();
  }
  if (isTooManyRequests(refusal) && (refusal?.status.message ?? '').includes(EVICTION_DEFERRED_MESSAGE)) return { available: true, needsCordon: false, summary: `on: ${names} deferred a dry-run eviction of a controlled pod (429)` };
  if (refusal === undefined && warnings.some((w) => w.startsWith(EVICTION_NOT_DEFERRED_WARNING))) {
    return { available: true, needsCordon: true, summary: `on for nodes being emptied: ${names} let a dry-run eviction from a schedulable node through, as it does while it cannot authenticate the API server; the scenario cordons its pod's node` };
  }
  if (refusal === undefined) return { available: false, needsCordon: false, summary: `off: ${names} let a dry-run eviction of a controlled pod through (feature gate GracefulEviction off?)` };
  return { available: false, needsCordon: false, summary: `unknown: a dry-run eviction of a controlled pod was refused otherwise: ${refusal.code} ${refusal.status.message ?? refusal.message}` };
}

/** Finds out what the cluster's implementation offers; probes with a pod of `ctx`'s namespace (the suite's own). */
export async function detectCapabilities(ctx: ScenarioContext): Promise<Capabilities> {
  const { client, signal } = ctx;
  const mutating = await webhooksOf(client, MUTATING_WEBHOOK_CONFIGURATIONS, signal);
  const validating = await webhooksOf(client, VALIDATING_WEBHOOK_CONFIGURATIONS, signal);
  const forControlledPods = (webhooks: Webhook[]) => webhooks.filter((w) => seesControlledPods(w) && covers(w, 'pods', 'CREATE'));
  const [mutatingPods, validatingPods] = [forControlledPods(mutating), forControlledPods(validating)];
  const lifecycleWebhooks: Capability =
    mutatingPods.length > 0 && validatingPods.length > 0
      ? { available: true, summary: `found: ${[...mutatingPods, ...validatingPods].map((w) => w.label).join(', ')}` }
      : {
          available: false,
          summary: `no implementation found: no ${mutatingPods.length === 0 ? 'mutating' : 'validating'} webhook receives pods labelled ${CONTROL_LABEL}=${CONTROL_LABEL_VALUE} (is podops or Kuperator installed?)`,
        };
  const resources = await servedResources(client, signal);
  const workloadWebhooks = mutating.filter((w) => w.rules.some((r) => matchesAny(r.apiGroups, 'apps') && (r.resources ?? []).includes('deployments')));
  const rolloutHooks = served(resources, RL_PLURAL, 'rollout hooks');
  if (rolloutHooks.available) rolloutHooks.summary += workloadWebhooks.length > 0 ? `; workload webhook ${workloadWebhooks.map((w) => w.label).join(', ')}` : '; no webhook for Deployments is registered';

  let graceDelete: Capability;
  let gracefulEviction: Capabilities['gracefulEviction'];
  try {
    const pod = ctx.name('probe');
    await ctx.createControlledPod(pod);
    graceDelete = await probeGraceDelete(ctx, pod);
    gracefulEviction = await probeEviction(ctx, pod, validating);
  } catch (err) {
    if (!(err instanceof StepFailure || err instanceof ApiError)) throw err;
    const summary = `unknown: no controlled pod to probe with: ${err.message}`;
    graceDelete = { available: false, summary };
    gracefulEviction = { ...graceDelete, needsCordon: false };
  }
  return { lifecycleWebhooks, podTransitionRule: served(resources, PTR_PLURAL, 'PodTransitionRules'), graceDelete, gracefulEviction, rolloutHooks };
}
