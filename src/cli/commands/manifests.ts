// `podops manifests`: the objects that install podops in a cluster, as YAML.

import { isIP } from 'node:net';
import { stringify } from 'yaml';
import { parseFeatureGates } from '../../operator/feature-gates.ts';
import { DEFAULT_MANIFEST_OPTIONS, manifests, webhookServiceHost } from '../../operator/manifests.ts';
import { DEFAULT_APISERVER_CONFIG_DIR, WEBHOOK_CLIENT_FILES, WEBHOOK_CLIENT_NAME, writeWebhookClientAuth } from '../../operator/webhook-client-auth.ts';
import { UsageError, durationFlag, optionsHelp, parseCommandArgs, type Command } from '../command.ts';

const usage = `Usage: podops manifests [options] | kubectl apply -f -

Prints the Namespace, RBAC, webhook Service, Deployment, PodDisruptionBudget, admission policy and webhook
configurations that install podops (the Helm chart in deploy/helm/podops renders the same objects, and offers
the pod's resources, scheduling, annotations and labels besides).

Options:
${optionsHelp([
  ['--namespace NS', `the namespace to install podops in (default ${DEFAULT_MANIFEST_OPTIONS.namespace})`],
  ['--image IMAGE', `the operator's image (default ${DEFAULT_MANIFEST_OPTIONS.image};`, 'build it with the Dockerfile at the repository root)'],
  ['--replicas N', `operator replicas (default ${DEFAULT_MANIFEST_OPTIONS.replicas}; they elect a leader, all serve webhooks)`],
  ['--feature-gates LIST', 'feature gates as NAME=true|false pairs, e.g. GraceDeleteWebhook=true'],
  ['--eviction-abandoned-after D', 'passed to the operator: a pod whose eviction nobody retried this long returns', `to service (default ${DEFAULT_MANIFEST_OPTIONS.evictionAbandonedAfter})`],
  ['--webhook-source-cidrs LIST', "add a NetworkPolicy admitting only these CIDRs (the control plane's) to the", 'webhook port; metrics and probes stay open'],
  ['--no-admission-policy', "leave out the ValidatingAdmissionPolicy that limits podops' ServiceAccount", '(needed before Kubernetes 1.30)'],
  ['--webhook-client-auth DIR', "only the API server is served: writes to DIR what kube-apiserver needs to present a", 'client certificate to the webhooks (an AdmissionConfiguration, its kubeconfig) and the CA', "that issued it, and prints the manifests with that CA; run again, it keeps what is not due"],
  ['--apiserver-config-dir PATH', `with --webhook-client-auth: where the files will be on the control-plane nodes`, `(default ${DEFAULT_APISERVER_CONFIG_DIR})`],
  ['--webhook-client-ca-secret NAME', "a Secret in --namespace whose ca.crt signs the API server's webhook client", 'certificate: only callers presenting such a certificate are served'],
  ['--webhook-client-names LIST', 'with --webhook-client-ca-secret: the accepted names of that certificate'],
  ['--image-pull-policy POLICY', "Always, IfNotPresent or Never (default: Kubernetes')"],
  ['--image-pull-secrets LIST', 'Secrets of --namespace to pull the image with'],
  ['--priority-class-name NAME', "the operator pods' PriorityClass"],
  ['--log-level LEVEL', `the operator's: trace, debug, info, warn or error (default ${DEFAULT_MANIFEST_OPTIONS.logLevel})`],
  ['--leader-elect-lease-duration D', `passed to the operator: how long a silent leader keeps the lease (default ${DEFAULT_MANIFEST_OPTIONS.leaderElection.leaseDuration})`],
  ['--leader-elect-renew-deadline D', `passed to the operator: how long the leader tries to renew before stepping down (default ${DEFAULT_MANIFEST_OPTIONS.leaderElection.renewDeadline})`],
  ['--leader-elect-retry-period D', `passed to the operator: the wait between attempts (default ${DEFAULT_MANIFEST_OPTIONS.leaderElection.retryPeriod})`],
  ['--webhook-failure-policy POLICY', "Fail (default) or Ignore, of the webhooks that fail closed by design (pods, podops'", 'resources, hooked workloads); the pod-eviction webhook stays Ignore'],
  ['--webhook-timeout-seconds N', `of every webhook, 1 to 30 (default ${DEFAULT_MANIFEST_OPTIONS.webhookTimeoutSeconds})`],
  ['--cert-manager', "serving certificates from cert-manager (a Certificate; its cainjector writes the caBundle)", "instead of podops' own; podops gets no rights to Secrets or its webhook configurations"],
  ['--cert-manager-issuer KIND/NAME', 'with --cert-manager: the Issuer or ClusterIssuer of the serving certificate', '(default: a self-signed CA and an Issuer of it)'],
  ['--service-monitor', 'add a metrics Service and a Prometheus Operator ServiceMonitor'],
  ['--service-monitor-interval D', "with --service-monitor: the scrape interval (default: Prometheus')"],
  ['--no-pod-disruption-budget', 'leave out the PodDisruptionBudget (minAvailable 1, which blocks drains with one replica)'],
])}`;

const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error'];

function isCidr(text: string): boolean {
  const slash = text.lastIndexOf('/');
  const version = isIP(text.slice(0, slash));
  const bits = Number(text.slice(slash + 1));
  return slash > 0 && version !== 0 && /^\d+$/.test(text.slice(slash + 1)) && bits <= (version === 4 ? 32 : 128);
}

export const manifestsCommand: Command = {
  usage,
  async run(args, io) {
    const { values } = parseCommandArgs({
      args,
      options: {
        namespace: { type: 'string', default: DEFAULT_MANIFEST_OPTIONS.namespace },
        image: { type: 'string', default: DEFAULT_MANIFEST_OPTIONS.image },
        'image-pull-policy': { type: 'string', default: DEFAULT_MANIFEST_OPTIONS.imagePullPolicy },
        'image-pull-secrets': { type: 'string', default: '' },
        replicas: { type: 'string', default: String(DEFAULT_MANIFEST_OPTIONS.replicas) },
        'priority-class-name': { type: 'string', default: DEFAULT_MANIFEST_OPTIONS.priorityClassName },
        'log-level': { type: 'string', default: DEFAULT_MANIFEST_OPTIONS.logLevel },
        'leader-elect-lease-duration': { type: 'string', default: DEFAULT_MANIFEST_OPTIONS.leaderElection.leaseDuration },
        'leader-elect-renew-deadline': { type: 'string', default: DEFAULT_MANIFEST_OPTIONS.leaderElection.renewDeadline },
        'leader-elect-retry-period': { type: 'string', default: DEFAULT_MANIFEST_OPTIONS.leaderElection.retryPeriod },
        'feature-gates': { type: 'string', default: '' },
        'eviction-abandoned-after': { type: 'string', default: DEFAULT_MANIFEST_OPTIONS.evictionAbandonedAfter },
        'webhook-failure-policy': { type: 'string', default: DEFAULT_MANIFEST_OPTIONS.webhookFailurePolicy },
        'webhook-timeout-seconds': { type: 'string', default: String(DEFAULT_MANIFEST_OPTIONS.webhookTimeoutSeconds) },
        'webhook-source-cidrs': { type: 'string', default: '' },
        'no-admission-policy': { type: 'boolean', default: false },
        'webhook-client-auth': { type: 'string', default: '' },
        'apiserver-config-dir': { type: 'string', default: DEFAULT_APISERVER_CONFIG_DIR },
        'webhook-client-ca-secret': { type: 'string', default: '' },
        'webhook-client-names': { type: 'string', default: '' },
        'cert-manager': { type: 'boolean', default: false },
        'cert-manager-issuer': { type: 'string', default: '' },
        'service-monitor': { type: 'boolean', default: false },
        'service-monitor-interval': { type: 'string', default: '' },
        'no-pod-disruption-budget': { type: 'boolean', default: false },
      },
    });
    try {
      parseFeatureGates(values['feature-gates']);
    } catch (err) {
      throw new UsageError((err as Error).message);
    }
    const replicas = Number(values.replicas);
    if (!Number.isInteger(replicas) || replicas < 1) throw new UsageError(`--replicas must be a positive integer, got "${values.replicas}"`);
    if (!/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(values.namespace)) throw new UsageError(`--namespace "${values.namespace}" is not a valid namespace name`);
    const cidrs = values['webhook-source-cidrs'].split(',').map((c) => c.trim()).filter(Boolean);
    for (const cidr of cidrs) if (!isCidr(cidr)) throw new UsageError(`--webhook-source-cidrs: "${cidr}" is not a CIDR such as 10.0.0.0/16 or fd00::/64`);
    const clientAuthDir = values['webhook-client-auth'];
    if (clientAuthDir && (values['webhook-client-ca-secret'] || values['webhook-client-names'])) {
      throw new UsageError(`--webhook-client-auth makes its own CA and names its certificate ${WEBHOOK_CLIENT_NAME}: leave out --webhook-client-ca-secret and --webhook-client-names`);
    }
    if (values['apiserver-config-dir'] !== DEFAULT_APISERVER_CONFIG_DIR && !clientAuthDir) throw new UsageError('--apiserver-config-dir needs --webhook-client-auth');
    // kube-apiserver refuses a relative kubeConfigFile.
    if (!values['apiserver-config-dir'].startsWith('/')) throw new UsageError(`--apiserver-config-dir must be an absolute path, got "${values['apiserver-config-dir']}"`);
    if (values['webhook-client-names'] && !values['webhook-client-ca-secret']) throw new UsageError('--webhook-client-names needs --webhook-client-ca-secret');
    const pullPolicy = values['image-pull-policy'];
    if (pullPolicy && !['Always', 'IfNotPresent', 'Never'].includes(pullPolicy)) throw new UsageError(`--image-pull-policy must be Always, IfNotPresent or Never, got "${pullPolicy}"`);
    if (!LOG_LEVELS.includes(values['log-level'])) throw new UsageError(`--log-level must be one of ${LOG_LEVELS.join(', ')}, got "${values['log-level']}"`);
    // The operator refuses these at start (as client-go does): refuse them here, before a crash-looping install.
    const lease = durationFlag('--leader-elect-lease-duration', values['leader-elect-lease-duration']);
    const renew = durationFlag('--leader-elect-renew-deadline', values['leader-elect-renew-deadline']);
    const retry = durationFlag('--leader-elect-retry-period', values['leader-elect-retry-period']);
    if (lease <= renew) throw new UsageError('--leader-elect-lease-duration must be longer than --leader-elect-renew-deadline');
    if (renew <= retry * 1.2) throw new UsageError('--leader-elect-renew-deadline must be longer than 1.2 x --leader-elect-retry-period');
    if (durationFlag('--eviction-abandoned-after', values['eviction-abandoned-after']) <= 0) throw new UsageError('--eviction-abandoned-after must be longer than 0');
    const failurePolicy = values['webhook-failure-policy'];
    if (failurePolicy !== 'Fail' && failurePolicy !== 'Ignore') throw new UsageError(`--webhook-failure-policy must be Fail or Ignore, got "${failurePolicy}"`);
    const timeout = Number(values['webhook-timeout-seconds']);
    if (!Number.isInteger(timeout) || timeout < 1 || timeout > 30) throw new UsageError(`--webhook-timeout-seconds must be an integer from 1 to 30, got "${values['webhook-timeout-seconds']}"`);
    const issuer = values['cert-manager-issuer'];
    const issuerMatch = /^(Issuer|ClusterIssuer)\/([a-z0-9]([-a-z0-9.]*[a-z0-9])?)$/.exec(issuer);
    if (issuer && !issuerMatch) throw new UsageError(`--cert-manager-issuer must be Issuer/NAME or ClusterIssuer/NAME, got "${issuer}"`);
    if (issuer && !values['cert-manager']) throw new UsageError('--cert-manager-issuer needs --cert-manager');
    const interval = values['service-monitor-interval'];
    if (interval && !/^(\d+(ms|s|m|h))+$/.test(interval)) throw new UsageError(`--service-monitor-interval must be a duration such as 30s or 1m, got "${interval}"`);
    if (interval && !values['service-monitor']) throw new UsageError('--service-monitor-interval needs --service-monitor');
    const list = (text: string): string[] => text.split(',').map((item) => item.trim()).filter(Boolean);
    const clientAuth = clientAuthDir ? await writeWebhookClientAuth(clientAuthDir, { webhookHost: webhookServiceHost(values.namespace), apiserverDir: values['apiserver-config-dir'], now: Date.now() }) : undefined;
    const objects = manifests({
      ...DEFAULT_MANIFEST_OPTIONS,
      namespace: values.namespace,
      image: values.image,
      imagePullPolicy: pullPolicy,
      imagePullSecrets: list(values['image-pull-secrets']),
      replicas,
      priorityClassName: values['priority-class-name'],
      logLevel: values['log-level'],
      leaderElection: { leaseDuration: values['leader-elect-lease-duration'], renewDeadline: values['leader-elect-renew-deadline'], retryPeriod: values['leader-elect-retry-period'] },
      featureGates: values['feature-gates'],
      evictionAbandonedAfter: values['eviction-abandoned-after'],
      webhookFailurePolicy: failurePolicy,
      webhookTimeoutSeconds: timeout,
      webhookSourceCIDRs: cidrs,
      admissionPolicy: !values['no-admission-policy'],
      webhookClientCASecret: values['webhook-client-ca-secret'],
      webhookClientCA: clientAuth?.caCert ?? '',
      webhookClientNames: clientAuth ? WEBHOOK_CLIENT_NAME : values['webhook-client-names'],
      certManager: values['cert-manager'],
      certManagerIssuerRef: issuerMatch ? { name: issuerMatch[2] as string, kind: issuerMatch[1] as string, group: 'cert-manager.io' } : {},
      serviceMonitor: values['service-monitor'],
      serviceMonitorInterval: interval,
      podDisruptionBudget: !values['no-pod-disruption-budget'],
    });
    io.stdout.write(objects.map((o) => stringify(o)).join('---\n'));
    if (clientAuth) io.stderr.write(clientAuthSteps(clientAuthDir, values['apiserver-config-dir'], clientAuth));
    return 0;
  },
};

/** What to do with the files --webhook-client-auth wrote (on stderr: stdout is the manifests). */
function clientAuthSteps(dir: string, apiserverDir: string, files: Awaited<ReturnType<typeof writeWebhookClientAuth>>): string {
  const f = WEBHOOK_CLIENT_FILES;
  const what = [files.newCA ? 'a new CA' : 'the CA kept', files.newClientCertificate ? `a new API server certificate (until ${files.notAfter.toISOString().slice(0, 10)})` : `the API server certificate kept (until ${files.notAfter.toISOString().slice(0, 10)})`];
  return [
    `podops manifests: --webhook-client-auth: ${what.join(', ')}, in ${dir}. On every control-plane node:`,
    `  1. copy ${dir}/${f.admissionConfiguration} and ${dir}/${f.kubeconfig} to ${apiserverDir}/ (readable by kube-apiserver only);`,
    `  2. run kube-apiserver with --admission-control-config-file=${apiserverDir}/${f.admissionConfiguration} (if it has one already,`,
    `     add the two plugins of this one to it) and restart it;`,
    `  3. apply these manifests (or: helm ... -f ${dir}/${f.helmValues}): the operator then serves only that certificate.`,
    `Keep ${dir}/${f.caKey} off the cluster: it issues the certificate podops accepts. Run this again before the`,
    `certificate expires (it is reissued 30 days before), then copy ${f.kubeconfig} again and restart kube-apiserver.`,
    '',
  ].join('\n');
}
