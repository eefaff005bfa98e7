// Flags shared by the commands that talk to a cluster.

import { KubeClient } from '../kube/client.ts';
import type { OptionHelp } from './command.ts';

/** Which cluster: for commands that work across namespaces. */
export const clusterFlagOptions = {
  kubeconfig: { type: 'string' },
  context: { type: 'string' },
} as const;

export const CLUSTER_FLAGS_HELP: readonly OptionHelp[] = [
  ['--kubeconfig PATH', 'kubeconfig to use (default $KUBECONFIG, else ~/.kube/config)'],
  ['--context NAME', 'kubeconfig context'],
];

export const kubeFlagOptions = {
  ...clusterFlagOptions,
  namespace: { type: 'string', short: 'n' },
} as const;

export const KUBE_FLAGS_HELP: readonly OptionHelp[] = [...CLUSTER_FLAGS_HELP, ['-n, --namespace NS', "namespace (default: the context's, else default)"]];

/** A client from the kubeconfig flags, else from the command's environment (`$KUBECONFIG`, `~/.kube/config`). */
export function clientFromFlags(values: { kubeconfig?: string; context?: string }, env: NodeJS.ProcessEnv): KubeClient {
  return KubeClient.load({ ...(values.kubeconfig && { kubeconfig: values.kubeconfig }), ...(values.context && { context: values.context }), env });
}

/** The namespace flag, else the kubeconfig context's namespace, else `default` (as kubectl chooses). */
export function namespaceFrom(values: { namespace?: string }, client: KubeClient): string {
  return values.namespace ?? client.contextNamespace ?? 'default';
}
