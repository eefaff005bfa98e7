// The webhook server of the admission benchmark, in its own process: the real routes and handlers, and beside
// them the baseline: a bare node:https server that reads each review, parses it and answers it allowed, the
// least any admission webhook does on the same machine.

import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
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
const bare = createServer({ cert: serving.cert, key: serving.key }, (req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    const review = JSON.parse(Buffer.concat(chunks).toString()) as { request: { uid: string } };
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response: { uid: review.request.uid, allowed: true } }));
  });
});
await new Promise<void>((resolve) => bare.listen(0, '127.0.0.1', resolve));
process.on('message', (message: unknown) => {
  if (message === 'stop') void server.close().then(() => process.exit(0));
  // CPU time, unlike wall time, barely changes when other processes share the machine.
  if (message === 'cpu') process.send?.({ cpuMicros: process.cpuUsage().user + process.cpuUsage().system });
});
process.send?.({ address, baseline: `127.0.0.1:${(bare.address() as AddressInfo).port}`, ca: ca.cert });
