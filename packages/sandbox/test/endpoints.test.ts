// The Endpoints and EndpointSlice controllers through the HTTP API, fed by the simulated kubelet:
// ready and not-ready addresses (readiness gates, the ready control annotation), named targetPorts,
// terminating pods, labels, the trigger-time annotation, placeholder and split slices.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { CoreV1Api, DiscoveryV1Api, PatchStrategy, setHeaderOptions, type V1Endpoints, type V1EndpointSlice, type V1Pod } from '@kubernetes/client-node';
import { eventually, podManifest, skipWithoutKubectl, startHarness, type Harness } from './harness.ts';

let h: Harness;
let core: CoreV1Api;
let discovery: DiscoveryV1Api;
const ns = 'eps';
const merge = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);
const strategic = setHeaderOptions('Content-Type', PatchStrategy.StrategicMergePatch);
const gracePeriodCapMs = 400;

before(async () => {
  h = await startHarness({ simulation: { nodes: 3, kubelet: { startDelayMs: 0, gracePeriodCapMs, maxPods: 100 } } });
  core = h.kc.makeApiClient(CoreV1Api);
  discovery = h.kc.makeApiClient(DiscoveryV1Api);
  await core.createNamespace({ body: { metadata: { name: ns } } });
});
after(() => h.stop());

const webPod = (name: string, extra: { labels?: Record<string, string>; gate?: boolean; finalizer?: boolean } = {}) =>
  core.createNamespacedPod({
    namespace: ns,
    body: podManifest(name, {
      metadata: { labels: extra.labels ?? { app: 'web' }, ...(extra.finalizer ? { finalizers: ['example.com/hold'] } : {}) },
      spec: {
        containers: [{ name: 'c', image: 'nginx', ports: [{ name: 'http', containerPort: 8080 }] }],
        terminationGracePeriodSeconds: 30,
        ...(extra.gate ? { readinessGates: [{ conditionType: 'example.com/gate' }] } : {}),
      },
    }) as V1Pod,
  });

const service = (name: string, spec: Record<string, unknown>, labels: Record<string, string> = {}) =>
  core.createNamespacedService({ namespace: ns, body: { metadata: { name, labels }, spec } });

const endpoints = (name: string): Promise<V1Endpoints | undefined> => core.readNamespacedEndpoints({ name, namespace: ns }).catch(() => undefined);
const slices = async (service: string): Promise<V1EndpointSlice[]> =>
  (await discovery.listNamespacedEndpointSlice({ namespace: ns, labelSelector: `kubernetes.io/service-name=${service}` })).items;

const readyNames = (ep: V1Endpoints | undefined): string[] => (ep?.subsets ?? []).flatMap((s) => s.addresses ?? []).map((a) => a.targetRef?.name ?? '').sort();
const notReadyNames = (ep: V1Endpoints | undefined): string[] => (ep?.subsets ?? []).flatMap((s) => s.notReadyAddresses ?? []).map((a) => a.targetRef?.name ?? '').sort();

/** Waits until the Service's Endpoints list exactly these ready and not-ready pods. */
const waitEndpoints = (name: string, ready: string[], notReady: string[]): Promise<V1Endpoints> =>
  eventually(async () => {
    const ep = await endpoints(name);
    return ep && JSON.stringify(readyNames(ep)) === JSON.stringify(ready) && JSON.stringify(notReadyNames(ep)) === JSON.stringify(notReady) ? ep : undefined;
  });

const sliceEndpoint = async (service: string, pod: string) => {
  for (const slice of await slices(service)) {
    const found = slice.endpoints?.find((e) => e.targetRef?.name === pod);
    if (found) return found;
  }
  return undefined;
};

describe('Endpoints and EndpointSlices', () => {
  test('a readiness gate not True keeps a running pod in notReadyAddresses; the gate set True through pods/status moves it to addresses', async () => {
    await service('web', { selector: { app: 'web' }, ports: [{ name: 'http', port: 80, targetPort: 'http' }] }, { team: 'a' });
    await webPod('web-1');
    await webPod('web-2', { gate: true });
    const ep = await waitEndpoints('web', ['web-1'], ['web-2']);
    assert.equal(ep.subsets?.length, 1);
    const subset = ep.subsets![0]!;
    assert.deepEqual(
      subset.ports?.map((p) => ({ ...p })),
      [{ name: 'http', port: 8080, protocol: 'TCP' }],
      'the named targetPort resolves to the container port',
    );
    const address = subset.addresses![0]!;
    const pod = await core.readNamespacedPod({ name: 'web-1', namespace: ns });
    assert.equal(address.ip, pod.status?.podIP);
    assert.equal(address.nodeName, pod.spec?.nodeName);
    assert.deepEqual({ ...address.targetRef }, { kind: 'Pod', namespace: ns, name: 'web-1', uid: pod.metadata?.uid });
    assert.deepEqual(ep.metadata?.labels, { team: 'a' });

    const gated = await eventually(() => sliceEndpoint('web', 'web-2'));
    assert.deepEqual({ ...gated.conditions }, { ready: false, serving: false, terminating: false });
    await core.patchNamespacedPodStatus({ name: 'web-2', namespace: ns, body: { status: { conditions: [{ type: 'example.com/gate', status: 'True' }] } } }, strategic);
    await waitEndpoints('web', ['web-1', 'web-2'], []);
    const open = await eventually(async () => {
      const e = await sliceEndpoint('web', 'web-2');
      return e?.conditions?.ready ? e : undefined;
    });
    assert.deepEqual({ ...open.conditions }, { ready: true, serving: true, terminating: false });
  });

  test('EndpointSlices: labels, owner, address type, ports and endpoint fields', async () => {
    const [slice] = await eventually(async () => {
      const list = await slices('web');
      return list.length === 1 && list[0]?.endpoints?.length === 2 ? list : undefined;
    });
    assert.ok(slice);
    assert.match(slice.metadata?.name ?? '', /^web-[a-z0-9]{5}$/);
    assert.deepEqual(slice.metadata?.labels, {
      team: 'a',
      'kubernetes.io/service-name': 'web',
      'endpointslice.kubernetes.io/managed-by': 'endpointslice-controller.k8s.io',
    });
    const svc = await core.readNamespacedService({ name: 'web', namespace: ns });
    assert.deepEqual({ ...slice.metadata?.ownerReferences?.[0] }, { apiVersion: 'v1', kind: 'Service', name: 'web', uid: svc.metadata?.uid, controller: true, blockOwnerDeletion: true });
    assert.equal(slice.addressType, 'IPv4');
    assert.deepEqual(
      slice.ports?.map((p) => ({ ...p })),
      [{ name: 'http', port: 8080, protocol: 'TCP' }],
    );
    const endpoint = slice.endpoints?.find((e) => e.targetRef?.name === 'web-1');
    const pod = await core.readNamespacedPod({ name: 'web-1', namespace: ns });
    assert.deepEqual(endpoint?.addresses, [pod.status?.podIP]);
    assert.equal(endpoint?.nodeName, pod.spec?.nodeName);
  });

  test('the ready control annotation moves a pod between addresses and notReadyAddresses', async () => {
    await core.patchNamespacedPod({ name: 'web-1', namespace: ns, body: { metadata: { annotations: { 'sandbox.podops.io/ready': 'false' } } } }, merge);
    await waitEndpoints('web', ['web-2'], ['web-1']);
    await core.patchNamespacedPod({ name: 'web-1', namespace: ns, body: { metadata: { annotations: { 'sandbox.podops.io/ready': null } } } }, merge);
    await waitEndpoints('web', ['web-1', 'web-2'], []);
  });

  test('relabelling a pod out of the selector removes it; a label change that keeps the selection rewrites nothing', async () => {
    const before = await waitEndpoints('web', ['web-1', 'web-2'], []);
    await core.patchNamespacedPod({ name: 'web-2', namespace: ns, body: { metadata: { labels: { unrelated: 'x' } } } }, merge);
    await core.patchNamespacedPod({ name: 'web-2', namespace: ns, body: { metadata: { labels: { app: 'other' } } } }, merge);
    await waitEndpoints('web', ['web-1'], []);
    await eventually(async () => ((await slices('web'))[0]?.endpoints?.length === 1 ? true : undefined));
    await core.patchNamespacedPod({ name: 'web-2', namespace: ns, body: { metadata: { labels: { app: 'web', unrelated: null } } } }, merge);
    const after = await waitEndpoints('web', ['web-1', 'web-2'], []);
    assert.notEqual(after.metadata?.resourceVersion, before.metadata?.resourceVersion);
    await core.patchNamespacedPod({ name: 'web-1', namespace: ns, body: { metadata: { labels: { unrelated: 'y' } } } }, merge);
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.equal((await endpoints('web'))?.metadata?.resourceVersion, after.metadata?.resourceVersion);
  });

  test('a terminating pod leaves the Endpoints at once but stays in the slice as terminating, serving while Ready', async () => {
    await webPod('web-3', { finalizer: true });
    await waitEndpoints('web', ['web-1', 'web-2', 'web-3'], []);
    await core.deleteNamespacedPod({ name: 'web-3', namespace: ns });
    await waitEndpoints('web', ['web-1', 'web-2'], []);
    const terminating = await eventually(async () => {
      const e = await sliceEndpoint('web', 'web-3');
      return e?.conditions?.terminating ? e : undefined;
    });
    assert.deepEqual({ ...terminating.conditions }, { ready: false, serving: true, terminating: true });
    // Once stopped the pod is terminal: out of the slices too, though its finalizer keeps it.
    await eventually(async () => ((await sliceEndpoint('web', 'web-3')) ? undefined : true), 5000);
    assert.ok(await core.readNamespacedPod({ name: 'web-3', namespace: ns }));
    await core.patchNamespacedPod({ name: 'web-3', namespace: ns, body: { metadata: { finalizers: null } } }, merge);
  });

  test('publishNotReadyAddresses lists every pod in addresses; a headless Service is labelled and pods named by hostname', async () => {
    await service('all', { selector: { app: 'web' }, clusterIP: 'None', publishNotReadyAddresses: true, ports: [{ port: 9000, targetPort: 9000 }] });
    await core.patchNamespacedPod({ name: 'web-1', namespace: ns, body: { metadata: { annotations: { 'sandbox.podops.io/ready': 'false' } } } }, merge);
    const ep = await waitEndpoints('all', ['web-1', 'web-2'], []);
    assert.deepEqual(ep.metadata?.labels, { 'service.kubernetes.io/headless': '' });
    assert.deepEqual(
      ep.subsets?.[0]?.ports?.map((p) => ({ ...p })),
      [{ port: 9000, protocol: 'TCP' }],
    );
    // Slices follow pod changes after the batch period.
    const endpoint = await eventually(async () => {
      const e = await sliceEndpoint('all', 'web-1');
      return e?.conditions?.serving === false ? e : undefined;
    });
    assert.deepEqual({ ...endpoint.conditions }, { ready: true, serving: false, terminating: false });
    const [slice] = await slices('all');
    assert.equal(slice?.metadata?.labels?.['service.kubernetes.io/headless'], '');
    assert.deepEqual(
      slice?.ports?.map((p) => ({ ...p })),
      [{ name: '', port: 9000, protocol: 'TCP' }],
    );
    await core.patchNamespacedPod({ name: 'web-1', namespace: ns, body: { metadata: { annotations: { 'sandbox.podops.io/ready': null } } } }, merge);
  });

  test('a Service selecting nothing gets an Endpoints without subsets and one placeholder slice, triggered by its creation', async () => {
    const created = await service('empty', { selector: { app: 'none' }, ports: [{ port: 80 }] });
    const ep = await eventually(() => endpoints('empty'));
    assert.equal(ep.subsets, undefined);
    const trigger = 'endpoints.kubernetes.io/last-change-trigger-time';
    assert.equal(ep.metadata?.annotations?.[trigger], created.metadata?.creationTimestamp?.toISOString().replace('.000Z', 'Z'));
    const [placeholder] = await eventually(async () => {
      const list = await slices('empty');
      return list.length ? list : undefined;
    });
    const raw = await h.http('GET', `/apis/discovery.k8s.io/v1/namespaces/${ns}/endpointslices/${placeholder?.metadata?.name}`);
    assert.equal(raw.json.endpoints, null);
    assert.equal(raw.json.ports, null);
    assert.equal(raw.json.metadata.annotations[trigger], ep.metadata?.annotations?.[trigger]);
  });

  test('a Service without a selector is left alone; deleting a Service removes its Endpoints and slices', async () => {
    await service('manual', { ports: [{ port: 80 }] });
    await new Promise((r) => setTimeout(r, 50));
    assert.equal(await endpoints('manual'), undefined);
    assert.deepEqual(await slices('manual'), []);
    await core.deleteNamespacedService({ name: 'web', namespace: ns });
    await eventually(async () => ((await endpoints('web')) ? undefined : true));
    await eventually(async () => ((await slices('web')).length ? undefined : true));
  });

  test('more than 100 endpoints are split over several slices', async () => {
    await service('many', { selector: { app: 'many' }, ports: [{ port: 80 }] });
    for (let i = 0; i < 130; i++) await webPod(`many-${i}`, { labels: { app: 'many' } });
    const list = await eventually(async () => {
      const all = await slices('many');
      const count = all.reduce((n, s) => n + (s.endpoints?.length ?? 0), 0);
      return count === 130 && all.every((s) => s.endpoints?.every((e) => e.conditions?.ready)) ? all : undefined;
    }, 15_000);
    // How they split depends on the batches the pods arrived in (as in kcm): never above 100 per slice.
    const sizes = list.map((s) => s.endpoints?.length ?? 0);
    assert.ok(sizes.length >= 2 && sizes.every((n) => n <= 100), `slice sizes ${sizes.join(', ')}`);
    const ep = await waitEndpoints('many', Array.from({ length: 130 }, (_, i) => `many-${i}`).sort(), []);
    const ips = ep.subsets?.[0]?.addresses?.map((a) => a.ip) ?? [];
    assert.deepEqual(ips, [...ips].sort(), 'addresses sorted by IP');
  });

  test('kubectl get endpoints and endpointslices', { skip: skipWithoutKubectl }, async () => {
    const out = await h.kubectl(['get', 'endpoints', 'all', '-n', ns]);
    assert.equal(out.code, 0, out.stderr);
    assert.match(out.stdout, /all\s+10\.244\.\d+\.\d+:9000,10\.244\.\d+\.\d+:9000/);
    const slicesOut = await h.kubectl(['get', 'endpointslices', '-n', ns, '-l', 'kubernetes.io/service-name=all']);
    assert.match(slicesOut.stdout, /all-\w{5}\s+IPv4\s+9000/);
  });
});
