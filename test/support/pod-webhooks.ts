// podops' pod webhooks served on 127.0.0.1 and registered with a test's sandbox through the operator's own
// webhook configurations: the lifecycle mutation on pods, and the validating handlers a test names.

import { after, before } from 'node:test';
import { nowNanos } from '../../src/kube/clock.ts';
import { MUTATING_WEBHOOK_CONFIGURATIONS, VALIDATING_WEBHOOK_CONFIGURATIONS } from '../../src/kube/resources.ts';
import { urlClientConfig, webhookConfigurations } from '../../src/operator/webhook-configuration.ts';
import { genericRoute, type AdmissionHandler } from '../../src/webhook/dispatch.ts';
import { mutatePodLifecycle } from '../../src/webhook/pod-lifecycle.ts';
import { WebhookServer } from '../../src/webhook/server.ts';
import type { SandboxClient } from './sandbox-client.ts';
import { localCertificates } from './tls.ts';

/** Starts the server in `before` (after the sandbox of `env`) and closes it in `after`. */
export function usePodWebhooks(env: SandboxClient, validating: () => Record<string, AdmissionHandler[]>): void {
  let server: WebhookServer | undefined;
  before(async () => {
    const certs = await localCertificates();
    const mutate: AdmissionHandler = (r) => mutatePodLifecycle(r, nowNanos);
    server = new WebhookServer({
      host: '127.0.0.1',
      port: 0,
      certificate: certs.serving,
      routes: [genericRoute('/mutating-generic', { Pod: [mutate], 'Pod/status': [mutate] }), genericRoute('/validating-generic', validating())],
    });
    const address = await server.listen();
    for (const config of webhookConfigurations(urlClientConfig(`https://${address}`), Buffer.from(certs.ca.cert).toString('base64'))) {
      await env.client.create(config.kind === 'MutatingWebhookConfiguration' ? MUTATING_WEBHOOK_CONFIGURATIONS : VALIDATING_WEBHOOK_CONFIGURATIONS, config as never);
    }
  });
  after(() => server?.close());
}
