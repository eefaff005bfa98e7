// Every string of the PodOpsLifecycle wire protocol, as KusionStack Kuperator defines it
// (kube-api apps/v1alpha1 well_known_labels.go / well_known_annotations.go / well_known_vars.go).
// Cooperation controllers written for Kuperator grep for these exact keys: never rename them.

export const LIFECYCLE_DOMAIN = 'podopslifecycle.kusionstack.io';

/** A pod takes part only with this label set to exactly "true". */
export const CONTROL_LABEL = 'kusionstack.io/control';
export const CONTROL_LABEL_VALUE = 'true';

/**
 * The per-lifecycle label families. Each key is `<word>.podopslifecycle.kusionstack.io/<id>`, in the
 * order of upstream's WellKnownLabelPrefixesWithID. `operation-permission` is keyed by type, not ID, and
 * is deliberately not in this list.
 */
export const ID_LABEL_WORDS = [
  'operating',
  'operation-type',
  'pre-check',
  'pre-checked',
  'preparing',
  'done-operation-type',
  'undo-operation-type',
  'operate',
  'operated',
  'post-check',
  'post-checked',
  'completing',
] as const;

export type IdLabelWord = (typeof ID_LABEL_WORDS)[number];

/** The label families whose presence makes an ID exist on a pod (upstream IDToLabelsMap). */
export const ID_DEFINING_WORDS: readonly IdLabelWord[] = ['operating', 'operate', 'operated'];

/** The families removed at final cleanup, once every ID is completing and the expected finalizers are present. */
export const CLEANUP_WORDS: readonly IdLabelWord[] = [
  'operate',
  'operated',
  'done-operation-type',
  'post-check',
  'post-checked',
  'completing',
];

export const idLabelPrefix = (word: IdLabelWord): string => `${word}.${LIFECYCLE_DOMAIN}`;
export const idLabelKey = (word: IdLabelWord, id: string): string => `${idLabelPrefix(word)}/${id}`;

/** `operation-permission.podopslifecycle.kusionstack.io/<type>`: granted per operation type, not per ID. */
export const OPERATION_PERMISSION_PREFIX = `operation-permission.${LIFECYCLE_DOMAIN}`;
export const operationPermissionKey = (type: string): string => `${OPERATION_PERMISSION_PREFIX}/${type}`;

// Pod-level labels (no ID).
export const SERVICE_AVAILABLE_LABEL = `${LIFECYCLE_DOMAIN}/service-available`;
export const STAY_OFFLINE_LABEL = `${LIFECYCLE_DOMAIN}/stay-offline`;
export const PREPARING_TO_DELETE_LABEL = `${LIFECYCLE_DOMAIN}/preparing-to-delete`;
/** Set by CollaSet on pods it creates; removed by the lifecycle controller together with adding service-available. */
export const POD_CREATING_LABEL = `${LIFECYCLE_DOMAIN}/creating`;
export const POD_COMPLETING_LABEL = `${LIFECYCLE_DOMAIN}/completing`;
/** Asks for deletion through PodOpsLifecycle (the pod-deletion controller and GraceDelete). */
export const TO_DELETE_LABEL = 'collaset.kusionstack.io/to-delete';
export const TO_REPLACE_LABEL = 'collaset.kusionstack.io/to-replace';
export const REPLACE_PAIR_ORIGIN_NAME_LABEL = 'collaset.kusionstack.io/replace-pair-origin-name';

// Annotations.
/** JSON `{"expectedFinalizers":{"<Kind>/<namespace>/<name>":"<finalizer>"}}`, written by cooperation controllers. */
export const AVAILABLE_CONDITIONS_ANNOTATION = 'pod.kusionstack.io/available-conditions';
/** `detail.podtransitionrule.kusionstack.io/<ptrName>`: the pod's PodTransitionRule detail, mirrored for users. */
export const TRANSITION_DETAIL_ANNOTATION_PREFIX = 'detail.podtransitionrule.kusionstack.io';
export const transitionDetailAnnotation = (ruleName: string): string => `${TRANSITION_DETAIL_ANNOTATION_PREFIX}/${ruleName}`;
/** JSON `{"skipRules":["ruleName",…]}`: makes every PodTransitionRule skip the named rules for this pod. */
export const SKIP_RULE_CONDITIONS_ANNOTATION = 'podtransitionrule.kusionstack.io/skip-rule-conditions';
/** Unix nanoseconds of GraceDelete's last re-label, used to rate-limit its writes. */
export const GRACE_DELETE_TIMESTAMP_ANNOTATION = 'gracedelete.kusionstack.io/delete-timestamp';

// Finalizers.
/** Any pod finalizer starting with this string blocks the move from preparing to operate. No `/` is required. */
export const PROTECTION_FINALIZER_PREFIX = `prot.${LIFECYCLE_DOMAIN}`;
export const TRANSITION_RULE_FINALIZER = 'finalizer.operating.kusionstack.io/protected';
export const RESOURCE_CONSIST_CLEAN_FINALIZER = 'resource-consist.kusionstack.io/clean-finalizer';

// Readiness gate and condition.
export const SERVICE_READY_GATE = 'pod.kusionstack.io/service-ready';
export const SERVICE_READY_MESSAGE = 'updated by PodOpsLifecycle';
export const SERVICE_READY_EVENT_REASON = 'ServiceReady';

// PodTransitionRule stages of the lifecycle, in registration order (the first is the default stage of a rule).
export const PRE_CHECK_STAGE = 'PreCheck';
export const POST_CHECK_STAGE = 'PostCheck';
export const TRANSITION_STAGES = [PRE_CHECK_STAGE, POST_CHECK_STAGE] as const;
export type TransitionStage = (typeof TRANSITION_STAGES)[number];

// Built-in operation types and the pod-deletion lifecycle.
export const OPERATION_TYPE_UPDATE = 'update';
export const OPERATION_TYPE_SCALE_IN = 'scale-in';
export const OPERATION_TYPE_DELETE = 'delete';
export const POD_DELETE_LIFECYCLE_ID = 'pod-delete';

// Webhook names and messages users grep for.
export const LIFECYCLE_WEBHOOK_NAME = 'PodOpsLifecycleWebhook';
export const GRACE_DELETE_WEBHOOK_NAME = 'GraceDeleteWebhook';
export const GRACE_DELETE_MESSAGE = 'pod deletion process is underway and being managed by PodOpsLifecycle';
