// A ValidatingAdmissionPolicy (admissionregistration.k8s.io/v1, Kubernetes 1.30+) that holds podops'
// ServiceAccount to the writes the protocol makes. RBAC cannot: it grants `patch pods`, and a patch can
// change a pod's image (code running as that pod's ServiceAccount); it grants `update` of podops' webhook
// configurations, and an update can widen them to every resource. With this policy, a stolen podops
// token can only do what podops does:
// - pods: only controlled ones; never the spec, owner references or finalizers; only the protocol's labels
//   and annotations; through pods/status only the service-ready condition; deletes only of pods marked
//   to-delete; evictions only with the pod's own grace period and propagation (an Eviction names a pod but
//   carries nothing of it, so which pod cannot be checked here: PodDisruptionBudgets bound evictions);
// - its webhook configurations, by name: only the caBundle of each webhook;
// - workloads and ReplicaSets: never the template, the replicas, the owner references or the finalizers
//   (but podops' own); the rollout settings a hold changes (paused, strategy, updateStrategy) only on a
//   workload that already carries the RolloutLifecycle label or podops' stash of the user's settings (podops
//   labels a workload before it holds it, and releases it before it removes the label); only the
//   RolloutLifecycle label and annotations, and on ReplicaSets the annotation of GraceDelete's surge nudge;
// - Jobs: only those of rollout hooks, and only to suspend them;
// - PodTransitionRules and RolloutLifecycles: never the spec, and of the finalizers only podops' own.
// The expressions are CEL as the API server runs them (object and oldObject untyped), so every field that
// may be absent is tested with has() first: an evaluation error would deny podops' own writes.

import { RL_FINALIZER, RL_JOB_HOOK_LABEL, RL_USER_SETTINGS_ANNOTATION, RL_WORKLOAD_LABEL } from '../api/rolloutlifecycle.ts';
import { WEBHOOK_NAMES } from './webhook-configuration.ts';
import { CONTROL_LABEL, CONTROL_LABEL_VALUE, TRANSITION_RULE_FINALIZER, EVICTION_PAUSED_UNTIL_ANNOTATION, EVICTION_REQUESTED_ANNOTATION, GRACE_DELETE_REQUESTED_BY_ANNOTATION, HELD_POD_DELETED_ANNOTATION, GRACE_DELETE_TIMESTAMP_ANNOTATION, AVAILABLE_CONDITIONS_ANNOTATION, LIFECYCLE_DOMAIN, SERVICE_READY_GATE, TO_DELETE_LABEL, TRANSITION_DETAIL_ANNOTATION_PREFIX } from '../api/protocol.ts';

export const ADMISSION_POLICY_NAME = 'podops-service-account-limits';

/** A CEL string literal. */
const cel = (text: string): string => `'${text.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'`;
const regexQuote = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Label keys podops writes: every `[<word>.]podopslifecycle.kusionstack.io/...` key, and to-delete. */
const PROTOCOL_LABEL_KEYS = `^(([a-z0-9-]+\\.)?${regexQuote(LIFECYCLE_DOMAIN)}/|${regexQuote(TO_DELETE_LABEL)}$)`;
/** Annotation keys podops writes: PodTransitionRule details, GraceDelete's time stamp and requester, the last eviction request, expected finalizers. */
const PROTOCOL_ANNOTATION_KEYS = `^(${regexQuote(TRANSITION_DETAIL_ANNOTATION_PREFIX)}/|${[GRACE_DELETE_TIMESTAMP_ANNOTATION, GRACE_DELETE_REQUESTED_BY_ANNOTATION, EVICTION_REQUESTED_ANNOTATION, EVICTION_PAUSED_UNTIL_ANNOTATION, AVAILABLE_CONDITIONS_ANNOTATION].map((key) => `${regexQuote(key)}$`).join('|')})`;

/** The fields of PodStatus other than conditions, which podops never writes. */
const POD_STATUS_FIELDS = [
  'phase',
  'message',
  'reason',
  'nominatedNodeName',
  'hostIP',
  'hostIPs',
  'podIP',
  'podIPs',
  'startTime',
  'initContainerStatuses',
  'containerStatuses',
  'ephemeralContainerStatuses',
  'qosClass',
  'resize',
  'resourceClaimStatuses',
];

/** The fields of a webhook other than clientConfig.caBundle, which podops never writes. */
const WEBHOOK_FIELDS = ['rules', 'failurePolicy', 'matchPolicy', 'namespaceSelector', 'objectSelector', 'sideEffects', 'timeoutSeconds', 'admissionReviewVersions', 'reinvocationPolicy', 'matchConditions', 'clientConfig.url', 'clientConfig.service'];

/** `a.f` and `b.f` both absent, or both present and equal. */
const same = (a: string, b: string, field: string): string => `has(${a}.${field}) == has(${b}.${field}) && (!has(${a}.${field}) || ${a}.${field} == ${b}.${field})`;

/** A map field of the object, or an empty map when absent. */
const mapOf = (object: string, field: string): string => `has(${object}.${field}) ? ${object}.${field} : {}`;
const listOf = (object: string, field: string): string => `has(${object}.${field}) ? ${object}.${field} : []`;

/** Every key that changed between `before` and `after` (maps) matches `pattern`. */
const onlyKeysChange = (before: string, after: string, pattern: string): string =>
  `${after}.all(k, k.matches(${cel(pattern)}) || (k in ${before} && ${before}[k] == ${after}[k])) && ${before}.all(k, k.matches(${cel(pattern)}) || k in ${after})`;

const podUpdate = (condition: string): string => `!variables.isPod || request.operation != 'UPDATE' || (${condition})`;

/** Keys podops writes on workloads and ReplicaSets: the RolloutLifecycle label and its annotations. */
const ROLLOUT_DOMAIN = RL_WORKLOAD_LABEL.slice(0, RL_WORKLOAD_LABEL.indexOf('/'));
const ROLLOUT_KEYS = `^${regexQuote(ROLLOUT_DOMAIN)}/`;
/** And on ReplicaSets, the annotation that sends one refused for its Deployment's surge bound back to work. */
const REPLICASET_ANNOTATION_KEYS = `^(${regexQuote(ROLLOUT_DOMAIN)}/|${regexQuote(HELD_POD_DELETED_ANNOTATION)}$)`;

/** `a.f` and `b.f` (lists, or absent) hold the same items once those matching `pattern` are left out. */
const sameListBut = (a: string, b: string, field: string, pattern: string): string =>
  `(${listOf(a, field)}).filter(x, !x.matches(${cel(pattern)})) == (${listOf(b, field)}).filter(x, !x.matches(${cel(pattern)}))`;

/** The finalizers podops adds and removes: of PodTransitionRules and RolloutLifecycles (none on workloads). */
const PODOPS_FINALIZERS = `^(${[TRANSITION_RULE_FINALIZER, RL_FINALIZER].map(regexQuote).join('|')})$`;

/** The spec fields a hold changes. */
const HOLD_FIELDS = ['paused', 'strategy', 'updateStrategy'];

/** The spec fields of Deployments, StatefulSets and DaemonSets other than the rollout settings a hold changes. */
const WORKLOAD_SPEC_FIELDS = [
  'replicas',
  'selector',
  'template',
  'minReadySeconds',
  'revisionHistoryLimit',
  'progressDeadlineSeconds',
  'serviceName',
  'volumeClaimTemplates',
  'podManagementPolicy',
  'persistentVolumeClaimRetentionPolicy',
  'ordinals',
];

/** A Job's spec fields other than suspend (a cancelled hook's kept Job is suspended). */
const JOB_SPEC_FIELDS = [
  'parallelism',
  'completions',
  'activeDeadlineSeconds',
  'podFailurePolicy',
  'successPolicy',
  'backoffLimit',
  'backoffLimitPerIndex',
  'maxFailedIndexes',
  'selector',
  'manualSelector',
  'template',
  'ttlSecondsAfterFinished',
  'completionMode',
  'podReplacementPolicy',
  'managedBy',
];

export function admissionPolicy(namespace: string, serviceAccount: string, labels: Record<string, string>): Record<string, unknown>[] {
  const serviceReadyFree = (object: string): string => `(${listOf(object, 'status.conditions')}).filter(c, !has(c.type) || c.type != ${cel(SERVICE_READY_GATE)})`;
  return [
    {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingAdmissionPolicy',
      metadata: { name: ADMISSION_POLICY_NAME, labels },
      spec: {
        failurePolicy: 'Fail',
        matchConstraints: {
          resourceRules: [
            { apiGroups: [''], apiVersions: ['v1'], operations: ['UPDATE', 'DELETE'], resources: ['pods', 'pods/status'] },
            { apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['pods/eviction'] },
            { apiGroups: ['admissionregistration.k8s.io'], apiVersions: ['v1'], operations: ['UPDATE'], resources: ['mutatingwebhookconfigurations', 'validatingwebhookconfigurations'] },
            { apiGroups: ['apps'], apiVersions: ['v1'], operations: ['UPDATE'], resources: ['deployments', 'statefulsets', 'daemonsets', 'replicasets'] },
            { apiGroups: ['batch'], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE', 'DELETE'], resources: ['jobs'] },
            { apiGroups: ['apps.kusionstack.io'], apiVersions: ['v1alpha1'], operations: ['UPDATE'], resources: ['podtransitionrules', 'rolloutlifecycles'] },
          ],
        },
        matchConditions: [{ name: 'podops-service-account', expression: `request.userInfo.username == ${cel(`system:serviceaccount:${namespace}:${serviceAccount}`)}` }],
        variables: [
          // The API server leaves subResource out of a request to the resource itself.
          { name: 'isEviction', expression: "request.resource.resource == 'pods' && has(request.subResource) && request.subResource == 'eviction'" },
          { name: 'isPod', expression: "request.resource.resource == 'pods' && !variables.isEviction" },
          { name: 'isPodopsResource', expression: "request.resource.group == 'apps.kusionstack.io'" },
          { name: 'isWebhookConfiguration', expression: "request.resource.group == 'admissionregistration.k8s.io'" },
          { name: 'isWorkload', expression: "request.resource.resource in ['deployments', 'statefulsets', 'daemonsets']" },
          { name: 'isReplicaSet', expression: "request.resource.resource == 'replicasets'" },
          { name: 'isJob', expression: "request.resource.resource == 'jobs'" },
          { name: 'oldLabels', expression: mapOf('oldObject', 'metadata.labels') },
          { name: 'newLabels', expression: mapOf('object', 'metadata.labels') },
          { name: 'oldAnnotations', expression: mapOf('oldObject', 'metadata.annotations') },
          { name: 'newAnnotations', expression: mapOf('object', 'metadata.annotations') },
          { name: 'oldStatus', expression: mapOf('oldObject', 'status') },
          { name: 'newStatus', expression: mapOf('object', 'status') },
        ],
        validations: [
          {
            expression: `!variables.isPod || (${cel(CONTROL_LABEL)} in variables.oldLabels && variables.oldLabels[${cel(CONTROL_LABEL)}] == ${cel(CONTROL_LABEL_VALUE)})`,
            message: `podops may only write pods labelled ${CONTROL_LABEL}=${CONTROL_LABEL_VALUE}`,
            reason: 'Forbidden',
          },
          {
            expression: `!variables.isPod || request.operation != 'DELETE' || ${cel(TO_DELETE_LABEL)} in variables.oldLabels`,
            message: `podops may only delete pods labelled ${TO_DELETE_LABEL}`,
            reason: 'Forbidden',
          },
          {
            expression: podUpdate(`object.spec == oldObject.spec && ${same('object', 'oldObject', 'metadata.ownerReferences')} && ${same('object', 'oldObject', 'metadata.finalizers')}`),
            message: "podops may not change a pod's spec, owner references or finalizers",
            reason: 'Forbidden',
          },
          {
            expression: podUpdate(onlyKeysChange('variables.oldLabels', 'variables.newLabels', PROTOCOL_LABEL_KEYS)),
            message: `podops may only change the PodOpsLifecycle labels of a pod (${LIFECYCLE_DOMAIN} and ${TO_DELETE_LABEL})`,
            reason: 'Forbidden',
          },
          {
            expression: podUpdate(onlyKeysChange('variables.oldAnnotations', 'variables.newAnnotations', PROTOCOL_ANNOTATION_KEYS)),
            message: 'podops may only change the PodOpsLifecycle and PodTransitionRule annotations of a pod',
            reason: 'Forbidden',
          },
          {
            expression: podUpdate(`${serviceReadyFree('object')} == ${serviceReadyFree('oldObject')} && ${POD_STATUS_FIELDS.map((f) => `(${same('variables.newStatus', 'variables.oldStatus', f)})`).join(' && ')}`),
            message: `podops may only change the ${SERVICE_READY_GATE} condition of a pod's status`,
            reason: 'Forbidden',
          },
          {
            expression: `!variables.isEviction || !has(object.deleteOptions) || (${['gracePeriodSeconds', 'propagationPolicy', 'orphanDependents'].map((f) => `!has(object.deleteOptions.${f})`).join(' && ')})`,
            message: "podops may only evict a pod with its own grace period and propagation (an Eviction's deleteOptions may hold only preconditions and dryRun)",
            reason: 'Forbidden',
          },
          {
            expression: `!variables.isWebhookConfiguration || object.metadata.name in [${[WEBHOOK_NAMES.mutatingConfiguration, WEBHOOK_NAMES.validatingConfiguration].map(cel).join(', ')}]`,
            message: `podops may only change its own webhook configurations (${WEBHOOK_NAMES.mutatingConfiguration}, ${WEBHOOK_NAMES.validatingConfiguration})`,
            reason: 'Forbidden',
          },
          {
            expression: `!variables.isWebhookConfiguration || (has(object.webhooks) == has(oldObject.webhooks) && (!has(object.webhooks) || (object.webhooks.size() == oldObject.webhooks.size() && object.webhooks.all(w, oldObject.webhooks.exists(o, o.name == w.name && ${WEBHOOK_FIELDS.map((f) => `(${same('w', 'o', f)})`).join(' && ')})))))`,
            message: "podops may only change the caBundle of its webhook configurations' webhooks",
            reason: 'Forbidden',
          },
          {
            expression: `!variables.isWorkload || (${WORKLOAD_SPEC_FIELDS.map((f) => `(${same('object', 'oldObject', `spec.${f}`)})`).join(' && ')})`,
            message: "podops may only change a workload's rollout settings (paused, strategy, updateStrategy)",
            reason: 'Forbidden',
          },
          {
            expression: `!variables.isWorkload || ${cel(RL_WORKLOAD_LABEL)} in variables.oldLabels || ${cel(RL_USER_SETTINGS_ANNOTATION)} in variables.oldAnnotations || (${HOLD_FIELDS.map((f) => `(${same('object', 'oldObject', `spec.${f}`)})`).join(' && ')})`,
            message: `podops may only hold or release a workload labelled ${RL_WORKLOAD_LABEL} (or holding its stash ${RL_USER_SETTINGS_ANNOTATION})`,
            reason: 'Forbidden',
          },
          {
            expression: `!(variables.isWorkload || variables.isReplicaSet || variables.isPodopsResource) || (${same('object', 'oldObject', 'metadata.ownerReferences')} && ${sameListBut('object', 'oldObject', 'metadata.finalizers', PODOPS_FINALIZERS)})`,
            message: "podops may not change the owner references or the finalizers (but its own) of a workload, a ReplicaSet, a PodTransitionRule or a RolloutLifecycle",
            reason: 'Forbidden',
          },
          {
            expression: `!variables.isPodopsResource || ${same('object', 'oldObject', 'spec')}`,
            message: 'podops may not change the spec of a PodTransitionRule or a RolloutLifecycle',
            reason: 'Forbidden',
          },
          {
            expression: `!(variables.isWorkload || variables.isReplicaSet) || (${onlyKeysChange('variables.oldLabels', 'variables.newLabels', ROLLOUT_KEYS)} && (variables.isReplicaSet ? ${onlyKeysChange('variables.oldAnnotations', 'variables.newAnnotations', REPLICASET_ANNOTATION_KEYS)} : ${onlyKeysChange('variables.oldAnnotations', 'variables.newAnnotations', ROLLOUT_KEYS)}))`,
            message: `podops may only change the ${ROLLOUT_DOMAIN} labels and annotations of a workload or ReplicaSet, and a ReplicaSet's ${HELD_POD_DELETED_ANNOTATION} annotation`,
            reason: 'Forbidden',
          },
          {
            expression: `!variables.isReplicaSet || object.spec == oldObject.spec`,
            message: "podops may not change a ReplicaSet's spec",
            reason: 'Forbidden',
          },
          {
            expression: `!variables.isJob || (request.operation == 'CREATE' ? has(object.metadata.labels) && ${cel(RL_JOB_HOOK_LABEL)} in object.metadata.labels : ${cel(RL_JOB_HOOK_LABEL)} in variables.oldLabels)`,
            message: 'podops may only create, change or delete the Jobs of rollout hooks',
            reason: 'Forbidden',
          },
          {
            expression: `!variables.isJob || request.operation != 'UPDATE' || (${JOB_SPEC_FIELDS.map((f) => `(${same('object', 'oldObject', `spec.${f}`)})`).join(' && ')} && ${same('object', 'oldObject', 'metadata.labels')})`,
            message: 'podops may only suspend a hook Job',
            reason: 'Forbidden',
          },
        ],
      },
    },
    {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingAdmissionPolicyBinding',
      metadata: { name: ADMISSION_POLICY_NAME, labels },
      spec: { policyName: ADMISSION_POLICY_NAME, validationActions: ['Deny'] },
    },
  ];
}
