// `podops sandbox [--port N] [--kubeconfig PATH] [--tls] [--nodes N] [--feature-gates LIST] [--admission-control-config-file PATH]`: runs the embedded Kubernetes-compatible
// API server until interrupted, with a kubeconfig for kubectl and client libraries.

import { resolve } from 'node:path';
import type { ApiServerFeatureGates } from '@podops/sandbox';
import { UsageError, listenFailure, optionsHelp, parseCommandArgs, sandboxNotInstalled, type Command } from '../command.ts';
import { claimKubeconfig } from '../kubeconfig-file.ts';

const defaultKubeconfig = './.podops/sandbox.kubeconfig';

const usage = `Usage: podops sandbox [--port N] [--kubeconfig PATH] [--tls] [--nodes N] [--feature-gates LIST]
                      [--admission-control-config-file PATH]

Runs an in-memory Kubernetes-compatible API server on 127.0.0.1 until Ctrl-C, with a simulated cluster
around it: nodes with a scheduler and kubelets, and the workload and endpoint controllers.

Options:
${optionsHelp([
  ['--port N', 'port to listen on (default: a free port)'],
  ['--kubeconfig PATH', `where to write the kubeconfig (default: ${defaultKubeconfig})`],
  ['--tls', 'serve HTTPS with a generated CA (written into the kubeconfig)'],
  ['--nodes N', 'simulated nodes (default 3); 0 runs the API server alone (no kubelet, no controllers)'],
  ['--feature-gates LIST', 'Kubernetes feature gates as NAME=true|false pairs, comma-separated; the sandbox', 'knows MaxUnavailableStatefulSet (off by default, as in v1.32)'],
  [
    '--admission-control-config-file PATH',
    'an AdmissionConfiguration (apiserver.config.k8s.io/v1) whose webhook plugins name',
    'kubeconfigs with the client certificates presented to admission webhooks, as',
    "kube-apiserver's flag",
  ],
])}`;

const knownGates: readonly (keyof ApiServerFeatureGates)[] = ['MaxUnavailableStatefulSet'];

/** The sandbox API server's --feature-gates, in the syntax of the Kubernetes components: `A=true,B=false`. */
function parseApiServerFeatureGates(text: string | undefined): ApiServerFeatureGates {
  const gates: ApiServerFeatureGates = {};
  for (const pair of (text ?? '').split(',').filter((p) => p.trim() !== '')) {
    const [name = '', value, ...rest] = pair.trim().split('=');
    if (value === undefined || rest.length > 0 || !['true', 'false'].includes(value)) throw new UsageError(`--feature-gates: expected NAME=true|false, got "${pair}"`);
    const gate = knownGates.find((g) => g === name);
    if (!gate) throw new UsageError(`--feature-gates: unrecognized feature gate: ${name}`);
    gates[gate] = value === 'true';
  }
  return gates;
}

function parsePort(text: string | undefined): number {
  if (text === undefined) return 0;
  if (!/^\d+$/.test(text) || Number(text) > 65535) throw new UsageError(`--port must be a number from 0 to 65535, got "${text}"`);
  return Number(text);
}

export const sandboxCommand: Command = {
  usage,
  async run(args, io) {
    const { values } = parseCommandArgs({
      args,
      allowPositionals: false,
      options: {
        port: { type: 'string' },
        kubeconfig: { type: 'string' },
        tls: { type: 'boolean', default: false },
        nodes: { type: 'string', default: '3' },
        'feature-gates': { type: 'string' },
        'admission-control-config-file': { type: 'string' },
      },
    });
    const port = parsePort(values.port);
    const nodes = Number(values.nodes);
    if (!Number.isInteger(nodes) || nodes < 0 || nodes > 250) throw new UsageError(`--nodes must be a number from 0 to 250, got "${values.nodes}"`);
    const featureGates = parseApiServerFeatureGates(values['feature-gates']);
    if (values.kubeconfig === '') throw new UsageError('--kubeconfig needs a file path');
    const kubeconfigPath = resolve(values.kubeconfig ?? defaultKubeconfig);
    await claimKubeconfig(kubeconfigPath, 'podops sandbox');
    const admissionConfig = values['admission-control-config-file'];
    if (admissionConfig === '') throw new UsageError('--admission-control-config-file needs a file path');
    const { startSandbox } = await import('@podops/sandbox').catch(sandboxNotInstalled);
    let sandbox;
    try {
      sandbox = await startSandbox({
        port,
        tls: values.tls,
        kubeconfigPath,
        featureGates,
        ...(nodes > 0 && { simulation: { nodes } }),
        ...(admissionConfig !== undefined && { admissionControlConfigFile: resolve(admissionConfig) }),
      });
    } catch (err) {
      listenFailure(err, '127.0.0.1', port, '--port');
    }
    io.stdout.write(
      [
        `sandbox API server listening on ${sandbox.url}${nodes > 0 ? ` (${nodes} simulated nodes)` : ''}`,
        `kubeconfig written to ${kubeconfigPath}`,
        `  export KUBECONFIG=${kubeconfigPath}`,
        'Press Ctrl-C to stop.',
        '',
      ].join('\n'),
    );
    if (!io.signal.aborted) await new Promise<void>((done) => io.signal.addEventListener('abort', () => done(), { once: true }));
    await sandbox.stop();
    io.stdout.write('sandbox stopped\n');
    return 0;
  },
};
