// Everything needed to install podops in a cluster (the PodTransitionRule CRD included), as Kubernetes objects: `podops manifests` prints them and
// the Helm chart under deploy/ is checked against them. RBAC is least privilege: podops patches pods (labels
// and status, never spec), reads Services for the dirty expected-finalizer check, writes Events, and touches
// only its own Lease, Secret and webhook configurations; a ValidatingAdmissionPolicy narrows its pod and
// webhook-configuration writes further than RBAC can. Optional: a NetworkPolicy admitting only the control
// plane to the webhook port, and the API server's client certificate checked by the webhook server.

import { podTransitionRuleCRD } from '../api/podtransitionrule.ts';
import { rolloutLifecycleCRD } from '../api/rolloutlifecycle.ts';
import { admissionPolicy } from './admission-policy.ts';
import { WEBHOOK_NAMES, serviceClientConfig, webhookConfigurations } from './webhook-configuration.ts';

export interface ManifestOptions {
  namespace: string;
  image: string;
  replicas: number;
  /** Passed as --feature-gates, e.g. `GraceDeleteWebhook=true`. */
  featureGates: string;
  /** Source CIDRs (the control plane's) admitted to the webhook port by a NetworkPolicy; none: no policy. */
  webhookSourceCIDRs: readonly string[];
  /** The ValidatingAdmissionPolicy that limits podops' ServiceAccount (Kubernetes 1.30+). */
  admissionPolicy: boolean;
  /**
   * A Secret whose `ca.crt` signs the API server's webhook client certificate: mounted and passed as
   * --webhook-client-ca-file, so only the API server is served. Empty: callers are not authenticated.
   */
  webhookClientCASecret: string;
  /** --webhook-client-names: accepted names of that certificate (comma list; empty accepts any). */
  webhookClientNames: string;
}

export const DEFAULT_MANIFEST_OPTIONS: ManifestOptions = {
  namespace: 'podops-system',
  image: 'podops:0.1.0',
  replicas: 2,
  featureGates: '',
  webhookSourceCIDRs: [],
  admissionPolicy: true,
  webhookClientCASecret: '',
  webhookClientNames: '',
};

const NAME = 'podops';
const WEBHOOK_SERVICE = 'podops-webhook';
const CERT_SECRET = 'podops-webhook-certs';
export const WEBHOOK_CLIENT_CA_VOLUME = 'webhook-client-ca';
const WEBHOOK_CLIENT_CA_DIR = '/etc/podops/webhook-client-ca';
const labels = { 'app.kubernetes.io/name': NAME };
const WEBHOOK_PORT = 9443;
const METRICS_PORT = 8080;
const HEALTH_PORT = 8081;

/** Ingress to the webhook port only from the given CIDRs; metrics and probes from anywhere. */
function webhookNetworkPolicy(namespace: string, cidrs: readonly string[]): Record<string, unknown> {
  return {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'NetworkPolicy',
    metadata: { name: WEBHOOK_SERVICE, namespace, labels },
    spec: {
      podSelector: { matchLabels: labels },
      policyTypes: ['Ingress'],
      ingress: [
        { from: cidrs.map((cidr) => ({ ipBlock: { cidr } })), ports: [{ protocol: 'TCP', port: WEBHOOK_PORT }] },
        { ports: [{ protocol: 'TCP', port: METRICS_PORT }, { protocol: 'TCP', port: HEALTH_PORT }] },
      ],
    },
  };
}

export function manifests(options: ManifestOptions = DEFAULT_MANIFEST_OPTIONS): Record<string, unknown>[] {
  const { namespace } = options;
  const meta = (name: string, namespaced = true) => ({ name, ...(namespaced && { namespace }), labels });
  const clientCA = options.webhookClientCASecret;
  const args = [
    'operator',
    '--leader-elect',
    `--webhook-secret=${CERT_SECRET}`,
    ...(options.featureGates ? [`--feature-gates=${options.featureGates}`] : []),
    ...(clientCA ? [`--webhook-client-ca-file=${WEBHOOK_CLIENT_CA_DIR}/ca.crt`] : []),
    ...(clientCA && options.webhookClientNames ? [`--webhook-client-names=${options.webhookClientNames}`] : []),
  ];
  return [
    podTransitionRuleCRD(),
    rolloutLifecycleCRD(),
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
        // Rollout hooks: the RolloutLifecycles (from the cache; patch for the finalizer and the retry
        // annotation), the workloads they target (labelled ones cached; patch holds and releases them), their
        // revisions (read when a template changes), hook Jobs, and evictions of a held DaemonSet's old pods.
        { apiGroups: ['apps.kusionstack.io'], resources: ['rolloutlifecycles'], verbs: ['list', 'watch', 'patch'] },
        { apiGroups: ['apps.kusionstack.io'], resources: ['rolloutlifecycles/status'], verbs: ['patch'] },
        { apiGroups: ['apps'], resources: ['deployments', 'statefulsets', 'daemonsets'], verbs: ['get', 'list', 'watch', 'patch'] },
        { apiGroups: ['apps'], resources: ['replicasets'], verbs: ['get', 'list', 'watch', 'patch'] },
        { apiGroups: ['apps'], resources: ['controllerrevisions'], verbs: ['list'] },
        { apiGroups: ['batch'], resources: ['jobs'], verbs: ['get', 'list', 'watch', 'create', 'patch', 'delete'] },
        // A RolloutLifecycle's new hooks are admitted only from a user who may create Jobs in its namespace.
        { apiGroups: ['authorization.k8s.io'], resources: ['subjectaccessreviews'], verbs: ['create'] },
        { apiGroups: [''], resources: ['pods/eviction'], verbs: ['create'] },
        // Graceful evictions: a pod leaves service for an eviction only while its budgets have room.
        { apiGroups: ['policy'], resources: ['poddisruptionbudgets'], verbs: ['list'] },
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
                  { name: 'webhook', containerPort: WEBHOOK_PORT, protocol: 'TCP' },
                  { name: 'metrics', containerPort: METRICS_PORT, protocol: 'TCP' },
                  { name: 'health', containerPort: HEALTH_PORT, protocol: 'TCP' },
                ],
                ...(clientCA && { volumeMounts: [{ name: WEBHOOK_CLIENT_CA_VOLUME, mountPath: WEBHOOK_CLIENT_CA_DIR, readOnly: true }] }),
                livenessProbe: { httpGet: { path: '/healthz', port: 'health' }, periodSeconds: 10 },
                readinessProbe: { httpGet: { path: '/readyz', port: 'health' }, periodSeconds: 5 },
                resources: { requests: { cpu: '100m', memory: '128Mi' }, limits: { memory: '512Mi' } },
                securityContext: { allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: { drop: ['ALL'] } },
              },
            ],
            ...(clientCA && { volumes: [{ name: WEBHOOK_CLIENT_CA_VOLUME, secret: { secretName: clientCA } }] }),
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
    ...(options.webhookSourceCIDRs.length > 0 ? [webhookNetworkPolicy(namespace, options.webhookSourceCIDRs)] : []),
    ...(options.admissionPolicy ? admissionPolicy(namespace, NAME, labels) : []),
    ...webhookConfigurations(serviceClientConfig(namespace, WEBHOOK_SERVICE)),
  ];
}
