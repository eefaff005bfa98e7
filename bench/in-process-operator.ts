// The operator as the benchmarks run it beside their clients: in this process, no leader election, no
// GraceDelete (the benchmarks' pods are not deleted), quiet, its webhooks registered with the sandbox.

import { CERT_SECRET, LOCAL_WEBHOOK_HOSTS, OPERATOR_NAMESPACE, registerWebhooks } from '../src/cli/local-stack.ts';
import type { KubeClient } from '../src/kube/client.ts';
import { createLogger } from '../src/kube/log.ts';
import { startOperator, type OperatorOptions, type RunningOperator } from '../src/operator/operator.ts';

export async function startBenchOperator(client: KubeClient, signal: AbortSignal, tuning: Partial<OperatorOptions> = {}): Promise<RunningOperator> {
  const operator = startOperator(
    {
      client,
      namespace: OPERATOR_NAMESPACE,
      featureGates: { GraceDeleteWebhook: false, GracefulEviction: true },
      leaderElect: false,
      webhook: { host: '127.0.0.1', port: 0, hosts: LOCAL_WEBHOOK_HOSTS, secretName: CERT_SECRET },
      metricsAddress: '0',
      probeAddress: '0',
      logger: createLogger({ level: 'warn' }),
      ...tuning,
    },
    signal,
  );
  await registerWebhooks(client, await operator.webhookAddress);
  return operator;
}
