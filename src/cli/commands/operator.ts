// `podops operator`: runs the operator against a cluster (or the sandbox) until SIGTERM.

import { parseArgs } from 'node:util';
import { KubeClient } from '../../kube/client.ts';
import { createLogger } from '../../kube/log.ts';
import { parseFeatureGates } from '../../operator/feature-gates.ts';
import { startOperator } from '../../operator/operator.ts';
import { UsageError, type Command } from '../command.ts';

const usage = `Usage: podops operator [options]

Runs the PodOpsLifecycle controllers and admission webhooks.

Options:
  --kubeconfig PATH                  kubeconfig to use (default: in-cluster config, else $KUBECONFIG / ~/.kube/config)
  --context NAME                     kubeconfig context
  --namespace NS                     namespace of the leader-election Lease and the certificate Secret
                                     (default: $POD_NAMESPACE, else podops-system)
  --leader-elect                     elect a leader among replicas (Lease podops-leader; 15s/10s/2s)
  --feature-gates LIST               e.g. GraceDeleteWebhook=true
  --webhook-host HOST                address the webhook server binds (default 0.0.0.0)
  --webhook-port PORT                webhook server port (default 9443)
  --cert-dir DIR                     serve tls.crt/tls.key from DIR (reloaded on change) instead of self-managed certificates
  --webhook-hosts LIST               DNS names/IPs of the self-managed certificate
                                     (default podops-webhook.<namespace>.svc and .svc.cluster.local)
  --webhook-secret NAME              Secret holding the self-managed certificates (default podops-webhook-certs)
  --metrics-bind-address ADDR        Prometheus metrics (default :8080; 0 to disable)
  --health-probe-bind-address ADDR   /healthz and /readyz (default :8081; 0 to disable)
  --log-level LEVEL                  debug, info, warn, error (default info)

Environment:
  SKIP_POD_TRANSITION_RULES          comma list of rule types every PodTransitionRule ignores
                                     (availablePolicy, labelCheck, webhook)`;

export const operatorCommand: Command = {
  name: 'operator',
  summary: 'run the operator (controllers and admission webhooks) against a cluster',
  usage,
  async run(args, io) {
    let values;
    try {
      ({ values } = parseArgs({
        args,
        options: {
          kubeconfig: { type: 'string' },
          context: { type: 'string' },
          namespace: { type: 'string' },
          'leader-elect': { type: 'boolean', default: false },
          'feature-gates': { type: 'string' },
          'webhook-host': { type: 'string', default: '0.0.0.0' },
          'webhook-port': { type: 'string', default: '9443' },
          'cert-dir': { type: 'string' },
          'webhook-hosts': { type: 'string' },
          'webhook-secret': { type: 'string', default: 'podops-webhook-certs' },
          'metrics-bind-address': { type: 'string', default: ':8080' },
          'health-probe-bind-address': { type: 'string', default: ':8081' },
          'log-level': { type: 'string', default: 'info' },
        },
      }));
    } catch (err) {
      throw new UsageError((err as Error).message);
    }
    const port = Number(values['webhook-port']);
    if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`--webhook-port must be a port number, got "${values['webhook-port']}"`);
    if (!['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'].includes(values['log-level'])) throw new UsageError(`unknown --log-level "${values['log-level']}"`);
    let featureGates;
    try {
      featureGates = parseFeatureGates(values['feature-gates']);
    } catch (err) {
      throw new UsageError((err as Error).message);
    }
    const namespace = values.namespace ?? io.env.POD_NAMESPACE ?? 'podops-system';
    const inCluster = !values.kubeconfig && !io.env.KUBECONFIG && io.env.KUBERNETES_SERVICE_HOST !== undefined;
    const client = KubeClient.load({ ...(values.kubeconfig && { kubeconfig: values.kubeconfig }), ...(values.context && { context: values.context }), inCluster });
    const hosts = values['webhook-hosts']?.split(',').map((h) => h.trim()).filter(Boolean) ?? [`podops-webhook.${namespace}.svc`, `podops-webhook.${namespace}.svc.cluster.local`];
    const logger = createLogger({ level: values['log-level'], destination: io.stderr });
    logger.info({ server: client.server, namespace, featureGates }, 'starting podops operator');
    const operator = startOperator(
      {
        client,
        namespace,
        featureGates,
        leaderElect: values['leader-elect'],
        webhook: { host: values['webhook-host'], port, hosts, secretName: values['webhook-secret'], ...(values['cert-dir'] && { certDir: values['cert-dir'] }) },
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
