// Self-managed webhook certificates (when no --cert-dir is given): a CA and a serving certificate kept in a
// Secret, so every replica serves the same certificate; rotated before expiry; and the trusted CAs written into
// the caBundle of podops' webhook configurations. Replicas race safely: creation is create-if-absent (the
// loser reads the winner's Secret) and rotation is an update guarded by resourceVersion.
//
// A CA rotation must never leave a replica serving a certificate the API server does not trust (the pod
// webhooks fail closed). So the caBundle holds up to three CAs, and each CA is trusted before it signs and
// after it stops signing:
// - `next`: made when the CA has less than twice the rotation margin left, trusted at once, signs nothing yet;
// - the CA itself, which signs the serving certificate;
// - `previous`: the CA that signed before the last promotion of `next`, trusted until it expires, for replicas
//   that still serve its certificate (each picks up the new one at its next check, within a minute).
// When the CA has less than the margin left, `next` is promoted and a serving certificate is issued by it;
// it has been trusted for a whole margin by then (at least one check, if podops was down through it), so even
// a replica whose check read the Secret just before a change injects a bundle that trusts what everyone serves.

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
  /** Rotate a certificate this long before it expires (the next CA is made twice as long before). Default 30 days. */
  rotateBeforeDays?: number;
  /** How often to check. Default one minute. */
  checkIntervalMs?: number;
  clock?: Clock;
  logger?: Logger;
}

/** What the Secret holds: the serving pair, its CA, and the CAs trusted around a CA rotation. */
export interface ManagedCertificates extends ServingBundle {
  /** The CA that signs after the next rotation; already trusted. */
  next?: KeyPair;
  /** The CA that signed before the last rotation; still trusted until it expires. */
  previous?: string;
  /** PEM of every CA to trust (ca, next, previous): the caBundle of the webhook configurations. */
  caBundle: string;
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

const parses = (pem: string): boolean => {
  try {
    inspectCertificate(pem);
    return true;
  } catch {
    return false;
  }
};

const withBundle = (state: Omit<ManagedCertificates, 'caBundle'>): ManagedCertificates => ({
  ...state,
  caBundle: [state.ca.cert, state.next?.cert, state.previous].filter((pem): pem is string => pem !== undefined).map((pem) => (pem.endsWith('\n') ? pem : `${pem}\n`)).join(''),
});

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

  /** The certificates to serve and trust: the Secret's, created or rotated first when needed. */
  async ensure(): Promise<ManagedCertificates> {
    const { client, namespace, secretName } = this.#options;
    for (let attempt = 0; attempt < 5; attempt++) {
      let secret: Secret | undefined;
      try {
        secret = await client.get<Secret>(SECRETS, namespace, secretName);
      } catch (err) {
        if (!isNotFound(err)) throw err;
      }
      const current = secret && this.#read(secret);
      const planned = await this.#plan(current);
      if (current && planned === current) return current;
      try {
        if (secret) {
          await client.replace<Secret>(SECRETS, { ...secret, data: this.#data(planned) });
          this.#log.info('rotated the webhook certificates');
        } else {
          await client.create<Secret>(SECRETS, { apiVersion: 'v1', kind: 'Secret', metadata: { name: secretName, namespace }, type: 'kubernetes.io/tls', data: this.#data(planned) });
          this.#log.info('created the webhook certificates');
        }
        return planned;
      } catch (err) {
        if (!isAlreadyExists(err) && !isConflict(err)) throw err;
        // Another replica wrote first: use what it wrote.
      }
    }
    throw new Error(`could not settle the webhook certificates in Secret ${namespace}/${secretName}: too many concurrent writers`);
  }

  #read(secret: Secret): ManagedCertificates | undefined {
    const data = secret.data ?? {};
    const ca = { cert: unb64(data['ca.crt']), key: unb64(data['ca.key']) };
    const serving = { cert: unb64(data['tls.crt']), key: unb64(data['tls.key']) };
    if (!ca.cert || !ca.key || !serving.cert || !serving.key || !parses(ca.cert) || !parses(serving.cert)) return undefined;
    const next = { cert: unb64(data['ca-next.crt']), key: unb64(data['ca-next.key']) };
    const previous = unb64(data['ca-previous.crt']);
    // A broken next or previous CA is dropped (and a next one made again) rather than failing the whole Secret.
    return withBundle({
      ca,
      serving,
      ...(next.cert && next.key && parses(next.cert) && { next }),
      ...(previous && parses(previous) && { previous }),
    });
  }

  #data(state: ManagedCertificates): Record<string, string> {
    return {
      'ca.crt': b64(state.ca.cert),
      'ca.key': b64(state.ca.key),
      'tls.crt': b64(state.serving.cert),
      'tls.key': b64(state.serving.key),
      ...(state.next && { 'ca-next.crt': b64(state.next.cert), 'ca-next.key': b64(state.next.key) }),
      ...(state.previous && { 'ca-previous.crt': b64(state.previous) }),
    };
  }

  /** The state the Secret should hold now: `current` itself when nothing is due. */
  async #plan(current: ManagedCertificates | undefined): Promise<ManagedCertificates> {
    const now = this.#clock.now();
    const margin = (this.#options.rotateBeforeDays ?? 30) * DAY_MS;
    const left = (pem: string): number => inspectCertificate(pem).notAfter - now;
    // Each CA gets its own name (as kube's self-signed CAs do): verifiers look issuers up by name first.
    const newCA = (): Promise<KeyPair> => generateCA(`podops-webhook-ca@${Math.floor(now / 1000)}`, this.#options.caValidityDays ?? 3650, now);
    const newServing = (ca: KeyPair): Promise<KeyPair> => generateServing(ca, this.#options.hosts, this.#options.servingValidityDays ?? 365, now);
    // No usable CA: nothing can be trusted across the change, so start over.
    if (!current || left(current.ca.cert) <= 0) {
      const ca = await newCA();
      return withBundle({ ca, serving: await newServing(ca) });
    }
    let { ca, serving, next, previous } = current;
    if (previous !== undefined && left(previous) <= 0) previous = undefined;
    // A next CA with less than the margin left could not be trusted for a whole margin before signing.
    if (next && left(next.cert) <= margin) next = undefined;
    if (next && left(ca.cert) <= margin) {
      previous = ca.cert;
      ca = next;
      next = undefined;
    }
    if (!next && left(ca.cert) <= 2 * margin) next = await newCA();
    const facts = inspectCertificate(serving.cert);
    if (facts.notAfter - now <= margin || !facts.issuedBy(ca.cert) || !this.#options.hosts.every((host) => facts.hosts.includes(host))) {
      serving = await newServing(ca);
    }
    const unchanged = ca === current.ca && serving === current.serving && next === current.next && previous === current.previous;
    return unchanged ? current : withBundle({ ca, serving, ...(next && { next }), ...(previous !== undefined && { previous }) });
  }

  /** Writes the CA bundle (PEM, one or more certificates) into every webhook of podops' configurations whose caBundle differs. */
  async injectCABundle(pem: string): Promise<void> {
    const caBundle = b64(pem);
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

  /**
   * Keeps certificates fresh and injected until the signal aborts; `onServing` gets every new serving pair. The
   * caBundle is re-injected at every check, so one changed by someone else is put back within a check.
   */
  async run(signal: AbortSignal, onServing: (bundle: ManagedCertificates) => void): Promise<void> {
    let served = '';
    while (!signal.aborted) {
      try {
        const bundle = await this.ensure();
        if (bundle.serving.cert !== served) {
          served = bundle.serving.cert;
          onServing(bundle);
        }
        await this.injectCABundle(bundle.caBundle);
      } catch (err) {
        this.#log.error({ err }, 'certificate check failed');
      }
      await sleep(this.#clock, this.#options.checkIntervalMs ?? 60_000, signal);
    }
  }
}
