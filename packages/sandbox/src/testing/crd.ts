// Registering a CustomResourceDefinition for a test: create it, then wait until it is Established and
// every served version is in the registry (so in discovery), as the CRD controller serves them right
// after it writes the condition. Then the next request for its resources, from any client, is served.

import { isJsonObject, type KubeObject } from '../meta/object.ts';
import { customResourceServing } from '../registry/custom-resources.ts';
import { conditionStatus, waitForState, WaitTimeoutError, type WaitOptions, type Waiting } from './wait.ts';

const crds = { group: 'apiextensions.k8s.io', version: 'v1', resource: 'customresourcedefinitions' };

/** The message of a condition, for errors. */
function conditionMessage(crd: KubeObject, type: string): string {
  const conditions = isJsonObject(crd.status) && Array.isArray(crd.status.conditions) ? crd.status.conditions : [];
  const condition = conditions.find((c) => isJsonObject(c) && c.type === type) as { reason?: string; message?: string } | undefined;
  return [condition?.reason, condition?.message].filter(Boolean).join(': ');
}

export async function registerCrd(waiting: Waiting, crd: object, options: WaitOptions = {}): Promise<KubeObject> {
  if (!isJsonObject(crd)) throw new Error('registerCrd takes a CustomResourceDefinition object');
  const started = Date.now();
  const timeoutMs = options.timeoutMs ?? 10_000;
  // As a client sends it: a typed object's Dates become strings.
  const created = await waiting.client.create(crds, JSON.parse(JSON.stringify(crd)) as KubeObject);
  const ref = { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', name: created.metadata.name ?? '' };
  const established = (await waitForState(
    waiting,
    ref,
    (state) => {
      if (!state) throw new Error(`CustomResourceDefinition ${ref.name} was deleted while waiting for it to be Established`);
      if (conditionStatus(state, 'NamesAccepted') === 'False') {
        throw new Error(`CustomResourceDefinition ${ref.name} is not served: NamesAccepted is False (${conditionMessage(state, 'NamesAccepted')})`);
      }
      return conditionStatus(state, 'Established') === 'True';
    },
    'to be Established',
    { timeoutMs },
  )) as KubeObject;
  await served(waiting, established, timeoutMs - (Date.now() - started));
  return established;
}

/** Resolves once every served version of an Established CRD is in the registry. */
function served(waiting: Waiting, crd: KubeObject, timeoutMs: number): Promise<void> {
  const { registry } = waiting;
  const { definitions } = customResourceServing(crd);
  const isServed = (): boolean => definitions.every((d) => registry.get(d.group, d.version, d.resource) !== undefined);
  if (isServed()) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const finish = (outcome: () => void): void => {
      clearTimeout(timer);
      unsubscribe();
      outcome();
    };
    const unsubscribe = registry.onChange(() => {
      if (isServed()) finish(resolve);
    });
    const timer = setTimeout(
      () => finish(() => reject(new WaitTimeoutError(`CustomResourceDefinition ${crd.metadata.name} is Established but its resources were not served within the timeout`, crd))),
      Math.max(timeoutMs, 0),
    );
  });
}
