// podops' Mutating/ValidatingWebhookConfigurations. The webhook names are Kuperator's, so denials read the
// same (`admission webhook "validating-pod.apps.kusionstack.io" denied the request: ...`); only pods labelled
// kusionstack.io/control=true are sent (objectSelector), so every other pod is untouched even when podops
// is down.

import { CONTROL_LABEL, CONTROL_LABEL_VALUE } from '../api/protocol.ts';
import { RL_WORKLOAD_LABEL } from '../api/rolloutlifecycle.ts';

export const WEBHOOK_NAMES = {
  mutatingConfiguration: 'podops-mutating',
  validatingConfiguration: 'podops-validating',
  mutatingPod: 'mutating-pod.apps.kusionstack.io',
  validatingPod: 'validating-pod.apps.kusionstack.io',
  mutatingGeneric: 'mutating-generic.apps.kusionstack.io',
  mutatingWorkload: 'mutating-rollout-workload.apps.kusionstack.io',
  validatingGeneric: 'validating-generic.apps.kusionstack.io',
  validatingEviction: 'validating-pod-eviction.apps.kusionstack.io',
} as const;

/** podops' own resources (PodTransitionRule, RolloutLifecycle): defaulted and validated on every write of their spec. */
const kusionstackRules = [{ operations: ['CREATE', 'UPDATE'], apiGroups: ['apps.kusionstack.io'], apiVersions: ['v1alpha1'], resources: ['podtransitionrules', 'rolloutlifecycles'], scope: 'Namespaced' }];

/**
 * Only workloads podops labelled for a RolloutLifecycle: their template changes are held. Every other workload
 * is untouched, even when podops is down; a labelled one fails closed, so no hooked rollout runs un-held.
 */
const hookedWorkloads = { matchExpressions: [{ key: RL_WORKLOAD_LABEL, operator: 'Exists' }] };

export type ClientConfigFor = (path: string) => Record<string, unknown>;

/** In a cluster: the webhook Service (port 443 to the server's 9443). */
export const serviceClientConfig = (namespace: string, name: string): ClientConfigFor => (path) => ({ service: { namespace, name, path, port: 443 } });

/** Outside a cluster (the sandbox, a laptop): a URL. */
export const urlClientConfig = (baseUrl: string): ClientConfigFor => (path) => ({ url: `${baseUrl.replace(/\/$/, '')}${path}` });

const controlledPods = { matchExpressions: [{ key: CONTROL_LABEL, operator: 'In', values: [CONTROL_LABEL_VALUE] }] };

export function webhookConfigurations(clientConfig: ClientConfigFor, caBundle?: string): Record<string, unknown>[] {
  const common = {
    admissionReviewVersions: ['v1'],
    // Only GraceDelete and the eviction webhook write (they mark the pod they refuse), never on a dry run.
    sideEffects: 'None',
    failurePolicy: 'Fail',
    timeoutSeconds: 5,
    matchPolicy: 'Equivalent',
    objectSelector: controlledPods,
  };
  const config = (path: string) => ({ ...clientConfig(path), ...(caBundle && { caBundle }) });
  return [
    {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'MutatingWebhookConfiguration',
      metadata: { name: WEBHOOK_NAMES.mutatingConfiguration, labels: { 'app.kubernetes.io/name': 'podops' } },
      webhooks: [
        {
          name: WEBHOOK_NAMES.mutatingPod,
          clientConfig: config('/mutating-generic'),
          rules: [{ operations: ['CREATE', 'UPDATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods', 'pods/status'], scope: 'Namespaced' }],
          reinvocationPolicy: 'IfNeeded',
          ...common,
        },
        {
          name: WEBHOOK_NAMES.mutatingGeneric,
          clientConfig: config('/mutating-generic'),
          rules: kusionstackRules,
          ...common,
          objectSelector: {},
        },
        {
          name: WEBHOOK_NAMES.mutatingWorkload,
          clientConfig: config('/mutating-generic'),
          rules: [{ operations: ['UPDATE'], apiGroups: ['apps'], apiVersions: ['v1'], resources: ['deployments', 'statefulsets', 'daemonsets'], scope: 'Namespaced' }],
          ...common,
          objectSelector: hookedWorkloads,
          // The API server asks again when a later webhook changed the object (a template change is held then).
          reinvocationPolicy: 'IfNeeded',
        },
      ],
    },
    {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingWebhookConfiguration',
      metadata: { name: WEBHOOK_NAMES.validatingConfiguration, labels: { 'app.kubernetes.io/name': 'podops' } },
      webhooks: [
        {
          name: WEBHOOK_NAMES.validatingPod,
          clientConfig: config('/validating-generic'),
          rules: [{ operations: ['CREATE', 'UPDATE', 'DELETE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'], scope: 'Namespaced' }],
          ...common,
          sideEffects: 'NoneOnDryRun',
        },
        {
          name: WEBHOOK_NAMES.validatingGeneric,
          clientConfig: config('/validating-generic'),
          rules: kusionstackRules,
          ...common,
          objectSelector: {},
        },
        {
          // The object of an eviction is the Eviction, without the pod's labels: no objectSelector can pick
          // controlled pods, so every eviction comes here. Ignore: podops down never blocks a drain.
          name: WEBHOOK_NAMES.validatingEviction,
          clientConfig: config('/validating-generic'),
          rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods/eviction'], scope: 'Namespaced' }],
          ...common,
          objectSelector: {},
          failurePolicy: 'Ignore',
          sideEffects: 'NoneOnDryRun',
        },
      ],
    },
  ];
}
