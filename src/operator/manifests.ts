// Everything needed to install podops in a cluster (the PodTransitionRule CRD included), as Kubernetes objects: `podops manifests` prints them and
// the Helm chart under deploy/ is checked against them. RBAC is least privilege: podops patches pods (labels
// and status, never spec), reads Services for the dirty expected-finalizer check, writes Events, and touches
// only its own Lease, Secret and webhook configurations.

import { podTransitionRuleCRD } from '../api/podtransitionrule.ts';
import { WEBHOOK_NAMES, serviceClientConfig, webhookConfigurations } from './webhook-configuration.ts';

export interface ManifestOptions {
  namespace: string;
  image: string;
  replicas: number;
  /** Passed as --feature-gates, e.g. `GraceDeleteWebhook=true`. */
  featureGates: string;
}

export const DEFAULT_MANIFEST_OPTIONS: ManifestOptions = {
  namespace: 'podops-system',
  image: 'podops:0.1.0',
  replicas: 2,
  featureGates: '',
};

const NAME = 'podops';
const WEBHOOK_SERVICE = 'podops-webhook';
const CERT_SECRET = 'podops-webhook-certs';
const labels = { 'app.kubernetes.io/name': NAME };

export function manifests(options: ManifestOptions = DEFAULT_MANIFEST_OPTIONS): Record<string, unknown>[] {
  const { namespace } = options;
  const meta = (name: string, namespaced = true) => ({ name, ...(namespaced && { namespace }), labels });
  const args = ['operator', '--leader-elect', `--webhook-secret=${CERT_SECRET}`, ...(options.featureGates ? [`--feature-gates=${options.featureGates}`] : [])];
  return [
    podTransitionRuleCRD(),
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace, labels } },
    { apiVersion: 'v1', kind: 'ServiceAccount', metadata: meta(NAME) },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: meta(NAME, false),
      rules: [
        { apiGroups: [''], resources: ['pods'], verbs: ['get', 'list', 'watch', 'patch', 'delete'] },
        { apiGroups: [''], resources: ['pods/status'], verbs: ['patch'] },
        { apiGroups: [''], resources: ['services'], verbs: ['get'] },
        { apiGroups: [''], resources: ['events'], verbs: ['create', 'patch'] },
        // Rules are read from the informer's cache only (list and watch); patch adds and removes the finalizer.
        { apiGroups: ['apps.kusionstack.io'], resources: ['podtransitionrules'], verbs: ['list', 'watch', 'patch'] },
        { apiGroups: ['apps.kusionstack.io'], resources: ['podtransitionrules/status'], verbs: ['update'] },
        {
          apiGroups: ['admissionregistration.k8s.io'],
          resources: ['mutatingwebhookconfigurations', 'validatingwebhookconfigurations'],
          resourceNames: [WEBHOOK_NAMES.mutatingConfiguration, WEBHOOK_NAMES.validatingConfiguration],
          verbs: ['get', 'update'],
        },
      ],
    },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: meta(NAME, false),
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: NAME },
      subjects: [{ kind: 'ServiceAccount', name: NAME, namespace }],
    },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'Role',
      metadata: meta(NAME),
      rules: [
        // create cannot be limited by name; get and update can.
        { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['create'] },
        { apiGroups: ['coordination.k8s.io'], resources: ['leases'], resourceNames: ['podops-leader'], verbs: ['get', 'update'] },
        { apiGroups: [''], resources: ['secrets'], verbs: ['create'] },
        { apiGroups: [''], resources: ['secrets'], resourceNames: [CERT_SECRET], verbs: ['get', 'update'] },
      ],
    },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: meta(NAME),
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: NAME },
      subjects: [{ kind: 'ServiceAccount', name: NAME, namespace }],
    },
    {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: meta(WEBHOOK_SERVICE),
      spec: { selector: labels, ports: [{ name: 'webhook', port: 443, targetPort: 'webhook', protocol: 'TCP' }] },
    },
    {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: meta(NAME),
      spec: {
        replicas: options.replicas,
        selector: { matchLabels: labels },
        template: {
          metadata: { labels },
          spec: {
            serviceAccountName: NAME,
            securityContext: { runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } },
            topologySpreadConstraints: [{ maxSkew: 1, topologyKey: 'kubernetes.io/hostname', whenUnsatisfiable: 'ScheduleAnyway', labelSelector: { matchLabels: labels } }],
            containers: [
              {
                name: NAME,
                image: options.image,
                args,
                env: [{ name: 'POD_NAMESPACE', valueFrom: { fieldRef: { fieldPath: 'metadata.namespace' } } }],
                ports: [
                  { name: 'webhook', containerPort: 9443, protocol: 'TCP' },
                  { name: 'metrics', containerPort: 8080, protocol: 'TCP' },
                  { name: 'health', containerPort: 8081, protocol: 'TCP' },
                ],
                livenessProbe: { httpGet: { path: '/healthz', port: 'health' }, periodSeconds: 10 },
                readinessProbe: { httpGet: { path: '/readyz', port: 'health' }, periodSeconds: 5 },
                resources: { requests: { cpu: '100m', memory: '128Mi' }, limits: { memory: '512Mi' } },
                securityContext: { allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: { drop: ['ALL'] } },
              },
            ],
            terminationGracePeriodSeconds: 30,
          },
        },
      },
    },
    {
      // The pod webhooks fail closed (failurePolicy Fail): keep one replica serving through node drains.
      apiVersion: 'policy/v1',
      kind: 'PodDisruptionBudget',
      metadata: meta(NAME),
      spec: { minAvailable: 1, selector: { matchLabels: labels } },
    },
    ...webhookConfigurations(serviceClientConfig(namespace, WEBHOOK_SERVICE)),
  ];
}
