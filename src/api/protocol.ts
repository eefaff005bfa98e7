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

/** A key of a per-ID family without exactly one non-empty ID after the prefix; upstream answers `invalid label <key>`. */
export class InvalidLabelError extends Error {
  readonly key: string;
  constructor(key: string) {
    super(`invalid label ${key}`);
    this.name = 'InvalidLabelError';
    this.key = key;
  }
}

export interface ParsedLabelKey {
  word: IdLabelWord;
  id: string;
}

const wordByPrefix = new Map<string, IdLabelWord>(ID_LABEL_WORDS.map((w) => [idLabelPrefix(w), w]));

// Label keys repeat across requests (a handful of IDs and types per cluster), so parses are cached; the
// cache is bounded because label keys come from users.
const PARSED_KEY_CACHE_SIZE = 10_000;
const parsedKeys = new Map<string, ParsedLabelKey | null | 'invalid'>();

/**
 * Splits `<word>.podopslifecycle.kusionstack.io/<id>`. Returns undefined for keys of no per-ID family;
 * throws InvalidLabelError for a family key without exactly one non-empty ID (e.g. the bare prefix).
 * The prefix must match exactly: a key such as `operating.podopslifecycle.kusionstack.io.x/y` is not a
 * protocol label (upstream's startsWith test would half-treat it as one).
 */
export function parseIdLabelKey(key: string): ParsedLabelKey | undefined {
  let parsed = parsedKeys.get(key);
  if (parsed === undefined) {
    parsed = splitIdLabelKey(key);
    if (parsedKeys.size >= PARSED_KEY_CACHE_SIZE) parsedKeys.clear();
    parsedKeys.set(key, parsed);
  }
  if (parsed === 'invalid') throw new InvalidLabelError(key);
  return parsed ?? undefined;
}

function splitIdLabelKey(key: string): ParsedLabelKey | null | 'invalid' {
  const slash = key.indexOf('/');
  const word = wordByPrefix.get(slash < 0 ? key : key.slice(0, slash));
  if (word === undefined) return null;
  const id = slash < 0 ? '' : key.slice(slash + 1);
  if (id === '' || id.includes('/')) return 'invalid';
  return { word, id };
}

/** True for `operation-permission.podopslifecycle.kusionstack.io[/<type>]`. */
export function isOperationPermissionKey(key: string): boolean {
  const slash = key.indexOf('/');
  return (slash < 0 ? key : key.slice(0, slash)) === OPERATION_PERMISSION_PREFIX;
}

// Pod-level labels (no ID).
export const SERVICE_AVAILABLE_LABEL = `${LIFECYCLE_DOMAIN}/service-available`;
export const STAY_OFFLINE_LABEL = `${LIFECYCLE_DOMAIN}/stay-offline`;
export const PREPARING_TO_DELETE_LABEL = `${LIFECYCLE_DOMAIN}/preparing-to-delete`;
/** Set by CollaSet on pods it creates; removed by the lifecycle controller together with adding service-available. */
export const POD_CREATING_LABEL = `${LIFECYCLE_DOMAIN}/creating`;
export const POD_COMPLETING_LABEL = `${LIFECYCLE_DOMAIN}/completing`;
// Pod-level phase labels defined in kube-api but set and read by nothing in Kuperator
// (Kuperator's behaviour, docs/protocol.md); kept so code that greps for them finds the exact keys. They are not the
// per-ID families: the word follows the domain, not precedes it.
export const POD_PRE_CHECKING_LABEL = `${LIFECYCLE_DOMAIN}/pre-checking`;
export const POD_PREPARING_LABEL = `${LIFECYCLE_DOMAIN}/preparing`;
export const POD_OPERATING_LABEL = `${LIFECYCLE_DOMAIN}/operating`;
export const POD_POST_CHECKING_LABEL = `${LIFECYCLE_DOMAIN}/post-checking`;
/** Asks for deletion through PodOpsLifecycle (the pod-deletion controller and GraceDelete). */
export const TO_DELETE_LABEL = 'collaset.kusionstack.io/to-delete';
export const TO_REPLACE_LABEL = 'collaset.kusionstack.io/to-replace';
export const REPLACE_PAIR_ORIGIN_NAME_LABEL = 'collaset.kusionstack.io/replace-pair-origin-name';
/** CollaSet marks the pods of an update with it; its update adapter's whenFinish removes it (Kuperator's behaviour, docs/protocol.md). */
export const UPDATE_INCLUDED_LABEL = 'collaset.kusionstack.io/update-included';

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
/**
 * podops' addition: who asked for the deletion GraceDelete turned into `to-delete` (the API request's user). A
 * deletion asked by the pod's ReplicaSet controller is a scale-down and is held to what the scale-down asks.
 */
export const GRACE_DELETE_REQUESTED_BY_ANNOTATION = 'gracedelete.kusionstack.io/requested-by';
/**
 * podops' addition, on a ReplicaSet whose create was refused for the Deployment's surge bound: Unix nanoseconds
 * of the deletion of a pod GraceDelete held. The write makes the ReplicaSet controller try again at once rather
 * than after its backoff.
 */
export const HELD_POD_DELETED_ANNOTATION = 'gracedelete.kusionstack.io/held-pod-deleted';
/** The identities kube-controller-manager's ReplicaSet controller writes as (per-controller credentials, or shared). */
export const REPLICASET_CONTROLLER_USERS: readonly string[] = ['system:serviceaccount:kube-system:replicaset-controller', 'system:kube-controller-manager'];
/** The identities kube-controller-manager's StatefulSet controller writes as (per-controller credentials, or shared). */
export const STATEFULSET_CONTROLLER_USERS: readonly string[] = ['system:serviceaccount:kube-system:statefulset-controller', 'system:kube-controller-manager'];
/**
 * CollaSet's record of a pod's status; Kuperator documents no format. Its update
 * adapter's whenFinish removes it together with UPDATE_INCLUDED_LABEL.
 */
export const LAST_POD_STATUS_ANNOTATION = 'collaset.kusionstack.io/last-pod-status';

// Finalizers.
/** Any pod finalizer starting with this string blocks the move from preparing to operate. No `/` is required. */
export const PROTECTION_FINALIZER_PREFIX = `prot.${LIFECYCLE_DOMAIN}`;
export const TRANSITION_RULE_FINALIZER = 'finalizer.operating.kusionstack.io/protected';
/** On a ResourceConsist employer (e.g. a Service) until everything it synced is cleaned up. */
export const RESOURCE_CONSIST_CLEAN_FINALIZER = 'resource-consist.kusionstack.io/clean-finalizer';
/**
 * The older per-employer form, `resource-consist.kusionstack.io/clean-<employer name>`, which the current
 * ResourceConsist replaces with RESOURCE_CONSIST_CLEAN_FINALIZER (Kuperator's behaviour, docs/protocol.md); employers
 * written by older controllers still carry it. Match it exactly: the current finalizer shares the prefix.
 */
export const LEGACY_RESOURCE_CONSIST_CLEAN_FINALIZER_PREFIX = 'resource-consist.kusionstack.io/clean-';
export const legacyResourceConsistCleanFinalizer = (employerName: string): string =>
  `${LEGACY_RESOURCE_CONSIST_CLEAN_FINALIZER_PREFIX}${employerName}`;

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
/** podops' addition: evictions (kubectl drain, the cluster autoscaler) of controlled pods run this lifecycle first. */
export const OPERATION_TYPE_EVICT = 'evict';
export const POD_EVICTION_LIFECYCLE_ID = 'pod-eviction';
/** On a pod an eviction was asked for: Unix nanoseconds of the first request (the order pods are taken in). */
export const TO_EVICT_LABEL = `${LIFECYCLE_DOMAIN}/to-evict`;
/** Unix nanoseconds of the latest eviction request: an eviction nobody retries any more is abandoned. */
export const EVICTION_REQUESTED_ANNOTATION = `${LIFECYCLE_DOMAIN}/eviction-requested`;
/**
 * Unix nanoseconds until which an eviction of the pod is not deferred again: its last eviction lifecycle allowed
 * the eviction and no eviction came (a forged request's pattern), so requests nobody vouches for wait it out.
 */
export const EVICTION_PAUSED_UNTIL_ANNOTATION = `${LIFECYCLE_DOMAIN}/eviction-paused-until`;

// Webhook names and messages users grep for.
export const LIFECYCLE_WEBHOOK_NAME = 'PodOpsLifecycleWebhook';
export const GRACE_DELETE_WEBHOOK_NAME = 'GraceDeleteWebhook';
/** The first words of a refused eviction, as the API server's own for a disruption budget (drain tools retry on 429). */
export const EVICTION_DEFERRED_MESSAGE = 'Cannot evict pod yet: podops takes it out of service first';
/** The first words of the warning on an eviction podops lets through unchanged because nothing vouches for it. */
export const EVICTION_NOT_DEFERRED_WARNING = 'podops did not defer this eviction';
export const GRACE_DELETE_MESSAGE = 'pod deletion process is underway and being managed by PodOpsLifecycle';
