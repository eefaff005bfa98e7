// Self-managed webhook certificates (when no --cert-dir is given): a CA and a serving certificate kept in a
// Secret, so every replica serves the same certificate; rotated before expiry; and the CA written into the
// caBundle of podops' webhook configurations. Replicas race safely: creation is create-if-absent (the
// loser reads the winner's Secret) and rotation is an update guarded by resourceVersion.

import { sleep, systemClock, type Clock } from '../kube/clock.ts';
import { isAlreadyExists, isConflict, isNotFound, type KubeClient, type KubeObject } from '../kube/client.ts';
import { silentLogger, type Logger } from '../kube/log.ts';
import { MUTATING_WEBHOOK_CONFIGURATIONS, SECRETS, VALIDATING_WEBHOOK_CONFIGURATIONS, type ResourceType } from '../kube/resources.ts';
import { generateCA, generateServing, inspectCertificate, type KeyPair, type ServingBundle } from './certificates.ts';

export interface CertificateManagerOptions {
  client: KubeClient;
  namespace: string;
  secretName: string;
  /** DNS names and IPs the serving certificate must cover (e.g. `podops-webhook.podops-system.svc`). */
  hosts: string[];
  mutatingWebhookConfigurations?: string[];
  validatingWebhookConfigurations?: string[];
  caValidityDays?: number;
  servingValidityDays?: number;
  /** Rotate a certificate this long before it expires. Default 30 days. */
  rotateBeforeDays?: number;
  /** How often to check. Default one minute. */
  checkIntervalMs?: number;
  clock?: Clock;
  logger?: Logger;
}

interface Secret extends KubeObject {
  type?: string;
  data?: Record<string, string>;
}

interface WebhookConfiguration extends KubeObject {
  webhooks?: { name: string; clientConfig?: { caBundle?: string; [field: string]: unknown }; [field: string]: unknown }[];
}

const DAY_MS = 86_400_000;
const b64 = (text: string): string => Buffer.from(text).toString('base64');
const unb64 = (text: string | undefined): string => Buffer.from(text ?? '', 'base64').toString('utf8');

export class CertificateManager {
  readonly #options: CertificateManagerOptions;
  readonly #clock: Clock;
  readonly #log: Logger;
  /** Configurations found missing at the last check (a second miss in a row is a warning). */
  readonly #missing = new Set<string>();

  constructor(options: CertificateManagerOptions) {
    this.#options = options;
    this.#clock = options.clock ?? systemClock;
    this.#log = (options.logger ?? silentLogger()).child({ component: 'certificates', secret: `${options.namespace}/${options.secretName}` });
  }

  /** The bundle to serve: the Secret's, created or rotated first when needed. */
  async ensure(): Promise<ServingBundle> {
    const { client, namespace, secretName } = this.#options;
    for (let attempt = 0; attempt < 5; attempt++) {
      let secret: Secret | undefined;
      try {
        secret = await client.get<Secret>(SECRETS, namespace, secretName);
      } catch (err) {
        if (!isNotFound(err)) throw err;
      }
      const current = secret && this.#read(secret);
      if (current && this.#fresh(current)) return current;
      const next = await this.#generate(current);
      try {
        if (secret) {
          await client.replace<Secret>(SECRETS, { ...secret, data: this.#data(next) });
          this.#log.info('rotated the webhook certificates');
        } else {
          await client.create<Secret>(SECRETS, { apiVersion: 'v1', kind: 'Secret', metadata: { name: secretName, namespace }, type: 'kubernetes.io/tls', data: this.#data(next) });
          this.#log.info('created the webhook certificates');
        }
        return next;
      } catch (err) {
        if (!isAlreadyExists(err) && !isConflict(err)) throw err;
        // Another replica wrote first: use what it wrote.
      }
    }
    throw new Error(`could not settle the webhook certificates in Secret ${namespace}/${secretName}: too many concurrent writers`);
  }

  #read(secret: Secret): ServingBundle | undefined {
    const data = secret.data ?? {};
    const bundle = { ca: { cert: unb64(data['ca.crt']), key: unb64(data['ca.key']) }, serving: { cert: unb64(data['tls.crt']), key: unb64(data['tls.key']) } };
    if (!bundle.ca.cert || !bundle.ca.key || !bundle.serving.cert || !bundle.serving.key) return undefined;
    try {
      inspectCertificate(bundle.ca.cert);
      inspectCertificate(bundle.serving.cert);
    } catch {
      return undefined;
    }
    return bundle;
  }

  #data(bundle: ServingBundle): Record<string, string> {
    return { 'ca.crt': b64(bundle.ca.cert), 'ca.key': b64(bundle.ca.key), 'tls.crt': b64(bundle.serving.cert), 'tls.key': b64(bundle.serving.key) };
  }

  #margin(): number {
    return (this.#options.rotateBeforeDays ?? 30) * DAY_MS;
  }

  #fresh(bundle: ServingBundle): boolean {
    const now = this.#clock.now();
    const ca = inspectCertificate(bundle.ca.cert);
    const serving = inspectCertificate(bundle.serving.cert);
    return (
      ca.notAfter - now > this.#margin() &&
      serving.notAfter - now > this.#margin() &&
      serving.issuedBy(bundle.ca.cert) &&
      this.#options.hosts.every((host) => serving.hosts.includes(host))
    );
  }

  async #generate(current: ServingBundle | undefined): Promise<ServingBundle> {
    const now = this.#clock.now();
    const keepCA = current && inspectCertificate(current.ca.cert).notAfter - now > this.#margin();
    const ca: KeyPair = keepCA ? current.ca : await generateCA('podops-webhook-ca', this.#options.caValidityDays ?? 3650, now);
    const serving = await generateServing(ca, this.#options.hosts, this.#options.servingValidityDays ?? 365, now);
    return { ca, serving };
  }

  /** Writes the CA into every webhook of podops' configurations whose caBundle differs. */
  async injectCABundle(caCert: string): Promise<void> {
    const caBundle = b64(caCert);
    const targets: [ResourceType, string[]][] = [
      [MUTATING_WEBHOOK_CONFIGURATIONS, this.#options.mutatingWebhookConfigurations ?? []],
      [VALIDATING_WEBHOOK_CONFIGURATIONS, this.#options.validatingWebhookConfigurations ?? []],
    ];
    for (const [type, names] of targets) {
      for (const name of names) await this.#inject(type, name, caBundle);
    }
  }

  async #inject(type: ResourceType, name: string, caBundle: string): Promise<void> {
    for (let attempt = 0; attempt < 5; attempt++) {
      let config: WebhookConfiguration;
      try {
        config = await this.#options.client.get<WebhookConfiguration>(type, undefined, name);
      } catch (err) {
        if (!isNotFound(err)) throw err;
        // Installers may create the configurations after the operator starts: the first miss is expected.
        const level = this.#missing.has(name) ? 'warn' : 'info';
        this.#missing.add(name);
        return this.#log[level]({ name }, 'webhook configuration not found; its caBundle is injected at the next check');
      }
      this.#missing.delete(name);
      const webhooks = config.webhooks ?? [];
      if (webhooks.every((w) => w.clientConfig?.caBundle === caBundle)) return;
      try {
        await this.#options.client.replace(type, { ...config, webhooks: webhooks.map((w) => ({ ...w, clientConfig: { ...w.clientConfig, caBundle } })) });
        this.#log.info({ name }, 'injected the CA into the webhook configuration');
        return;
      } catch (err) {
        if (!isConflict(err)) throw err;
      }
    }
  }

  /** Keeps certificates fresh and injected until the signal aborts; `onServing` gets every new serving pair. */
  async run(signal: AbortSignal, onServing: (bundle: ServingBundle) => void): Promise<void> {
    let served = '';
    while (!signal.aborted) {
      try {
        const bundle = await this.ensure();
        if (bundle.serving.cert !== served) {
          served = bundle.serving.cert;
          onServing(bundle);
        }
        await this.injectCABundle(bundle.ca.cert);
      } catch (err) {
        this.#log.error({ err }, 'certificate check failed');
      }
      await sleep(this.#clock, this.#options.checkIntervalMs ?? 60_000, signal);
    }
  }
}
