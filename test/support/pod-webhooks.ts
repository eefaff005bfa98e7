// podops' pod webhooks served on 127.0.0.1 and registered with a test's sandbox through the operator's own
// webhook configurations: the lifecycle mutation on pods, and the validating handlers a test names.

import { after, before } from 'node:test';
import { nowNanos } from '../../src/kube/clock.ts';
import { MUTATING_WEBHOOK_CONFIGURATIONS, VALIDATING_WEBHOOK_CONFIGURATIONS } from '../../src/kube/resources.ts';
import { urlClientConfig, webhookConfigurations } from '../../src/operator/webhook-configuration.ts';
import { genericRoute, type AdmissionHandler } from '../../src/webhook/dispatch.ts';
import { mutatePodLifecycle } from '../../src/webhook/pod-lifecycle.ts';
import type { WebhookServer } from '../../src/webhook/server.ts';
import type { SandboxClient } from './sandbox-client.ts';
import { startWebhookServer } from './webhook-server.ts';

/** Starts the server in `before` (after the sandbox of `env`) and closes it in `after`. */
export function usePodWebhooks(env: SandboxClient, validating: () => Record<string, AdmissionHandler[]>): void {
  let server: WebhookServer | undefined;
  before(async () => {
    const mutate: AdmissionHandler = (r) => mutatePodLifecycle(r, nowNanos);
    const webhook = await startWebhookServer({ routes: [genericRoute('/mutating-generic', { Pod: [mutate], 'Pod/status': [mutate] }), genericRoute('/validating-generic', validating())] });
    server = webhook.server;
    for (const config of webhookConfigurations(urlClientConfig(`https://${webhook.address}`), Buffer.from(webhook.certs.ca.cert).toString('base64'))) {
      await env.client.create(config.kind === 'MutatingWebhookConfiguration' ? MUTATING_WEBHOOK_CONFIGURATIONS : VALIDATING_WEBHOOK_CONFIGURATIONS, config as never);
    }
  });
  after(() => server?.close());
}
