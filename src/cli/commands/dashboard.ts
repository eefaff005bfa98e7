// `podops dashboard`: a live web page of the controlled pods, their lifecycles, PodTransitionRules, rollout hooks
// and podops' events, served on this machine with the user's own kubeconfig credentials.

import { createLogger } from '../../kube/log.ts';
import { DEFAULT_DASHBOARD_PORT, startDashboard } from '../../dashboard/server.ts';
import { listenFailure, optionsHelp, parseCommandArgs, parsePort, type Command } from '../command.ts';
import { KUBE_FLAGS_HELP, clientFromFlags, kubeFlagOptions, namespaceFrom } from '../kube-flags.ts';

const usage = `Usage: podops dashboard [options]

Serves a live web page of the pods under PodOpsLifecycle: a timeline of their lifecycles, what each waits for,
PodTransitionRules, rollout hooks and podops' recent events. It watches with your kubeconfig's credentials
(read-only: get, list and watch) and installs nothing in the cluster. Runs until Ctrl-C.

Options:
${optionsHelp([
  ...KUBE_FLAGS_HELP,
  ['-A, --all-namespaces', 'every namespace'],
  ['--port N', 'port to serve on (default 3100; 0 picks a free one)'],
  ['--address ADDR', 'address to serve on (default 127.0.0.1: this machine only)'],
])}`;

export const dashboardCommand: Command = {
  usage,
  async run(args, io) {
    const { values } = parseCommandArgs({
      args,
      options: {
        ...kubeFlagOptions,
        'all-namespaces': { type: 'boolean', short: 'A', default: false },
        port: { type: 'string', default: String(DEFAULT_DASHBOARD_PORT) },
        address: { type: 'string', default: '127.0.0.1' },
      },
    });
    const port = parsePort(values.port, '--port');
    const client = clientFromFlags(values, io.env);
    try {
      const namespace = values['all-namespaces'] ? undefined : namespaceFrom(values, client);
      const dashboard = await startDashboard({ client, namespace, address: values.address, port, logger: createLogger({ level: 'warn', destination: io.stderr }) }, io.signal).catch((err: unknown) => listenFailure(err, values.address, port, '--port'));
      io.stdout.write(`podops dashboard: ${dashboard.url} (${namespace === undefined ? 'all namespaces' : `namespace ${namespace}`} of ${client.server.replace(/\/$/, '')}); Ctrl-C stops it.\n`);
      await dashboard.done;
      return 0;
    } finally {
      client.close();
    }
  },
};
