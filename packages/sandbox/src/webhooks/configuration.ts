// The webhooks of the stored Mutating- and ValidatingWebhookConfigurations as the admission plugins
// use them: configurations in name order, webhooks in their order within one, selectors parsed once.
// The list is rebuilt after any write to the configurations, so a change applies to the next request.

import type { KubeObject } from '../meta/object.ts';
import type { LabelSelector } from '../selectors/labels.ts';
import { LabelSelectorError } from '../selectors/labels.ts';
import { labelSelectorFromObject } from '../selectors/label-selector.ts';
import type { Store } from '../storage/store.ts';
import { storageKeyOf } from '../registry/types.ts';
import { asArray, asNumber, asObject, asString, isPresent, objectList } from '../validation/json.ts';

export type WebhookType = 'mutating' | 'validating';

export interface WebhookRule {
  operations: readonly string[];
  apiGroups: readonly string[];
  apiVersions: readonly string[];
  resources: readonly string[];
  scope: string;
}

export interface ServiceReference {
  namespace: string;
  name: string;
  port: number;
  path: string;
}

/** A selector as LabelSelectorAsSelector converts it, or the conversion's error. */
export type ParsedSelector = { selector: LabelSelector } | { error: string };

export interface Webhook {
  /** `configuration/webhook/index`: what the reinvocation bookkeeping keys on. */
  readonly uid: string;
  readonly type: WebhookType;
  readonly configurationName: string;
  readonly name: string;
  readonly rules: readonly WebhookRule[];
  readonly failurePolicy: 'Fail' | 'Ignore';
  readonly matchPolicy: 'Exact' | 'Equivalent';
  readonly namespaceSelector: ParsedSelector;
  readonly objectSelector: ParsedSelector;
  /** Undefined only for objects stored without one (the v1 API requires it). */
  readonly sideEffects: string | undefined;
  readonly timeoutSeconds: number;
  readonly admissionReviewVersions: readonly string[];
  readonly reinvocationPolicy: 'Never' | 'IfNeeded';
  readonly url: string | undefined;
  readonly service: ServiceReference | undefined;
  /** The decoded `clientConfig.caBundle` (PEM), undefined when none is set. */
  readonly caBundle: string | undefined;
}

const defaultTimeoutSeconds = 10;

function parseSelector(raw: unknown): ParsedSelector {
  try {
    // A webhook without a selector is defaulted to `{}`: every object or namespace.
    return { selector: labelSelectorFromObject(isPresent(raw) ? raw : {}) };
  } catch (err) {
    if (err instanceof LabelSelectorError) return { error: err.message };
    throw err;
  }
}

const strings = (v: unknown): string[] => asArray(v).map(asString);

function parseWebhook(type: WebhookType, configurationName: string, raw: Record<string, unknown>, index: number): Webhook {
  const name = asString(raw.name);
  const clientConfig = asObject(raw.clientConfig);
  const service = isPresent(clientConfig.service) ? asObject(clientConfig.service) : undefined;
  const caBundle = asString(clientConfig.caBundle);
  return {
    uid: `${configurationName}/${name}/${index}`,
    type,
    configurationName,
    name,
    rules: objectList(raw.rules).map((rule) => ({
      operations: strings(rule.operations),
      apiGroups: strings(rule.apiGroups),
      apiVersions: strings(rule.apiVersions),
      resources: strings(rule.resources),
      scope: asString(rule.scope) || '*',
    })),
    failurePolicy: raw.failurePolicy === 'Ignore' ? 'Ignore' : 'Fail',
    matchPolicy: raw.matchPolicy === 'Exact' ? 'Exact' : 'Equivalent',
    namespaceSelector: parseSelector(raw.namespaceSelector),
    objectSelector: parseSelector(raw.objectSelector),
    sideEffects: isPresent(raw.sideEffects) ? asString(raw.sideEffects) : undefined,
    timeoutSeconds: asNumber(raw.timeoutSeconds) ?? defaultTimeoutSeconds,
    admissionReviewVersions: strings(raw.admissionReviewVersions),
    reinvocationPolicy: raw.reinvocationPolicy === 'IfNeeded' ? 'IfNeeded' : 'Never',
    url: isPresent(clientConfig.url) ? asString(clientConfig.url) : undefined,
    service: service && {
      namespace: asString(service.namespace),
      name: asString(service.name),
      port: asNumber(service.port) ?? 443,
      path: asString(service.path),
    },
    caBundle: caBundle ? Buffer.from(caBundle, 'base64').toString('utf8') : undefined,
  };
}

/** The webhooks of one configuration object, in order. */
export function webhooksOf(type: WebhookType, configuration: KubeObject): Webhook[] {
  const name = configuration.metadata.name ?? '';
  return objectList(configuration.webhooks).map((raw, i) => parseWebhook(type, name, raw, i));
}

const resourceOf: Record<WebhookType, string> = {
  mutating: storageKeyOf('admissionregistration.k8s.io', 'mutatingwebhookconfigurations'),
  validating: storageKeyOf('admissionregistration.k8s.io', 'validatingwebhookconfigurations'),
};

/** The current webhooks of one type, read from the store and cached until a configuration changes. */
export class WebhookSource {
  readonly #store: Pick<Store, 'list'>;
  readonly #type: WebhookType;
  readonly #unsubscribe: () => void;
  #cached: readonly Webhook[] | undefined;

  constructor(store: Pick<Store, 'list' | 'subscribeResource'>, type: WebhookType) {
    this.#store = store;
    this.#type = type;
    this.#unsubscribe = store.subscribeResource(resourceOf[type], () => {
      this.#cached = undefined;
    });
  }

  webhooks(): readonly Webhook[] {
    // The store lists in key order, which for these cluster-scoped objects is name order.
    this.#cached ??= this.#store.list(resourceOf[this.#type]).flatMap((entry) => webhooksOf(this.#type, entry.object));
    return this.#cached;
  }

  stop(): void {
    this.#unsubscribe();
  }
}
