// `podops operator`: runs the operator against a cluster (or the sandbox) until SIGTERM.

import { X509Certificate } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { KubeClient } from '../../kube/client.ts';
import { createLogger } from '../../kube/log.ts';
import { DEFAULT_EVICTION_ABANDONED_AFTER_SECONDS } from '../../lifecycle/eviction.ts';
import { parseFeatureGates } from '../../operator/feature-gates.ts';
import { startOperator } from '../../operator/operator.ts';
import type { ClientAuthentication } from '../../webhook/server.ts';
import { UsageError, durationFlag, optionsHelp, parseCommandArgs, type Command } from '../command.ts';

const usage = `Usage: podops operator [options]

Runs the PodOpsLifecycle controllers and admission webhooks.

Options:
${optionsHelp([
  ['--kubeconfig PATH', 'kubeconfig to use (default: in-cluster config, else $KUBECONFIG / ~/.kube/config)'],
  ['--context NAME', 'kubeconfig context'],
  ['--namespace NS', 'namespace of the leader-election Lease and the certificate Secret', '(default: $POD_NAMESPACE, else podops-system)'],
  ['--leader-elect', 'elect a leader among replicas (Lease podops-leader)'],
  ['--leader-elect-lease-duration D', 'how long a silent leader keeps the lease (default 15s)'],
  ['--leader-elect-renew-deadline D', 'how long the leader keeps trying to renew before stepping down (default 10s)'],
  ['--leader-elect-retry-period D', 'the wait between attempts to acquire or renew the lease (default 2s)'],
  ['--feature-gates LIST', 'feature gates as NAME=true|false pairs, e.g. GraceDeleteWebhook=true'],
  ['--eviction-abandoned-after D', `a pod whose eviction nobody retried this long returns to service (default ${DEFAULT_EVICTION_ABANDONED_AFTER_SECONDS}s;`, 'keep it above the retry interval of what evicts: kubectl drain 5s, cluster autoscaler 10s)'],
  ['--webhook-host HOST', 'address the webhook server binds (default 0.0.0.0)'],
  ['--webhook-port PORT', 'webhook server port (default 9443)'],
  ['--cert-dir DIR', 'serve tls.crt/tls.key from DIR (reloaded on change) instead of self-managed certificates'],
  ['--webhook-hosts LIST', 'DNS names/IPs of the self-managed certificate', '(default podops-webhook.<namespace>.svc and .svc.cluster.local)'],
  ['--webhook-secret NAME', 'Secret holding the self-managed certificates (default podops-webhook-certs)'],
  ['--webhook-client-ca-file PATH', "serve only callers whose client certificate this CA bundle signed: the API server's,", 'configured with its --admission-control-config-file'],
  ['--webhook-client-names LIST', 'with --webhook-client-ca-file: the accepted common names or DNS names of that', 'certificate (default: any the CA signed)'],
  ['--metrics-bind-address ADDR', 'serve Prometheus metrics on ADDR (default :8080; 0 to disable)'],
  ['--health-probe-bind-address ADDR', 'serve /healthz and /readyz on ADDR (default :8081; 0 to disable)'],
  ['--log-level LEVEL', 'the least severe level logged: debug, info, warn or error (default info)'],
])}

Environment:
${optionsHelp([['SKIP_POD_TRANSITION_RULES', 'comma list of rule types every PodTransitionRule ignores', '(availablePolicy, labelCheck, webhook)']])}`;

async function readClientAuthentication(caFile: string | undefined, names: string | undefined): Promise<ClientAuthentication | undefined> {
  const nameList = names?.split(',').map((n) => n.trim()).filter(Boolean) ?? [];
  if (caFile === undefined) {
    if (nameList.length > 0) throw new UsageError('--webhook-client-names needs --webhook-client-ca-file');
    return undefined;
  }
  let ca: string;
  try {
    ca = await readFile(caFile, 'utf8');
  } catch (err) {
    throw new UsageError(`--webhook-client-ca-file: cannot read ${caFile}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  try {
    if (!ca.includes('-----BEGIN CERTIFICATE-----')) throw new Error('no PEM certificate in it');
    new X509Certificate(ca);
  } catch (err) {
    throw new UsageError(`--webhook-client-ca-file: ${caFile} is not a PEM CA bundle: ${(err as Error).message}`);
  }
  return { ca, names: nameList };
}

export const operatorCommand: Command = {
  usage,
  async run(args, io) {
    const { values } = parseCommandArgs({
      args,
      options: {
        kubeconfig: { type: 'string' },
        context: { type: 'string' },
        namespace: { type: 'string' },
        'leader-elect': { type: 'boolean', default: false },
        'leader-elect-lease-duration': { type: 'string', default: '15s' },
        'leader-elect-renew-deadline': { type: 'string', default: '10s' },
        'leader-elect-retry-period': { type: 'string', default: '2s' },
        'feature-gates': { type: 'string' },
        'eviction-abandoned-after': { type: 'string', default: `${DEFAULT_EVICTION_ABANDONED_AFTER_SECONDS}s` },
        'webhook-host': { type: 'string', default: '0.0.0.0' },
        'webhook-port': { type: 'string', default: '9443' },
        'cert-dir': { type: 'string' },
        'webhook-hosts': { type: 'string' },
        'webhook-secret': { type: 'string', default: 'podops-webhook-certs' },
        'webhook-client-ca-file': { type: 'string' },
        'webhook-client-names': { type: 'string' },
        'metrics-bind-address': { type: 'string', default: ':8080' },
        'health-probe-bind-address': { type: 'string', default: ':8081' },
        'log-level': { type: 'string', default: 'info' },
      },
    });
    const port = Number(values['webhook-port']);
    if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`--webhook-port must be a port number, got "${values['webhook-port']}"`);
    if (!['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'].includes(values['log-level'])) throw new UsageError(`unknown --log-level "${values['log-level']}"`);
    let featureGates;
    try {
      featureGates = parseFeatureGates(values['feature-gates']);
    } catch (err) {
      throw new UsageError((err as Error).message);
    }
    const leaderElection = {
      leaseDurationMs: durationFlag('--leader-elect-lease-duration', values['leader-elect-lease-duration']),
      renewDeadlineMs: durationFlag('--leader-elect-renew-deadline', values['leader-elect-renew-deadline']),
      retryPeriodMs: durationFlag('--leader-elect-retry-period', values['leader-elect-retry-period']),
    };
    const evictionAbandonedAfterMs = durationFlag('--eviction-abandoned-after', values['eviction-abandoned-after']);
    if (evictionAbandonedAfterMs <= 0) throw new UsageError('--eviction-abandoned-after must be longer than 0');
    const namespace = values.namespace ?? io.env.POD_NAMESPACE ?? 'podops-system';
    const inCluster = !values.kubeconfig && !io.env.KUBECONFIG && io.env.KUBERNETES_SERVICE_HOST !== undefined;
    const client = KubeClient.load({ ...(values.kubeconfig && { kubeconfig: values.kubeconfig }), ...(values.context && { context: values.context }), inCluster, env: io.env });
    const hosts = values['webhook-hosts']?.split(',').map((h) => h.trim()).filter(Boolean) ?? [`podops-webhook.${namespace}.svc`, `podops-webhook.${namespace}.svc.cluster.local`];
    const clientAuthentication = await readClientAuthentication(values['webhook-client-ca-file'], values['webhook-client-names']);
    const logger = createLogger({ level: values['log-level'], destination: io.stderr });
    logger.info({ server: client.server, namespace, featureGates }, 'starting podops operator');
    if (clientAuthentication) logger.info({ names: clientAuthentication.names }, 'webhook callers must present a client certificate signed by --webhook-client-ca-file');
    else logger.warn('webhook callers are not authenticated (no --webhook-client-ca-file): anyone who reaches the webhook port is answered; see the Security section of docs/operations.md');
    const operator = startOperator(
      {
        client,
        namespace,
        featureGates,
        leaderElect: values['leader-elect'],
        leaderElection,
        webhook: {
          host: values['webhook-host'],
          port,
          hosts,
          secretName: values['webhook-secret'],
          ...(values['cert-dir'] && { certDir: values['cert-dir'] }),
          ...(clientAuthentication && { clientAuthentication }),
        },
        evictionAbandonedAfterMs,
        metricsAddress: values['metrics-bind-address'],
        probeAddress: values['health-probe-bind-address'],
        ...(io.env.SKIP_POD_TRANSITION_RULES && { skipTransitionRuleTypes: io.env.SKIP_POD_TRANSITION_RULES }),
        logger,
      },
      io.signal,
    );
    try {
      await operator.done;
      logger.info('podops operator stopped');
      return 0;
    } catch (err) {
      logger.error({ err }, 'podops operator failed');
      return 1;
    } finally {
      client.close();
    }
  },
};
