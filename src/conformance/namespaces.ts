// The suite's namespaces: one per scenario and one for the capability probes, named podops-conformance-<random>
// by the API server and labelled as the suite's, so that nothing else in the cluster is touched and leftovers
// are easy to find. Deleting one first takes its pods out of the protocol and out of the suite's hands
// (GraceDelete would refuse the namespace controller's deletes, a protection finalizer would hold a pod),
// then waits, releasing the finalizers of the suite's objects that an implementation no longer runs for.

import { setTimeout as sleep } from 'node:timers/promises';
import { CONTROL_LABEL } from '../api/protocol.ts';
import { isNotFound, type KubeClient, type KubeObject } from '../kube/client.ts';
import { NAMESPACES, PODS, PODTRANSITIONRULES, ROLLOUTLIFECYCLES, SERVICE_ACCOUNTS } from '../kube/resources.ts';

export const NAMESPACE_PREFIX = 'podops-conformance-';
/** On every namespace of the suite: `kubectl delete namespace -l app.kubernetes.io/created-by=podops-conformance`. */
export const CREATED_BY_LABEL = 'app.kubernetes.io/created-by';
export const CREATED_BY = 'podops-conformance';
const PURPOSE_ANNOTATION = 'conformance.podops.io/scenario';

export async function createNamespace(client: KubeClient, purpose: string, signal: AbortSignal): Promise<string> {
  const namespace = await client.create<KubeObject>(
    NAMESPACES,
    { apiVersion: 'v1', kind: 'Namespace', metadata: { generateName: NAMESPACE_PREFIX, labels: { [CREATED_BY_LABEL]: CREATED_BY }, annotations: { [PURPOSE_ANNOTATION]: purpose } } },
    { signal },
  );
  return namespace.metadata.name!;
}

/** A new namespace refuses pods until the service account controller made its default ServiceAccount. */
export async function waitForServiceAccount(client: KubeClient, namespace: string, signal: AbortSignal): Promise<void> {
  for (;;) {
    try {
      await client.get(SERVICE_ACCOUNTS, namespace, 'default', signal);
      return;
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
    await sleep(100, undefined, { signal });
  }
}

const withoutFinalizers = { metadata: { finalizers: null } };

/** Starts the deletion of a namespace of the suite; returns what could not be done. */
export async function deleteNamespace(client: KubeClient, namespace: string, signal: AbortSignal): Promise<string[]> {
  const problems: string[] = [];
  try {
    for (const pod of (await client.list<KubeObject>(PODS, { namespace }, signal)).items) {
      const { labels, finalizers } = pod.metadata as { labels?: Record<string, string>; finalizers?: string[] };
      if (labels?.[CONTROL_LABEL] === undefined && !finalizers?.length) continue;
      await client.patch(PODS, namespace, pod.metadata.name!, 'merge', { metadata: { labels: { [CONTROL_LABEL]: null }, finalizers: null } }, { signal }).catch((err: unknown) => {
        if (!isNotFound(err)) problems.push(`pod ${pod.metadata.name}: ${(err as Error).message}`);
      });
    }
    await client.delete(NAMESPACES, undefined, namespace, { signal }).catch((err: unknown) => {
      if (!isNotFound(err)) throw err;
    });
  } catch (err) {
    problems.push((err as Error).message);
  }
  return problems;
}

/** Objects of the namespace being deleted that still carry finalizers: nothing of the suite needs them any more. */
async function releaseFinalizers(client: KubeClient, namespace: string, signal: AbortSignal): Promise<void> {
  for (const type of [PODS, PODTRANSITIONRULES, ROLLOUTLIFECYCLES]) {
    const items = await client.list<KubeObject>(type, { namespace }, signal).then((list) => list.items, () => []);
    for (const item of items) {
      const { deletionTimestamp, finalizers } = item.metadata as { deletionTimestamp?: string; finalizers?: string[] };
      if (deletionTimestamp && finalizers?.length) await client.patch(type, namespace, item.metadata.name!, 'merge', withoutFinalizers, { signal }).catch(() => {});
    }
  }
}

/** Waits until the namespaces are gone; returns those still there at the deadline, each with why. */
export async function awaitNamespacesGone(client: KubeClient, namespaces: readonly string[], timeoutMs: number): Promise<{ name: string; reason: string }[]> {
  const signal = AbortSignal.timeout(timeoutMs);
  const remaining = new Map(namespaces.map((name) => [name, 'still terminating']));
  while (remaining.size > 0 && !signal.aborted) {
    for (const name of remaining.keys()) {
      try {
        const namespace = await client.get<KubeObject & { status?: { conditions?: { status: string; message?: string }[] } }>(NAMESPACES, undefined, name, signal);
        const why = namespace.status?.conditions?.filter((c) => c.status === 'True' && c.message).map((c) => c.message);
        remaining.set(name, why?.length ? why.join('; ') : 'still terminating');
        await releaseFinalizers(client, name, signal);
      } catch (err) {
        if (isNotFound(err)) remaining.delete(name);
        else if (!signal.aborted) remaining.set(name, (err as Error).message);
      }
    }
    if (remaining.size > 0) await sleep(250, undefined, { signal }).catch(() => {});
  }
  return [...remaining].map(([name, reason]) => ({ name, reason }));
}
