// Runs the example cooperation controller: `node examples/load-balancer/main.ts [--kubeconfig PATH]`.

import { parseArgs } from 'node:util';
import { createLogger, KubeClient } from '../../src/kube/index.ts';
import { startLoadBalancerController } from './load-balancer-controller.ts';

const { values } = parseArgs({ options: { kubeconfig: { type: 'string' } } });
// Its own name in managedFields and in the API server's logs, apart from podops'.
const NAME = 'example-load-balancer';
const client = KubeClient.load({ ...(values.kubeconfig && { kubeconfig: values.kubeconfig }), fieldManager: NAME, userAgent: NAME });
const abort = new AbortController();
process.once('SIGINT', () => abort.abort());
process.once('SIGTERM', () => abort.abort());
const { done } = startLoadBalancerController(client, abort.signal, { logger: createLogger(), log: (line) => console.log(line) });
await done;
client.close();
