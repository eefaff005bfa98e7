// `podops sandbox [--port N] [--kubeconfig PATH] [--tls]`: runs the embedded Kubernetes-compatible
// API server until interrupted, with a kubeconfig for kubectl and client libraries.

import { resolve } from 'node:path';
import { startSandbox } from '../../sandbox/index.ts';
import { UsageError, parseCommandArgs, type Command } from '../command.ts';

const defaultKubeconfig = './.podops/sandbox.kubeconfig';

const usage = `Usage: podops sandbox [--port N] [--kubeconfig PATH] [--tls] [--nodes N]

Runs an in-memory Kubernetes-compatible API server on 127.0.0.1 until Ctrl-C, with a simulated cluster
around it: nodes with a scheduler and kubelets, and the workload and endpoint controllers.

  --port N           port to listen on (default: a free port)
  --kubeconfig PATH  where to write the kubeconfig (default: ${defaultKubeconfig})
  --tls              serve HTTPS with a generated CA (written into the kubeconfig)
  --nodes N          simulated nodes (default 3); 0 runs the API server alone (no kubelet, no controllers)`;

function parsePort(text: string | undefined): number {
  if (text === undefined) return 0;
  if (!/^\d+$/.test(text) || Number(text) > 65535) throw new UsageError(`--port must be a number from 0 to 65535, got "${text}"`);
  return Number(text);
}

export const sandboxCommand: Command = {
  name: 'sandbox',
  summary: 'run an embedded Kubernetes-compatible API server (for kubectl and the operator)',
  usage,
  async run(args, io) {
    const { values } = parseCommandArgs({
      args,
      allowPositionals: false,
      options: { port: { type: 'string' }, kubeconfig: { type: 'string' }, tls: { type: 'boolean', default: false }, nodes: { type: 'string', default: '3' } },
    });
    const port = parsePort(values.port);
    const nodes = Number(values.nodes);
    if (!Number.isInteger(nodes) || nodes < 0 || nodes > 250) throw new UsageError(`--nodes must be a number from 0 to 250, got "${values.nodes}"`);
    if (values.kubeconfig === '') throw new UsageError('--kubeconfig needs a file path');
    const kubeconfigPath = resolve(values.kubeconfig ?? defaultKubeconfig);
    let sandbox;
    try {
      sandbox = await startSandbox({ port, tls: values.tls, kubeconfigPath, ...(nodes > 0 && { simulation: { nodes } }) });
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'EADDRINUSE') throw new UsageError(`port ${port} is already in use`);
      if (code === 'EACCES') throw new UsageError(`not allowed to listen on port ${port}`);
      throw err;
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
