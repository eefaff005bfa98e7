// PodTransitionRule (apps.kusionstack.io/v1alpha1): the CRD types with upstream's wire names
// (kube-api apps/v1alpha1 podtransitionrule_types.go), the wire types of the webhook-rule protocol, and
// the structural OpenAPI v3 schema the CRD manifest is generated from. The schema is written next to
// the types; podtransitionrule.test.ts checks that every typed field is in the schema and vice versa.

import type { ObjectMeta } from './kube.ts';
import { array, bool, customResourceDefinition, int64, intOrString, object, resourceSchema, str, strings, time, type CustomResource, type Schema } from './schema.ts';
import { labelSelectorSchema, type LabelSelector } from './selector.ts';

export const PTR_GROUP = 'apps.kusionstack.io';
export const PTR_VERSION = 'v1alpha1';
export const PTR_API_VERSION = `${PTR_GROUP}/${PTR_VERSION}`;
export const PTR_KIND = 'PodTransitionRule';
export const PTR_LIST_KIND = 'PodTransitionRuleList';
export const PTR_PLURAL = 'podtransitionrules';
export const PTR_SINGULAR = 'podtransitionrule';
export const PTR_SHORT_NAME = 'ptr';
export const PTR_CRD_NAME = `${PTR_PLURAL}.${PTR_GROUP}`;

/** Comma list of rule types (`availablePolicy`, `labelCheck`, `webhook`) every PodTransitionRule ignores. */
export const SKIP_RULES_ENV = 'SKIP_POD_TRANSITION_RULES';
/** `apiVersion` of every resource in a webhook request: upstream sends `core/v1` (its docs say `v1`). */
export const WEBHOOK_RESOURCE_API_VERSION = 'core/v1';
/** Poll query key when `poll.rawQueryKey` is empty: `<poll.url>?task-id=<taskId>`. */
export const DEFAULT_POLL_QUERY_KEY = 'task-id';
/** base64 of "\n": like an empty caBundle, it means "the system's trust roots". */
export const EMPTY_CA_BUNDLE = 'Cg==';
/** The owner kind whose missing replicas shrink availablePolicy's quota (kuperator PR #362). */
export const COLLASET_API_VERSION = PTR_API_VERSION;
export const COLLASET_KIND = 'CollaSet';

export type IntOrString = number | string;
export type FailurePolicy = 'Ignore' | 'Fail';

export interface PodTransitionRule {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  spec?: PodTransitionRuleSpec;
  status?: PodTransitionRuleStatus;
}

export interface PodTransitionRuleSpec {
  /** Pods of the rule's namespace it applies to. Required by validation; nil selects nothing. */
  selector?: LabelSelector;
  rules?: TransitionRule[];
}

export interface TransitionRule {
  /** Required by validation; the rule's identity in status, reject reasons and the skip annotation. */
  name?: string;
  disabled?: boolean;
  /** `PreCheck` or `PostCheck`; unset means PreCheck. Any other value never runs. */
  stage?: string;
  /** Upstream's registered conditions. podops registers none and does not filter on them (see docs). */
  conditions?: string[];
  filter?: TransitionRuleFilter;
  // Inline definition: exactly one of the three (validation).
  availablePolicy?: AvailableRule;
  labelCheck?: LabelCheckRule;
  webhook?: TransitionRuleWebhook;
}

export interface TransitionRuleFilter {
  labelSelector?: LabelSelector;
}

export interface AvailableRule {
  maxUnavailableValue?: IntOrString;
  /** In the API, ignored by the controller (as upstream). */
  maxUnavailablePolicy?: AdaptivePolicy;
  minAvailableValue?: IntOrString;
  /** In the API, ignored by the controller (as upstream). */
  minAvailablePolicy?: AdaptivePolicy;
}

export interface AdaptivePolicy {
  expFunc?: ExpFunc;
}

export interface ExpFunc {
  coeff?: string;
  pow?: string;
}

export interface LabelCheckRule {
  /** Required by validation. */
  requires?: LabelSelector;
}

export interface TransitionRuleWebhook {
  clientConfig?: WebhookClientConfig;
  /** Defaults to Fail (upstream defaults Ignore but never reads it). */
  failurePolicy?: FailurePolicy;
  parameters?: WebhookParameter[];
}

export interface WebhookClientConfig {
  url?: string;
  /** base64 of a PEM CA bundle: the trust root for the server's certificate. Empty or `Cg==`: system roots. */
  caBundle?: string;
  poll?: WebhookPollConfig;
}

export interface WebhookPollConfig {
  url?: string;
  /** The query key carrying the task ID; default `task-id`. */
  rawQueryKey?: string;
  caBundle?: string;
  /** Default 5. */
  intervalSeconds?: number;
  /** Default 60. */
  timeoutSeconds?: number;
}

export interface WebhookParameter {
  key?: string;
  /** Used when non-empty; otherwise valueFrom.fieldRef. */
  value?: string;
  valueFrom?: WebhookParameterSource;
}

export interface WebhookParameterSource {
  type?: string;
  fieldRef?: ObjectFieldSelector;
}

export interface ObjectFieldSelector {
  apiVersion?: string;
  /** `metadata.name`, `metadata.labels['k']`, `status.podIP`, any dotted path of the pod. */
  fieldPath?: string;
}

export interface PodTransitionRuleStatus {
  /** RFC 3339, the time of the last status write. */
  updateTime?: string;
  observedGeneration?: number;
  /** Names of the selected pods, sorted. */
  targets?: string[];
  /** Webhook-rule progress, one entry per enabled webhook rule. */
  ruleStates?: RuleState[];
  /** One entry per pod and stage it is in, sorted by pod name then stage. */
  details?: PodTransitionDetail[];
  /** podops extension for printer columns: counts derived from targets and details. */
  summary?: PodTransitionSummary;
}

export interface PodTransitionSummary {
  /** Selected pods. */
  targets: number;
  /** Selected pods now in PreCheck or PostCheck. */
  checking: number;
  /** Pods in a stage whose every detail passed. */
  passed: number;
  /** Pods in a stage with a rejected detail. */
  blocked: number;
}

export interface RuleState {
  name?: string;
  webhookStatus?: WebhookStatus;
}

export interface WebhookStatus {
  /** Poll tasks in flight. */
  taskStates?: TaskInfo[];
  /** Finished tasks, kept for 10 minutes after their last poll. */
  history?: TaskInfo[];
}

export interface TaskInfo {
  taskId?: string;
  /** Pods of the task not approved yet. */
  processing?: string[];
  approved?: string[];
  /** RFC 3339. */
  beginTime?: string;
  /** RFC 3339 time of the last poll. */
  lastTime?: string;
  message?: string;
}

export interface PodTransitionDetail {
  name?: string;
  stage?: string;
  /** Always serialised: no rejection in this stage. */
  passed: boolean;
  passedRules?: string[];
  rejectInfo?: RejectInfo[];
}

export interface RejectInfo {
  ruleName?: string;
  reason?: string;
}

// The webhook-rule protocol (same Go types upstream).

/** First request: `POST clientConfig.url`, `Content-Type: application/json`. */
export interface WebhookRequest {
  /** A new UUID v4 per request, for logs and reject reasons. */
  traceId: string;
  ruleName: string;
  /** The rule's explicit stage; omitted when the rule has none. */
  stage?: string;
  resources: WebhookResource[];
}

export interface WebhookResource {
  apiVersion: string;
  kind: string;
  name: string;
  /** Omitted when the rule has no parameters. */
  parameters?: Record<string, string>;
}

export interface WebhookResponse {
  success: boolean;
  message: string;
  finishedNames?: string[];
  poll: boolean;
  /** Deprecated alias of `poll`. */
  async: boolean;
  /** The task ID when `taskId` is empty. */
  traceId: string;
  taskId: string;
}

/** Answer to `GET <poll.url>?<rawQueryKey|task-id>=<taskId>`. */
export interface PollResponse {
  success: boolean;
  message: string;
  finished: boolean;
  finishedNames?: string[];
  stop: boolean;
}

// The structural OpenAPI v3 schema.

/** Bounds of what one rule may hold: an admission review of it stays small, whatever a writer sends. */
export const MAX_TRANSITION_RULES = 64;
export const MAX_WEBHOOK_PARAMETERS = 64;
export const MAX_URL_LENGTH = 2048;

const adaptivePolicy = (description: string): Schema =>
  object(description, {
    expFunc: object('f(x) = coeff * x ^ pow.', { coeff: str('Coefficient.'), pow: str('Power.') }),
  });

const taskInfo = (description: string): Schema =>
  object(description, {
    taskId: str('The task ID from the rule server.'),
    processing: strings('Pods of the task not approved yet.'),
    approved: strings('Pods the rule server approved.'),
    beginTime: time('When the task started.'),
    lastTime: time('When it was last polled.'),
    message: str('The last message of the rule server.'),
  });

function specSchema(): Schema {
  const webhook = object('Asks an HTTP(S) server whether the pods may pass.', {
    clientConfig: object('How to reach the rule server.', {
      url: str('The first request is a POST to this URL.', { maxLength: MAX_URL_LENGTH }),
      caBundle: str('base64 of the PEM CA bundle that must sign the server certificate; empty or Cg== uses the system roots.'),
      poll: object('Poll a long-running task until it approves the pods.', {
        url: str('GET <url>?<rawQueryKey>=<taskId>.', { maxLength: MAX_URL_LENGTH }),
        rawQueryKey: str('Query key of the task ID. Default task-id.'),
        caBundle: str('As clientConfig.caBundle, for the poll URL.'),
        intervalSeconds: int64('Seconds between polls. Default 5.', { default: 5, minimum: 1 }),
        timeoutSeconds: int64('Seconds after which the task stops. Default 60.', { default: 60, minimum: 1 }),
      }),
    }),
    failurePolicy: str('Fail: errors and time-outs reject the pods and retry. Ignore: they let the pods pass.', {
      enum: ['Ignore', 'Fail'],
      default: 'Fail',
    }),
    parameters: array(
      'Per-pod parameters sent with each resource.',
      object('One parameter.', {
        key: str('Parameter name.'),
        value: str('A literal value; wins over valueFrom when non-empty.'),
        valueFrom: object('Where to read the value from.', {
          type: str('Target type (informational).'),
          fieldRef: object('A field of the pod.', {
            apiVersion: str('Schema version the path is written in (informational).'),
            fieldPath: str("metadata.name, metadata.labels['k'], status.podIP or any dotted path of the pod."),
          }),
        }),
      }),
      MAX_WEBHOOK_PARAMETERS,
    ),
  });
  const rule = object('One check of the rule.', {
    name: str('The rule name; required and unique within the rule.'),
    disabled: bool('Turns the rule off.'),
    stage: str('PreCheck (default) or PostCheck.'),
    conditions: strings('Upstream condition names; podops does not filter on them.'),
    filter: object('Limits the rule to some of the selected pods.', {
      labelSelector: labelSelectorSchema('Pods not matching are skipped by this rule.'),
    }),
    availablePolicy: object('Limits how many pods may be unavailable at once.', {
      maxUnavailableValue: intOrString('Maximum unavailable pods: a number or a percentage of the selected pods (rounded up).'),
      maxUnavailablePolicy: adaptivePolicy('Accepted and ignored, as upstream.'),
      minAvailableValue: intOrString('Minimum available pods: a number or a percentage of the selected pods (rounded down).'),
      minAvailablePolicy: adaptivePolicy('Accepted and ignored, as upstream.'),
    }),
    labelCheck: object('Requires labels on the pod.', { requires: labelSelectorSchema('The pod labels must match.') }),
    webhook,
  });
  return object('The pods and the checks.', {
    selector: labelSelectorSchema('Pods of this namespace the rule applies to.'),
    rules: array('The checks, run in order availablePolicy, labelCheck, webhook (stable for equal kinds).', rule, MAX_TRANSITION_RULES),
  });
}

function statusSchema(): Schema {
  return object('Observed progress.', {
    updateTime: time('Time of the last status write.'),
    observedGeneration: int64('The generation this status was computed for.'),
    targets: strings('Selected pods, sorted.'),
    ruleStates: array(
      'Webhook-rule progress.',
      object('One webhook rule.', {
        name: str('The rule name.'),
        webhookStatus: object('Poll tasks.', {
          taskStates: array('Tasks in flight.', taskInfo('A poll task.')),
          history: array('Finished tasks, kept 10 minutes.', taskInfo('A finished poll task.')),
        }),
      }),
    ),
    details: array(
      'Per pod and stage.',
      object(
        'The result for one pod in one stage.',
        {
          name: str('The pod.'),
          stage: str('PreCheck or PostCheck.'),
          passed: bool('No rule rejected the pod in this stage.'),
          passedRules: strings('Rules the pod passed.'),
          rejectInfo: array('Why not.', object('A rejection.', { ruleName: str('The rejecting rule.'), reason: str('Its reason.') })),
        },
        ['passed'],
      ),
    ),
    summary: object('Counts for printer columns (podops).', {
      targets: { type: 'integer', description: 'Selected pods.' },
      checking: { type: 'integer', description: 'Selected pods now in PreCheck or PostCheck.' },
      passed: { type: 'integer', description: 'Pods in a stage that passed it.' },
      blocked: { type: 'integer', description: 'Pods in a stage held by a rule.' },
    }),
  });
}

/** The openAPIV3Schema of PodTransitionRule. */
const POD_TRANSITION_RULE: CustomResource = {
  group: PTR_GROUP,
  version: PTR_VERSION,
  names: { plural: PTR_PLURAL, singular: PTR_SINGULAR, kind: PTR_KIND, listKind: PTR_LIST_KIND, shortNames: [PTR_SHORT_NAME] },
  description: 'PodTransitionRule gates the PreCheck and PostCheck stages of PodOpsLifecycle for the selected pods.',
  spec: specSchema(),
  status: statusSchema(),
  printerColumns: [
    { name: 'Targets', type: 'integer', jsonPath: '.status.summary.targets', description: 'Selected pods.' },
    { name: 'Checking', type: 'integer', jsonPath: '.status.summary.checking', description: 'Selected pods now in PreCheck or PostCheck (a pod that passed its PreCheck and is being operated is not counted).' },
    { name: 'Passed', type: 'integer', jsonPath: '.status.summary.passed', description: 'Of the pods being checked, those its rules let through their stage.' },
    { name: 'Blocked', type: 'integer', jsonPath: '.status.summary.blocked', description: 'Of the pods being checked, those a rule holds.' },
  ],
};

export const podTransitionRuleSchema = (): Schema => resourceSchema(POD_TRANSITION_RULE);

/** The apiextensions.k8s.io/v1 CustomResourceDefinition of PodTransitionRule. */
export const podTransitionRuleCRD = (): Record<string, unknown> => customResourceDefinition(POD_TRANSITION_RULE);
