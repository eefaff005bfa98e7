// Runs the example operation controller: `node examples/operation/main.ts [--kubeconfig PATH]`, then
// `kubectl annotate pod web-0 podops.example/restart=$(date +%s)` and watch the pod's lifecycle with
// `podops status`.

import { parseArgs } from 'node:util';
import { createLogger, KubeClient } from '../../src/kube/index.ts';
import { startRestartController } from './restart-controller.ts';

const { values } = parseArgs({ options: { kubeconfig: { type: 'string' } } });
// Its own name in managedFields and in the API server's logs, apart from podops'.
const NAME = 'example-restart';
const client = KubeClient.load({ ...(values.kubeconfig && { kubeconfig: values.kubeconfig }), fieldManager: NAME, userAgent: NAME });
const abort = new AbortController();
process.once('SIGINT', () => abort.abort());
process.once('SIGTERM', () => abort.abort());
await startRestartController(client, abort.signal, createLogger());
client.close();
