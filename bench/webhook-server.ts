// The webhook server of the admission benchmark, in its own process: the real routes and handlers.

import { Registry } from 'prom-client';
import { nowNanos } from '../src/kube/clock.ts';
import { genericRoute } from '../src/webhook/dispatch.ts';
import { mutatePodLifecycle, validatePodLifecycle } from '../src/webhook/pod-lifecycle.ts';
import { WebhookServer } from '../src/webhook/server.ts';
import { generateCA, generateServing } from '../src/webhook/certificates.ts';

const ca = await generateCA('bench-ca', 1, Date.now());
const serving = await generateServing(ca, ['127.0.0.1'], 1, Date.now());
const server = new WebhookServer({
  host: '127.0.0.1',
  port: 0,
  certificate: serving,
  registry: new Registry(),
  routes: [
    genericRoute('/mutating-generic', { Pod: [(r) => mutatePodLifecycle(r, nowNanos)], 'Pod/status': [(r) => mutatePodLifecycle(r, nowNanos)] }),
    genericRoute('/validating-generic', { Pod: [validatePodLifecycle] }),
  ],
});
const address = await server.listen();
process.on('message', (message: unknown) => {
  if (message === 'stop') void server.close().then(() => process.exit(0));
});
process.send?.({ address, ca: ca.cert });
