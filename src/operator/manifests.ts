// Everything needed to install podops in a cluster (the PodTransitionRule CRD included), as Kubernetes objects: `podops manifests` prints them and
// the Helm chart under deploy/ is checked against them. RBAC is least privilege: podops patches pods (labels
// and status, never spec), reads Services for the dirty expected-finalizer check, writes Events, and touches
// only its own Lease, Secret and webhook configurations; a ValidatingAdmissionPolicy narrows its pod and
// webhook-configuration writes further than RBAC can. Optional: a NetworkPolicy admitting only the control
// plane to the webhook port, the API server's client certificate checked by the webhook server (with the
// CA in a Secret of the user's or of the manifests'), serving
// certificates from cert-manager instead of podops' own, and a ServiceMonitor for the Prometheus Operator.

import { podTransitionRuleCRD } from '../api/podtransitionrule.ts';
import { rolloutLifecycleCRD } from '../api/rolloutlifecycle.ts';
import { DEFAULT_EVICTION_ABANDONED_AFTER_SECONDS } from '../lifecycle/eviction.ts';
import { admissionPolicy } from './admission-policy.ts';
import { WEBHOOK_NAMES, serviceClientConfig, webhookConfigurations } from './webhook-configuration.ts';

export interface ManifestOptions {
  namespace: string;
  image: string;
  /** The container's imagePullPolicy; empty: Kubernetes' default (IfNotPresent, Always for `:latest`). */
  imagePullPolicy: string;
  /** Secrets of the namespace to pull the image with. */
  imagePullSecrets: readonly string[];
  replicas: number;
  /** The container's requests and limits; empty: none. */
  resources: Record<string, unknown>;
  /** Pod scheduling: each is left out of the pod spec when empty. */
  nodeSelector: Record<string, string>;
  tolerations: readonly Record<string, unknown>[];
  affinity: Record<string, unknown>;
  priorityClassName: string;
  /** Added to the pod template (the selector label `app.kubernetes.io/name` cannot be overridden). */
  podAnnotations: Record<string, string>;
  podLabels: Record<string, string>;
  /** --log-level: trace, debug, info, warn, error. */
  logLevel: string;
  /** --leader-elect-lease-duration, --leader-elect-renew-deadline, --leader-elect-retry-period (Go durations). */
  leaderElection: { leaseDuration: string; renewDeadline: string; retryPeriod: string };
  /** Passed as --feature-gates, e.g. `GraceDeleteWebhook=true`. */
  featureGates: string;
  /** --eviction-abandoned-after (a Go duration): a pod whose eviction nobody retried this long returns to service. */
  evictionAbandonedAfter: string;
  /**
   * failurePolicy of the webhooks that fail closed by design (pods, podops' resources, hooked workloads).
   * A webhook that fails open by design (the pod-eviction webhook: podops down must never block a drain)
   * stays Ignore whatever this says.
   */
  webhookFailurePolicy: 'Fail' | 'Ignore';
  /** timeoutSeconds of every webhook (1 to 30). */
  webhookTimeoutSeconds: number;
  /** Source CIDRs (the control plane's) admitted to the webhook port by a NetworkPolicy; none: no policy. */
  webhookSourceCIDRs: readonly string[];
  /** The ValidatingAdmissionPolicy that limits podops' ServiceAccount (Kubernetes 1.30+). */
  admissionPolicy: boolean;
  /**
   * A Secret whose `ca.crt` signs the API server's webhook client certificate: mounted and passed as
   * --webhook-client-ca-file, so only the API server is served. Empty: callers are not authenticated.
   */
  webhookClientCASecret: string;
  /**
   * The PEM of that CA, for the manifests to carry in a Secret of their own (`podops-webhook-client-ca`), which
   * is then the one mounted. `podops manifests --webhook-client-auth` makes the CA and the API server's side.
   */
  webhookClientCA: string;
  /** --webhook-client-names: accepted names of that certificate (comma list; empty accepts any). */
  webhookClientNames: string;
  /**
   * Serving certificates from cert-manager: a Certificate writes the serving Secret, which is mounted and
   * served with --cert-dir, and cert-manager's cainjector fills the webhook configurations' caBundle
   * (`cert-manager.io/inject-ca-from`). podops' own certificate management is off, and so are its rights to
   * Secrets and to its webhook configurations.
   */
  certManager: boolean;
  /** With certManager: the issuer of the serving certificate; empty: a self-signed CA and an Issuer of it. */
  certManagerIssuerRef: Record<string, string>;
  /** A metrics Service and a Prometheus Operator ServiceMonitor scraping it. */
  serviceMonitor: boolean;
  /** The ServiceMonitor's scrape interval (e.g. `30s`); empty: Prometheus' default. */
  serviceMonitorInterval: string;
  /** Labels of the ServiceMonitor, e.g. what the Prometheus' serviceMonitorSelector picks. */
  serviceMonitorLabels: Record<string, string>;
  /** The PodDisruptionBudget keeping one replica through drains. */
  podDisruptionBudget: boolean;
}

export const DEFAULT_MANIFEST_OPTIONS: ManifestOptions = {
  namespace: 'podops-system',
  image: 'podops:0.1.0',
  imagePullPolicy: '',
  imagePullSecrets: [],
  replicas: 2,
  resources: { requests: { cpu: '100m', memory: '128Mi' }, limits: { memory: '512Mi' } },
  nodeSelector: {},
  tolerations: [],
  affinity: {},
  priorityClassName: '',
  podAnnotations: {},
  podLabels: {},
  logLevel: 'info',
  leaderElection: { leaseDuration: '15s', renewDeadline: '10s', retryPeriod: '2s' },
  featureGates: '',
  evictionAbandonedAfter: `${DEFAULT_EVICTION_ABANDONED_AFTER_SECONDS}s`,
  webhookFailurePolicy: 'Fail',
  webhookTimeoutSeconds: 5,
  webhookSourceCIDRs: [],
  admissionPolicy: true,
  webhookClientCASecret: '',
  webhookClientCA: '',
  webhookClientNames: '',
  certManager: false,
  certManagerIssuerRef: {},
  serviceMonitor: false,
  serviceMonitorInterval: '',
  serviceMonitorLabels: {},
  podDisruptionBudget: true,
};

const NAME = 'podops';
const WEBHOOK_SERVICE = 'podops-webhook';
const METRICS_SERVICE = 'podops-metrics';
const CERT_SECRET = 'podops-webhook-certs';
export const WEBHOOK_CLIENT_CA_VOLUME = 'webhook-client-ca';
/** The Secret the manifests make of `webhookClientCA`. */
export const WEBHOOK_CLIENT_CA_SECRET = 'podops-webhook-client-ca';
/** The host the API server calls for the webhook Service: the name of its client certificate's kubeconfig user. */
export const webhookServiceHost = (namespace: string): string => `${WEBHOOK_SERVICE}.${namespace}.svc`;
const WEBHOOK_CLIENT_CA_DIR = '/etc/podops/webhook-client-ca';
/** cert-manager mode: the serving Certificate, its Secret (not the self-managed one: the two never share it), the CA. */
export const CERT_MANAGER_NAMES = {
  certificate: 'podops-webhook',
  secret: 'podops-webhook-tls',
  selfSignedIssuer: 'podops-selfsigned',
  caCertificate: 'podops-webhook-ca',
  caSecret: 'podops-webhook-ca',
  caIssuer: 'podops-webhook-ca',
} as const;
export const WEBHOOK_CERTS_VOLUME = 'webhook-certs';
const WEBHOOK_CERTS_DIR = '/etc/podops/webhook-certs';
const labels = { 'app.kubernetes.io/name': NAME };
const metricsLabels = { ...labels, 'app.kubernetes.io/component': 'metrics' };
const WEBHOOK_PORT = 9443;
const METRICS_PORT = 8080;
const HEALTH_PORT = 8081;

const isEmpty = (value: object): boolean => Object.keys(value).length === 0;

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

/**
 * The serving Certificate (what the self-managed one is: ECDSA P-256, a year, renewed 30 days before, for the
 * webhook Service's names) and, without an issuer of the user's, a CA of ten years to sign it: the caBundle
 * is the CA, so it stays when the serving certificate is renewed and no replica ever serves one the API
 * server does not trust yet.
 */
function certManagerObjects(namespace: string, issuerRef: Record<string, string>): Record<string, unknown>[] {
  const n = CERT_MANAGER_NAMES;
  const meta = (name: string) => ({ name, namespace, labels });
  const own = isEmpty(issuerRef);
  const privateKey = { algorithm: 'ECDSA', size: 256, rotationPolicy: 'Always' };
  return [
    ...(own
      ? [
          { apiVersion: 'cert-manager.io/v1', kind: 'Issuer', metadata: meta(n.selfSignedIssuer), spec: { selfSigned: {} } },
          {
            apiVersion: 'cert-manager.io/v1',
            kind: 'Certificate',
            metadata: meta(n.caCertificate),
            spec: {
              isCA: true,
              commonName: n.caCertificate,
              secretName: n.caSecret,
              duration: '87600h',
              renewBefore: '720h',
              privateKey,
              issuerRef: { name: n.selfSignedIssuer, kind: 'Issuer', group: 'cert-manager.io' },
            },
          },
          { apiVersion: 'cert-manager.io/v1', kind: 'Issuer', metadata: meta(n.caIssuer), spec: { ca: { secretName: n.caSecret } } },
        ]
      : []),
    {
      apiVersion: 'cert-manager.io/v1',
      kind: 'Certificate',
      metadata: meta(n.certificate),
      spec: {
        secretName: n.secret,
        dnsNames: [`${WEBHOOK_SERVICE}.${namespace}.svc`, `${WEBHOOK_SERVICE}.${namespace}.svc.cluster.local`],
        duration: '8760h',
        renewBefore: '720h',
        privateKey,
        usages: ['digital signature', 'key encipherment', 'server auth'],
        issuerRef: own ? { name: n.caIssuer, kind: 'Issuer', group: 'cert-manager.io' } : issuerRef,
      },
    },
  ];
}

/** A Service for the metrics port and a ServiceMonitor (Prometheus Operator) scraping it on every replica. */
function serviceMonitorObjects(namespace: string, options: ManifestOptions): Record<string, unknown>[] {
  return [
    {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: METRICS_SERVICE, namespace, labels: metricsLabels },
      spec: { selector: labels, ports: [{ name: 'metrics', port: METRICS_PORT, targetPort: 'metrics', protocol: 'TCP' }] },
    },
    {
      apiVersion: 'monitoring.coreos.com/v1',
      kind: 'ServiceMonitor',
      metadata: { name: NAME, namespace, labels: { ...options.serviceMonitorLabels, ...labels } },
      spec: {
        selector: { matchLabels: metricsLabels },
        endpoints: [{ port: 'metrics', path: '/metrics', ...(options.serviceMonitorInterval && { interval: options.serviceMonitorInterval }) }],
      },
    },
  ];
}

/**
 * The webhook configurations with the configured failurePolicy and timeout. Only webhooks that fail closed by
 * design take the policy: one that fails open (the pod-eviction webhook) must never block what it sees.
 * With cert-manager, its cainjector writes their caBundle.
 */
function configuredWebhooks(namespace: string, options: ManifestOptions): Record<string, unknown>[] {
  return webhookConfigurations(serviceClientConfig(namespace, WEBHOOK_SERVICE)).map((configuration) => {
    const metadata = configuration.metadata as Record<string, unknown>;
    const webhooks = configuration.webhooks as Record<string, unknown>[];
    return {
      ...configuration,
      metadata: { ...metadata, ...(options.certManager && { annotations: { 'cert-manager.io/inject-ca-from': `${namespace}/${CERT_MANAGER_NAMES.certificate}` } }) },
      webhooks: webhooks.map((webhook) => ({
        ...webhook,
        failurePolicy: webhook.failurePolicy === 'Ignore' ? 'Ignore' : options.webhookFailurePolicy,
        timeoutSeconds: options.webhookTimeoutSeconds,
      })),
    };
  });
}

export function manifests(options: ManifestOptions = DEFAULT_MANIFEST_OPTIONS): Record<string, unknown>[] {
  const { namespace } = options;
  const meta = (name: string, namespaced = true) => ({ name, ...(namespaced && { namespace }), labels });
  // A Secret named by the user, else the one made of the CA the manifests carry.
  const clientCA = options.webhookClientCASecret || (options.webhookClientCA && WEBHOOK_CLIENT_CA_SECRET);
  const { leaderElection } = options;
  const args = [
    'operator',
    '--leader-elect',
    `--leader-elect-lease-duration=${leaderElection.leaseDuration}`,
    `--leader-elect-renew-deadline=${leaderElection.renewDeadline}`,
    `--leader-elect-retry-period=${leaderElection.retryPeriod}`,
    `--log-level=${options.logLevel}`,
    `--eviction-abandoned-after=${options.evictionAbandonedAfter}`,
    // cert-manager's certificate, mounted; otherwise podops keeps its own in a Secret.
    options.certManager ? `--cert-dir=${WEBHOOK_CERTS_DIR}` : `--webhook-secret=${CERT_SECRET}`,
    ...(options.featureGates ? [`--feature-gates=${options.featureGates}`] : []),
    ...(clientCA ? [`--webhook-client-ca-file=${WEBHOOK_CLIENT_CA_DIR}/ca.crt`] : []),
    ...(clientCA && options.webhookClientNames ? [`--webhook-client-names=${options.webhookClientNames}`] : []),
  ];
  const volumeMounts = [
    ...(clientCA ? [{ name: WEBHOOK_CLIENT_CA_VOLUME, mountPath: WEBHOOK_CLIENT_CA_DIR, readOnly: true }] : []),
    ...(options.certManager ? [{ name: WEBHOOK_CERTS_VOLUME, mountPath: WEBHOOK_CERTS_DIR, readOnly: true }] : []),
  ];
  const volumes = [
    ...(clientCA ? [{ name: WEBHOOK_CLIENT_CA_VOLUME, secret: { secretName: clientCA } }] : []),
    ...(options.certManager ? [{ name: WEBHOOK_CERTS_VOLUME, secret: { secretName: CERT_MANAGER_NAMES.secret } }] : []),
  ];
  // Self-managed certificates only: podops writes its Secret and the caBundle of its webhook configurations.
  const selfManaged = !options.certManager;
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
        // Every read of a decision is from a shared informer cache (list and watch): controlled pods, ReplicaSets,
        // Deployments, StatefulSets, Nodes, PodDisruptionBudgets, Services. A live get only where the cache cannot
        // know yet: a pod or an owner named by uid that it does not hold, a node a drain may have just cordoned.
        { apiGroups: [''], resources: ['pods'], verbs: ['get', 'list', 'watch', 'patch', 'delete'] },
        { apiGroups: [''], resources: ['pods/status'], verbs: ['patch'] },
        { apiGroups: [''], resources: ['services'], verbs: ['list', 'watch'] },
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
        // Graceful evictions: a pod leaves service for an eviction only while its budgets have room, and only
        // when its node is being emptied (cordoned or tainted) unless the API server is authenticated.
        { apiGroups: ['policy'], resources: ['poddisruptionbudgets'], verbs: ['list', 'watch'] },
        { apiGroups: [''], resources: ['nodes'], verbs: ['get', 'list', 'watch'] },
        ...(selfManaged
          ? [
              {
                apiGroups: ['admissionregistration.k8s.io'],
                resources: ['mutatingwebhookconfigurations', 'validatingwebhookconfigurations'],
                resourceNames: [WEBHOOK_NAMES.mutatingConfiguration, WEBHOOK_NAMES.validatingConfiguration],
                verbs: ['get', 'update'],
              },
            ]
          : []),
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
        ...(selfManaged
          ? [
              { apiGroups: [''], resources: ['secrets'], verbs: ['create'] },
              { apiGroups: [''], resources: ['secrets'], resourceNames: [CERT_SECRET], verbs: ['get', 'update'] },
            ]
          : []),
      ],
    },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: meta(NAME),
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: NAME },
      subjects: [{ kind: 'ServiceAccount', name: NAME, namespace }],
    },
    ...(options.webhookClientCA
      ? [{ apiVersion: 'v1', kind: 'Secret', metadata: meta(WEBHOOK_CLIENT_CA_SECRET), type: 'Opaque', stringData: { 'ca.crt': options.webhookClientCA } }]
      : []),
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
          metadata: {
            labels: { ...options.podLabels, ...labels },
            ...(!isEmpty(options.podAnnotations) && { annotations: options.podAnnotations }),
          },
          spec: {
            serviceAccountName: NAME,
            ...(options.priorityClassName && { priorityClassName: options.priorityClassName }),
            ...(options.imagePullSecrets.length > 0 && { imagePullSecrets: options.imagePullSecrets.map((name) => ({ name })) }),
            securityContext: { runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } },
            ...(!isEmpty(options.nodeSelector) && { nodeSelector: options.nodeSelector }),
            ...(!isEmpty(options.affinity) && { affinity: options.affinity }),
            ...(options.tolerations.length > 0 && { tolerations: options.tolerations }),
            topologySpreadConstraints: [{ maxSkew: 1, topologyKey: 'kubernetes.io/hostname', whenUnsatisfiable: 'ScheduleAnyway', labelSelector: { matchLabels: labels } }],
            containers: [
              {
                name: NAME,
                image: options.image,
                ...(options.imagePullPolicy && { imagePullPolicy: options.imagePullPolicy }),
                args,
                env: [{ name: 'POD_NAMESPACE', valueFrom: { fieldRef: { fieldPath: 'metadata.namespace' } } }],
                ports: [
                  { name: 'webhook', containerPort: WEBHOOK_PORT, protocol: 'TCP' },
                  { name: 'metrics', containerPort: METRICS_PORT, protocol: 'TCP' },
                  { name: 'health', containerPort: HEALTH_PORT, protocol: 'TCP' },
                ],
                ...(volumeMounts.length > 0 && { volumeMounts }),
                livenessProbe: { httpGet: { path: '/healthz', port: 'health' }, periodSeconds: 10 },
                readinessProbe: { httpGet: { path: '/readyz', port: 'health' }, periodSeconds: 5 },
                ...(!isEmpty(options.resources) && { resources: options.resources }),
                securityContext: { allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: { drop: ['ALL'] } },
              },
            ],
            ...(volumes.length > 0 && { volumes }),
            terminationGracePeriodSeconds: 30,
          },
        },
      },
    },
    ...(options.podDisruptionBudget
      ? [
          {
            // The pod webhooks fail closed (failurePolicy Fail): keep one replica serving through node drains.
            apiVersion: 'policy/v1',
            kind: 'PodDisruptionBudget',
            metadata: meta(NAME),
            spec: { minAvailable: 1, selector: { matchLabels: labels } },
          },
        ]
      : []),
    ...(options.webhookSourceCIDRs.length > 0 ? [webhookNetworkPolicy(namespace, options.webhookSourceCIDRs)] : []),
    ...(options.serviceMonitor ? serviceMonitorObjects(namespace, options) : []),
    ...(options.certManager ? certManagerObjects(namespace, options.certManagerIssuerRef) : []),
    ...(options.admissionPolicy ? admissionPolicy(namespace, NAME, labels) : []),
    ...configuredWebhooks(namespace, options),
  ];
}
