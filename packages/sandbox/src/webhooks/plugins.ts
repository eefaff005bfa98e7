// The MutatingAdmissionWebhook and ValidatingAdmissionWebhook admission plugins. Mutating webhooks
// are called one after another (configurations in name order, webhooks in order), each with the
// object as the previous ones left it; when one changes the object, webhooks with
// reinvocationPolicy IfNeeded that already ran are called once more after the first round.
// Validating webhooks are all called at once; the first failure to arrive is the answer.
// A failure to call a webhook is a 500 under failurePolicy Fail and is skipped under Ignore.

import { internalErrorStatus, StatusError, withEarlierWarnings } from '../errors.ts';
import { objectKey } from '../meta/object.ts';
import type { Clock } from '../meta/time.ts';
import type { AdmissionAttributes, AdmissionPlugin } from '../apiserver/admission.ts';
import type { Registry } from '../registry/registry.ts';
import type { GroupVersionResource, ResourceDefinition } from '../registry/types.ts';
import type { Store } from '../storage/store.ts';
import { callMutatingWebhook, callValidatingWebhook, WebhookCallError, type CallDependencies, type CallOutcome } from './call.ts';
import type { ClientCertificates } from './client-credentials.ts';
import { WebhookSource, type Webhook } from './configuration.ts';
import type { WebhookServiceAddresses } from './endpoint.ts';
import { isExemptFromWebhooks, matchWebhook, type EquivalentResource, type Invocation, type MatchContext } from './matching.ts';

export interface WebhookAdmissionDependencies {
  store: Pick<Store, 'get' | 'list' | 'subscribeResource'>;
  registry: Registry;
  clock: Clock;
  /** Read on every call, so the map may change while the sandbox runs. */
  serviceAddresses(): WebhookServiceAddresses;
  /** The client certificate each plugin presents to a webhook host (--admission-control-config-file). */
  clientCertificates: ClientCertificates;
}

export interface WebhookAdmission {
  readonly mutating: AdmissionPlugin;
  readonly validating: AdmissionPlugin;
  stop(): void;
}

function servesSubresource(def: ResourceDefinition, subresource: string): boolean {
  switch (subresource) {
    case '':
      return true;
    case 'status':
      return def.strategy.hasStatusSubresource;
    case 'scale':
      return def.scale !== undefined;
    case 'finalize':
      return def.strategy.prepareForFinalizeUpdate !== undefined;
    default:
      return false;
  }
}

function matchContext(deps: WebhookAdmissionDependencies): MatchContext {
  return {
    namespaceLabels(name) {
      const entry = deps.store.get('namespaces', name);
      return entry ? (entry.object.metadata.labels ?? {}) : undefined;
    },
    equivalents(resource: GroupVersionResource, subresource: string): EquivalentResource[] {
      const def = deps.registry.get(resource.group, resource.version, resource.resource);
      if (!def) return [];
      return deps.registry
        .all()
        .filter((d) => d.storageKey === def.storageKey && servesSubresource(d, subresource))
        .map((d) => ({
          resource: { group: d.group, version: d.version, resource: d.resource },
          kind: subresource === 'scale' ? { group: 'autoscaling', version: 'v1', kind: 'Scale' } : { group: d.group, version: d.version, kind: d.kind },
        }));
    },
  };
}

/** Bookkeeping of reinvocationPolicy IfNeeded across the two rounds of mutating webhooks. */
class Reinvocation {
  readonly #invokedSinceLastChange = new Set<string>();
  readonly #toReinvoke = new Set<string>();
  #needed = false;

  get needed(): boolean {
    return this.#needed;
  }

  /** The object changed: every IfNeeded webhook called before now is called again in the second round. */
  objectChanged(): void {
    for (const uid of this.#invokedSinceLastChange) this.#toReinvoke.add(uid);
    this.#invokedSinceLastChange.clear();
    this.#needed = true;
  }

  invoked(webhook: Webhook): void {
    if (webhook.reinvocationPolicy === 'IfNeeded') this.#invokedSinceLastChange.add(webhook.uid);
  }

  /** In the second round only those webhooks run (never one that was skipped in the first). */
  callsAgain(webhook: Webhook): boolean {
    return this.#toReinvoke.has(webhook.uid);
  }
}

export function webhookAdmission(deps: WebhookAdmissionDependencies): WebhookAdmission {
  const mutatingSource = new WebhookSource(deps.store, 'mutating');
  const validatingSource = new WebhookSource(deps.store, 'validating');
  const context = matchContext(deps);
  const callDeps: CallDependencies = {
    registry: deps.registry,
    clock: deps.clock,
    lookupService: (namespace, name) => deps.store.get('services', objectKey(namespace, name))?.object,
    serviceAddresses: () => deps.serviceAddresses(),
    clientCertificates: deps.clientCertificates,
  };

  async function mutatingRound(hooks: readonly Webhook[], a: AdmissionAttributes, reinvocation: Reinvocation, again: boolean, warnings: string[]): Promise<void> {
    for (const hook of hooks) {
      let invocation: Invocation | undefined;
      try {
        invocation = matchWebhook(hook, a, context);
      } catch (err) {
        throw withEarlierWarnings(err, warnings);
      }
      if (!invocation || (again && !reinvocation.callsAgain(hook))) continue;
      let outcome: CallOutcome;
      try {
        outcome = await callMutatingWebhook(callDeps, invocation, a);
      } catch (err) {
        // A webhook that failed open still counts as invoked for reinvocation.
        reinvocation.invoked(hook);
        if (err instanceof WebhookCallError) {
          if (hook.failurePolicy === 'Ignore') continue;
          throw new StatusError(internalErrorStatus(err.message), warnings);
        }
        throw withEarlierWarnings(err, warnings);
      }
      warnings.push(...outcome.warnings);
      if (outcome.changed) reinvocation.objectChanged();
      reinvocation.invoked(hook);
    }
  }

  const mutating: AdmissionPlugin = {
    name: 'MutatingAdmissionWebhook',
    async admit(a) {
      if (isExemptFromWebhooks(a)) return [];
      const hooks = mutatingSource.webhooks();
      if (hooks.length === 0) return [];
      const warnings: string[] = [];
      const reinvocation = new Reinvocation();
      await mutatingRound(hooks, a, reinvocation, false, warnings);
      if (reinvocation.needed) await mutatingRound(hooks, a, reinvocation, true, warnings);
      return warnings;
    },
  };

  const validating: AdmissionPlugin = {
    name: 'ValidatingAdmissionWebhook',
    async validate(a) {
      if (isExemptFromWebhooks(a)) return [];
      const invocations = validatingSource.webhooks().flatMap((hook) => matchWebhook(hook, a, context) ?? []);
      if (invocations.length === 0) return [];
      const warnings: string[] = [];
      const failures: StatusError[] = [];
      await Promise.all(
        invocations.map(async (invocation) => {
          try {
            warnings.push(...(await callValidatingWebhook(callDeps, invocation, a)).warnings);
          } catch (err) {
            if (err instanceof WebhookCallError) {
              if (invocation.webhook.failurePolicy === 'Fail') failures.push(new StatusError(internalErrorStatus(err.message)));
              return;
            }
            if (!(err instanceof StatusError)) throw err;
            warnings.push(...err.warnings);
            failures.push(err);
          }
        }),
      );
      const [first] = failures;
      if (first) throw new StatusError(first.status, warnings);
      return warnings;
    },
  };

  return {
    mutating,
    validating,
    stop() {
      mutatingSource.stop();
      validatingSource.stop();
    },
  };
}
