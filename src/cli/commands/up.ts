// `podops up` (and `npm start`): podops on a laptop, no cluster needed.

import { resolve } from 'node:path';
import { KubeClient } from '../../kube/client.ts';
import { createLogger, type Logger } from '../../kube/log.ts';
import { DEFAULT_DASHBOARD_PORT, startDashboard, type Dashboard } from '../../dashboard/server.ts';
import { UsageError, listenFailure, optionsHelp, parseCommandArgs, parsePort, type Command } from '../command.ts';
import { claimKubeconfig } from '../kubeconfig-file.ts';
import { DEMO_NAMESPACE, startLocalStack } from '../local-stack.ts';

const usage = `Usage: podops up [options]

Runs a sandbox cluster (API server, 3 simulated nodes, workload controllers), the podops operator with its
webhooks, an example load-balancer controller and an example operation controller, and a demo
Deployment of 3 controlled pods behind a controlled Service, with rollout hooks. Runs until Ctrl-C.

Options:
${optionsHelp([
  ['--port N', 'API server port (default: a free one)'],
  ['--kubeconfig PATH', 'where to write the kubeconfig (default .podops/kubeconfig); refused while another', 'podops up runs with that file'],
  ['--no-demo', 'skip the demo Deployment'],
  ['--start-delay MS', 'simulated container start time (default 1000)'],
  ['--log-level LEVEL', 'operator logs on stderr (default warn)'],
  ['--dashboard-port N', 'port of the dashboard on 127.0.0.1 (default 3100, else a free one when 3100 is taken)'],
  ['--no-dashboard', 'do not serve the dashboard'],
])}`;

function tour(kubeconfig: string, apiServer: string, webhook: string, dashboard: string | undefined): string {
  const n = DEMO_NAMESPACE;
  return `
podops is up.
  API server   ${apiServer}
  webhooks     https://${webhook}
  kubeconfig   ${kubeconfig}
${dashboard ? `  dashboard    ${dashboard}\n` : ''}
  export KUBECONFIG=${kubeconfig}

Try:
  kubectl get pods -n ${n} -w                                  # the demo pods; traffic on/off lines print in this terminal
  podops status -n ${n}                                        # each pod's lifecycle and what it waits for
  kubectl delete pod -n ${n} <pod>                             # GraceDelete: denied, then deleted once out of traffic
  podops begin <pod> -n ${n} --id upgrade --type update        # start an operation by hand...
  podops status -n ${n}                                        #   ...watch it leave traffic...
  podops finish <pod> -n ${n} --id upgrade --type update       #   ...and bring it back
  kubectl annotate pod -n ${n} <pod> podops.example/restart=1  # the example operation controller
  kubectl set image deployment/web -n ${n} web=nginx:1.28      # a rolling update, pod by pod, gracefully, held at
  podops rollout status deployment/web -n ${n}                 #   each hook point: migrate, smoke at 50%, notify
  kubectl logs -n ${n} job/web-smoke-<hash>                    #   what a hook printed (its Job is in the status)
  podops rollout undo deployment/web -n ${n}                   # back to the previous revision: a ROLLBACK, hooks and all
  kubectl scale deployment/web -n ${n} --replicas=1            # scale-in through GraceDelete
  kubectl drain node-1 --ignore-daemonsets                     # evictions wait until each pod is out of traffic
  kubectl uncordon node-1                                      #   (the drain retries them every 5 s)
Ctrl-C stops everything.
`;
}

/** The dashboard of every namespace, with the kubeconfig `podops up` wrote; on 3100 unless taken or told otherwise. */
async function serveDashboard(kubeconfig: string, port: number | undefined, logger: Logger, signal: AbortSignal): Promise<Dashboard> {
  const client = KubeClient.fromKubeconfigText(kubeconfig, { userAgent: 'podops-dashboard' });
  const start = (at: number) => startDashboard({ client, namespace: undefined, port: at, logger }, signal);
  const dashboard = await start(port ?? DEFAULT_DASHBOARD_PORT).catch((err: unknown) => {
    if (port === undefined && (err as NodeJS.ErrnoException).code === 'EADDRINUSE') return start(0);
    return listenFailure(err, '127.0.0.1', port ?? DEFAULT_DASHBOARD_PORT, '--dashboard-port');
  });
  void dashboard.done.then(() => client.close());
  return dashboard;
}

export const upCommand: Command = {
  usage,
  async run(args, io) {
    const { values } = parseCommandArgs({
      args,
      options: {
        port: { type: 'string', default: '0' },
        kubeconfig: { type: 'string', default: '.podops/kubeconfig' },
        'no-demo': { type: 'boolean', default: false },
        'start-delay': { type: 'string', default: '1000' },
        'log-level': { type: 'string', default: 'warn' },
        'dashboard-port': { type: 'string' },
        'no-dashboard': { type: 'boolean', default: false },
      },
    });
    const port = parsePort(values.port, '--port');
    const dashboardPort = values['dashboard-port'] === undefined ? undefined : parsePort(values['dashboard-port'], '--dashboard-port');
    const startDelayMs = Number(values['start-delay']);
    if (!Number.isFinite(startDelayMs) || startDelayMs < 0) throw new UsageError(`--start-delay must be a number of milliseconds, got "${values['start-delay']}"`);
    const kubeconfigPath = resolve(values.kubeconfig);
    await claimKubeconfig(kubeconfigPath, 'podops up');
    const stamp = (): string => new Date(io.now()).toISOString().slice(11, 19);
    const logger = createLogger({ level: values['log-level'], destination: io.stderr });
    // Stops the stack when the user does, or when the dashboard cannot start.
    const stop = new AbortController();
    const signal = AbortSignal.any([io.signal, stop.signal]);
    const stack = await startLocalStack(
      {
        port,
        kubeconfigPath,
        demo: !values['no-demo'],
        startDelayMs,
        log: (line) => io.stdout.write(`${stamp()}  load balancer  ${line}\n`),
        logger,
      },
      signal,
    );
    const dashboard = values['no-dashboard']
      ? undefined
      : await serveDashboard(stack.sandbox.kubeconfig, dashboardPort, logger, signal).catch(async (err: unknown) => {
          stop.abort();
          await stack.done;
          throw err;
        });
    io.stdout.write(tour(kubeconfigPath, stack.sandbox.url, stack.webhookAddress ?? '', dashboard?.url));
    await Promise.all([stack.done, dashboard?.done]);
    io.stdout.write('podops stopped.\n');
    return 0;
  },
};
