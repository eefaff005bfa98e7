// The simulated nodes through the HTTP API: Node objects and Leases, the scheduler (pods/binding,
// nodeSelector, affinity, resources, the Unschedulable condition), and the kubelet (Pending -> Running
// -> Ready with the kubelet's conditions and container statuses, readiness gates, the test-control
// annotations, graceful deletion, finalizers, in-place image restarts, the container convention).

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { CoordinationV1Api, CoreV1Api, PatchStrategy, setHeaderOptions, type V1Pod } from '@kubernetes/client-node';
import { eventually, podManifest, skipWithoutKubectl, sleep, startHarness, type Harness } from './harness.ts';
import { watchStream, type Json } from './workloads.ts';

let h: Harness;
let core: CoreV1Api;
const ns = 'nodes';
const merge = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);
const strategic = setHeaderOptions('Content-Type', PatchStrategy.StrategicMergePatch);
const startDelayMs = 80;
const gracePeriodCapMs = 300;

before(async () => {
  h = await startHarness({
    simulation: { nodes: 3, controllers: false, kubelet: { startDelayMs, gracePeriodCapMs, sleepScale: 0.05, restartBackOffMs: 60 } },
  });
  core = h.kc.makeApiClient(CoreV1Api);
  await core.createNamespace({ body: { metadata: { name: ns } } });
});
after(() => h.stop());

const getPod = (name: string): Promise<V1Pod> => core.readNamespacedPod({ name, namespace: ns });
const createPod = (name: string, extra: Record<string, unknown> = {}): Promise<V1Pod> =>
  core.createNamespacedPod({ namespace: ns, body: podManifest(name, extra) as V1Pod });

/** Polls the pod until `check` holds (returns it) or the time is up. */
const waitPod = (name: string, check: (pod: V1Pod) => boolean, timeoutMs?: number): Promise<V1Pod> =>
  eventually(async () => {
    const pod = await getPod(name).catch(() => undefined);
    return pod && check(pod) ? pod : undefined;
  }, timeoutMs);

const condition = (pod: V1Pod, type: string) => pod.status?.conditions?.find((c) => c.type === type);
const isReady = (pod: V1Pod): boolean => condition(pod, 'Ready')?.status === 'True';
const container = (pod: V1Pod, name = 'c') => pod.status?.containerStatuses?.find((s) => s.name === name);
const gone = async (name: string): Promise<boolean> => (await h.http('GET', `/api/v1/namespaces/${ns}/pods/${name}`)).status === 404;

describe('nodes', () => {
  test('N Ready nodes with the kubelet labels, capacity, addresses and pod CIDRs, and their Leases', async () => {
    const nodes = await eventually(async () => {
      const list = await core.listNode();
      return list.items.length === 3 ? list.items : undefined;
    });
    assert.deepEqual(
      nodes.map((n) => n.metadata?.name),
      ['node-1', 'node-2', 'node-3'],
    );
    const node = nodes[1]!;
    assert.equal(node.metadata?.labels?.['kubernetes.io/hostname'], 'node-2');
    assert.equal(node.metadata?.labels?.['kubernetes.io/os'], 'linux');
    assert.equal(node.metadata?.labels?.['kubernetes.io/arch'], 'amd64');
    assert.equal(node.spec?.podCIDR, '10.244.2.0/24');
    assert.deepEqual(node.status?.addresses?.map((a) => ({ ...a })), [
      { type: 'InternalIP', address: '172.18.0.3' },
      { type: 'Hostname', address: 'node-2' },
    ]);
    assert.equal(node.status?.allocatable?.pods, '110');
    assert.equal(node.status?.capacity?.cpu, '8');
    const ready = node.status?.conditions?.find((c) => c.type === 'Ready');
    assert.equal(ready?.status, 'True');
    assert.equal(ready?.reason, 'KubeletReady');
    assert.equal(ready?.message, 'kubelet is posting ready status');
    assert.equal(node.status?.nodeInfo?.kubeletVersion, 'v1.32.0');
    const leases = await eventually(async () => {
      const list = await h.kc.makeApiClient(CoordinationV1Api).listNamespacedLease({ namespace: 'kube-node-lease' });
      return list.items.length === 3 ? list.items : undefined;
    });
    assert.equal(leases[0]?.spec?.holderIdentity, 'node-1');
    assert.equal(leases[0]?.spec?.leaseDurationSeconds, 40);
    assert.equal(leases[0]?.metadata?.ownerReferences?.[0]?.kind, 'Node');
  });

  test('kubectl get nodes shows them Ready', { skip: skipWithoutKubectl }, async () => {
    const out = await h.kubectl(['get', 'nodes']);
    assert.equal(out.code, 0, out.stderr);
    assert.match(out.stdout, /node-1\s+Ready/);
    assert.match(out.stdout, /node-3\s+Ready/);
  });
});

describe('scheduler', () => {
  test('binds through pods/binding: spec.nodeName and PodScheduled=True; a second binding is a Conflict', async () => {
    await createPod('bind');
    const pod = await waitPod('bind', (p) => !!p.spec?.nodeName);
    assert.match(pod.spec?.nodeName ?? '', /^node-[123]$/);
    assert.equal(condition(pod, 'PodScheduled')?.status, 'True');
    const again = await h.http('POST', `/api/v1/namespaces/${ns}/pods/bind/binding`, {
      apiVersion: 'v1',
      kind: 'Binding',
      metadata: { name: 'bind' },
      target: { kind: 'Node', name: 'node-1' },
    });
    assert.equal(again.status, 409);
    assert.equal(again.json.message, `Operation cannot be fulfilled on pods/binding "bind": pod bind is already assigned to node "${pod.spec?.nodeName}"`);
    assert.deepEqual(again.json.details, { name: 'bind', kind: 'pods/binding' });
    const event = await eventually(async () => (await core.listNamespacedEvent({ namespace: ns })).items.find((e) => e.involvedObject.name === 'bind'));
    assert.equal(event.reason, 'Scheduled');
    assert.equal(event.message, `Successfully assigned ${ns}/bind to ${pod.spec?.nodeName}`);
  });

  test('the scheduler and the kubelets write through admission, as system:kube-scheduler and system:node:<node>', async () => {
    const seen: { operation: string; kind: string; subresource: string | undefined; user: string; groups: string[] }[] = [];
    const remove = h.sandbox.addAdmission({
      name: 'recorder',
      admit(a) {
        if (a.name === 'admitted') seen.push({ operation: a.operation, kind: a.kind.kind, subresource: a.subresource, user: a.userInfo.username, groups: a.userInfo.groups });
      },
    });
    await createPod('admitted');
    const pod = await waitPod('admitted', isReady);
    remove();
    const binding = seen.find((s) => s.subresource === 'binding');
    assert.deepEqual(binding, { operation: 'CREATE', kind: 'Binding', subresource: 'binding', user: 'system:kube-scheduler', groups: ['system:authenticated'] });
    const status = seen.find((s) => s.subresource === 'status');
    assert.deepEqual(status, {
      operation: 'UPDATE',
      kind: 'Pod',
      subresource: 'status',
      user: `system:node:${pod.spec?.nodeName}`,
      groups: ['system:nodes', 'system:authenticated'],
    });
  });

  test('POST pods/NAME/binding answers Status Success 201; discovery lists pods/binding', async () => {
    await createPod('manual', { spec: { schedulerName: 'my-scheduler' } });
    await sleep(30);
    assert.equal((await getPod('manual')).spec?.nodeName, undefined, 'another scheduler name is left alone');
    const res = await h.http('POST', `/api/v1/namespaces/${ns}/pods/manual/binding`, {
      apiVersion: 'v1',
      kind: 'Binding',
      metadata: { name: 'manual', annotations: { 'example.com/by': 'test' } },
      target: { name: 'node-3' },
    });
    assert.equal(res.status, 201);
    assert.deepEqual(res.json, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 });
    const pod = await getPod('manual');
    assert.equal(pod.spec?.nodeName, 'node-3');
    assert.equal(pod.metadata?.annotations?.['example.com/by'], 'test');
    const invalid = await h.http('POST', `/api/v1/namespaces/${ns}/pods/manual/binding`, { apiVersion: 'v1', kind: 'Binding', metadata: { name: 'manual' }, target: {} });
    assert.equal(invalid.status, 500);
    assert.equal(invalid.json.message, 'target.name: Required value');
    const mismatch = await h.http('POST', `/api/v1/namespaces/${ns}/pods/manual/binding`, { apiVersion: 'v1', kind: 'Binding', metadata: { name: 'other' }, target: { name: 'node-1' } });
    assert.equal(mismatch.status, 400);
    assert.equal(mismatch.json.message, 'name in URL does not match name in Binding object');
    assert.equal((await h.http('GET', `/api/v1/namespaces/${ns}/pods/manual/binding`)).status, 405);
    const discovery = await h.http('GET', '/api/v1');
    assert.deepEqual(
      discovery.json.resources.find((r: Json) => r.name === 'pods/binding'),
      { name: 'pods/binding', singularName: '', namespaced: true, kind: 'Binding', verbs: ['create'] },
    );
  });

  test('spreads pods over the nodes', async () => {
    const names = ['s1', 's2', 's3', 's4', 's5', 's6'];
    for (const name of names) await createPod(name, { metadata: { labels: { spread: 'yes' } } });
    const pods = await eventually(async () => {
      const list = await core.listNamespacedPod({ namespace: ns, labelSelector: 'spread=yes' });
      return list.items.every((p) => p.spec?.nodeName) ? list.items : undefined;
    });
    const perNode = new Map<string, number>();
    for (const p of pods) perNode.set(p.spec?.nodeName ?? '', (perNode.get(p.spec?.nodeName ?? '') ?? 0) + 1);
    assert.equal(perNode.size, 3);
  });

  test('nodeSelector and required node affinity pick the node', async () => {
    await createPod('selected', { spec: { nodeSelector: { 'kubernetes.io/hostname': 'node-2' } } });
    await createPod('affine', {
      spec: {
        affinity: {
          nodeAffinity: {
            requiredDuringSchedulingIgnoredDuringExecution: {
              nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: ['node-3'] }] }],
            },
          },
        },
      },
    });
    assert.equal((await waitPod('selected', (p) => !!p.spec?.nodeName)).spec?.nodeName, 'node-2');
    assert.equal((await waitPod('affine', (p) => !!p.spec?.nodeName)).spec?.nodeName, 'node-3');
  });

  test('a pod no node fits gets PodScheduled=False Unschedulable with the FitError message, and is bound once a node fits', async () => {
    await createPod('nowhere', { spec: { nodeSelector: { disk: 'ssd' } } });
    const pending = await waitPod('nowhere', (p) => condition(p, 'PodScheduled')?.status === 'False');
    const scheduled = condition(pending, 'PodScheduled');
    assert.equal(scheduled?.reason, 'Unschedulable');
    assert.equal(
      scheduled?.message,
      "0/3 nodes are available: 3 node(s) didn't match Pod's node affinity/selector. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.",
    );
    assert.equal(pending.status?.phase, 'Pending');
    const failed = await eventually(async () => (await core.listNamespacedEvent({ namespace: ns })).items.find((e) => e.involvedObject.name === 'nowhere'));
    assert.equal(failed.reason, 'FailedScheduling');
    assert.equal(failed.type, 'Warning');
    assert.equal(failed.message, scheduled?.message);
    assert.equal(failed.reportingComponent, 'default-scheduler');
    await core.patchNode({ name: 'node-1', body: { metadata: { labels: { disk: 'ssd' } } } }, merge);
    const bound = await waitPod('nowhere', (p) => !!p.spec?.nodeName);
    assert.equal(bound.spec?.nodeName, 'node-1');
    assert.equal(condition(bound, 'PodScheduled')?.status, 'True');
    await core.patchNode({ name: 'node-1', body: { metadata: { labels: { disk: null } } } }, merge);
  });

  test('resources, taints and cordoned nodes are filtered with the real reasons', async () => {
    await createPod('huge', { spec: { containers: [{ name: 'c', image: 'nginx', resources: { requests: { cpu: '100' } } }] } });
    const huge = await waitPod('huge', (p) => condition(p, 'PodScheduled')?.status === 'False');
    assert.equal(
      condition(huge, 'PodScheduled')?.message,
      '0/3 nodes are available: 3 Insufficient cpu. preemption: 0/3 nodes are available: 3 No preemption victims found for incoming pod.',
    );
    await core.patchNode({ name: 'node-1', body: { spec: { unschedulable: true } } }, merge);
    await core.patchNode({ name: 'node-2', body: { spec: { taints: [{ key: 'dedicated', value: 'db', effect: 'NoSchedule' }] } } }, merge);
    await createPod('picky', { spec: { nodeSelector: { 'kubernetes.io/hostname': 'node-3' }, preemptionPolicy: 'Never' } });
    const picky = await waitPod('picky', (p) => !!p.spec?.nodeName);
    assert.equal(picky.spec?.nodeName, 'node-3');
    await createPod('blocked', { spec: { nodeSelector: { 'kubernetes.io/hostname': 'node-1' } } });
    const blocked = await waitPod('blocked', (p) => condition(p, 'PodScheduled')?.status === 'False');
    assert.equal(
      condition(blocked, 'PodScheduled')?.message,
      "0/3 nodes are available: 1 node(s) didn't match Pod's node affinity/selector, 1 node(s) had untolerated taint {dedicated: db}, 1 node(s) were unschedulable. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.",
    );
    await core.patchNode({ name: 'node-1', body: { spec: { unschedulable: null } } }, merge);
    await core.patchNode({ name: 'node-2', body: { spec: { taints: null } } }, merge);
    assert.equal((await waitPod('blocked', (p) => !!p.spec?.nodeName)).spec?.nodeName, 'node-1');
  });
  test('a pod created with spec.nodeName skips the scheduler and runs on that node, even a cordoned one', async () => {
    const bindings: string[] = [];
    const remove = h.sandbox.addAdmission({
      name: 'binding-recorder',
      admit(a) {
        if (a.name === 'pinned' && a.subresource === 'binding') bindings.push(a.userInfo.username);
      },
    });
    // Cordoning stops the scheduler only; the kubelet runs what is bound to its node.
    await core.patchNode({ name: 'node-2', body: { spec: { unschedulable: true } } }, merge);
    try {
      await createPod('pinned', { spec: { nodeName: 'node-2' } });
      const pod = await waitPod('pinned', isReady);
      assert.equal(pod.spec?.nodeName, 'node-2');
      assert.equal(pod.status?.phase, 'Running');
      assert.equal(pod.status?.hostIP, '172.18.0.3', "node-2's address");
      assert.match(pod.status?.podIP ?? '', /^10\.244\.2\.\d+$/);
    } finally {
      remove();
      await core.patchNode({ name: 'node-2', body: { spec: { unschedulable: null } } }, merge);
    }
    assert.deepEqual(bindings, [], 'no binding: the scheduler left it alone');
    const events = (await core.listNamespacedEvent({ namespace: ns })).items.filter((e) => e.involvedObject.name === 'pinned');
    assert.deepEqual(events.filter((e) => e.source?.component === 'default-scheduler' || e.reportingComponent === 'default-scheduler'), []);
  });
});

describe('kubelet', () => {
  test('a pod stays Pending, not Running, for at least the configured start delay', async () => {
    const seen: { at: number; phase: string | undefined; running: boolean }[] = [];
    const watch = watchStream(h, `/api/v1/namespaces/${ns}/pods?fieldSelector=metadata.name%3Ddelayed`, (_type, pod) =>
      seen.push({ at: Date.now(), phase: pod.status?.phase, running: !!pod.status?.containerStatuses?.[0]?.state?.running }),
    );
    await watch.connected;
    const createdAt = Date.now();
    await createPod('delayed');
    // Wait on the watch itself: a poll can see the pod Running before the watch has delivered that event.
    await eventually(async () => (seen.some((s) => s.phase === 'Running' || s.running) ? true : undefined));
    watch.stop();
    const firstRunning = seen.findIndex((s) => s.phase === 'Running' || s.running);
    assert.ok(firstRunning > 0, 'reported before it ran');
    assert.ok(seen.slice(0, firstRunning).every((s) => s.phase === 'Pending' && !s.running));
    const pendingFor = (seen[firstRunning]?.at ?? 0) - createdAt;
    assert.ok(pendingFor >= startDelayMs, `Running ${pendingFor} ms after the create, with a ${startDelayMs} ms start delay`);
  });

  test('a pod goes Pending (ContainerCreating) -> Running -> Ready with the kubelet conditions and container statuses', async () => {
    const seen: Json[] = [];
    const watch = watchStream(h, `/api/v1/namespaces/${ns}/pods?fieldSelector=metadata.name%3Dlife`, (_type, object) => seen.push(object));
    await watch.connected;
    await createPod('life', { metadata: { labels: { app: 'life' } } });
    const pod = await waitPod('life', isReady);
    await eventually(async () => (seen.some((p) => p.status?.conditions?.some((c: Json) => c.type === 'Ready' && c.status === 'True')) ? true : undefined));
    watch.stop();
    const creating = seen.find((p) => p.status?.containerStatuses?.[0]?.state?.waiting);
    assert.ok(creating, 'the kubelet reported the pod before its containers ran');
    assert.equal(creating.status.phase, 'Pending');
    assert.deepEqual(creating.status.containerStatuses[0], {
      name: 'c',
      state: { waiting: { reason: 'ContainerCreating' } },
      lastState: {},
      ready: false,
      restartCount: 0,
      image: 'nginx:1.27',
      imageID: '',
      started: false,
    });
    const creatingConditions = Object.fromEntries(creating.status.conditions.map((c: Json) => [c.type, c.status]));
    assert.deepEqual(creatingConditions, { PodReadyToStartContainers: 'False', Initialized: 'True', Ready: 'False', ContainersReady: 'False', PodScheduled: 'True' });
    assert.equal(creating.status.conditions.find((c: Json) => c.type === 'Ready').message, 'containers with unready status: [c]');
    assert.equal(creating.status.conditions.find((c: Json) => c.type === 'Ready').reason, 'ContainersNotReady');

    assert.equal(pod.status?.phase, 'Running');
    assert.deepEqual(
      pod.status?.conditions?.map((c) => [c.type, c.status]),
      [
        ['PodReadyToStartContainers', 'True'],
        ['Initialized', 'True'],
        ['Ready', 'True'],
        ['ContainersReady', 'True'],
        ['PodScheduled', 'True'],
      ],
    );
    const node = pod.spec?.nodeName ?? '';
    const index = Number(node.slice('node-'.length));
    assert.equal(pod.status?.hostIP, `172.18.0.${index + 1}`);
    assert.deepEqual(pod.status?.hostIPs?.map((a) => ({ ...a })), [{ ip: pod.status?.hostIP }]);
    assert.match(pod.status?.podIP ?? '', new RegExp(`^10\\.244\\.${index}\\.\\d+$`));
    assert.deepEqual(pod.status?.podIPs?.map((a) => ({ ...a })), [{ ip: pod.status?.podIP }]);
    assert.ok(pod.status?.startTime);
    assert.equal(pod.status?.qosClass, 'BestEffort');
    const status = container(pod)!;
    assert.equal(status.ready, true);
    assert.equal(status.started, true);
    assert.equal(status.restartCount, 0);
    assert.equal(status.image, 'docker.io/library/nginx:1.27');
    assert.match(status.imageID ?? '', /^docker\.io\/library\/nginx@sha256:[0-9a-f]{64}$/);
    assert.match(status.containerID ?? '', /^containerd:\/\/[0-9a-f]{64}$/);
    assert.ok(status.state?.running?.startedAt);
    assert.deepEqual(status.volumeMounts?.[0]?.readOnly, true);
    assert.equal(status.volumeMounts?.[0]?.recursiveReadOnly, 'Disabled');
    const startedAt = Date.parse(String(status.state?.running?.startedAt));
    assert.ok(startedAt >= Date.parse(String(pod.status?.startTime)));
    const kubeletEntry = pod.metadata?.managedFields?.find((m) => m.subresource === 'status');
    assert.equal(kubeletEntry?.manager, 'kubelet', 'the status is written by the kubelet (system:node:<node>)');
  });

  test('a hostNetwork pod has the node address as its pod IP', async () => {
    await createPod('host', { spec: { hostNetwork: true } });
    const pod = await waitPod('host', isReady);
    assert.equal(pod.status?.podIP, pod.status?.hostIP);
  });

  test('kubectl wait --for=condition=Ready and the pod table', { skip: skipWithoutKubectl }, async () => {
    await createPod('waited');
    const wait = await h.kubectl(['wait', '-n', ns, '--for=condition=Ready', 'pod/waited', '--timeout=10s']);
    assert.equal(wait.code, 0, wait.stderr);
    assert.match(wait.stdout, /pod\/waited condition met/);
    const table = await h.kubectl(['get', 'pod', 'waited', '-n', ns, '-o', 'wide']);
    assert.match(table.stdout, /waited\s+1\/1\s+Running\s+0\s+\S+\s+10\.244\.\d+\.\d+\s+node-\d/);
  });

  test('a readiness gate not True keeps a running pod out of Ready; setting it True through pods/status makes it Ready', async () => {
    await createPod('gated', { spec: { readinessGates: [{ conditionType: 'example.com/gate' }] } });
    let pod = await waitPod('gated', (p) => condition(p, 'ContainersReady')?.status === 'True');
    assert.equal(pod.status?.phase, 'Running');
    assert.deepEqual(
      { status: condition(pod, 'Ready')?.status, reason: condition(pod, 'Ready')?.reason, message: condition(pod, 'Ready')?.message },
      { status: 'False', reason: 'ReadinessGatesNotReady', message: 'corresponding condition of pod readiness gate "example.com/gate" does not exist.' },
    );
    const setGate = (status: string) =>
      core.patchNamespacedPodStatus({ name: 'gated', namespace: ns, body: { status: { conditions: [{ type: 'example.com/gate', status }] } } }, strategic);
    await setGate('False');
    pod = await waitPod('gated', (p) => condition(p, 'Ready')?.message !== 'corresponding condition of pod readiness gate "example.com/gate" does not exist.');
    assert.equal(condition(pod, 'Ready')?.message, 'the status of pod readiness gate "example.com/gate" is not "True", but False');
    await setGate('True');
    pod = await waitPod('gated', isReady);
    assert.equal(condition(pod, 'Ready')?.reason, undefined);
    assert.equal(condition(pod, 'example.com/gate')?.status, 'True', 'the kubelet keeps conditions it does not own');
    await setGate('False');
    pod = await waitPod('gated', (p) => !isReady(p));
    assert.equal(condition(pod, 'Ready')?.reason, 'ReadinessGatesNotReady');
  });

  test('sandbox.podops.io/ready=false makes the containers unready until it is removed', async () => {
    await createPod('flaky');
    await waitPod('flaky', isReady);
    await core.patchNamespacedPod({ name: 'flaky', namespace: ns, body: { metadata: { annotations: { 'sandbox.podops.io/ready': 'false' } } } }, merge);
    const unready = await waitPod('flaky', (p) => !isReady(p));
    assert.equal(container(unready)?.ready, false);
    assert.equal(container(unready)?.started, true);
    assert.equal(condition(unready, 'ContainersReady')?.message, 'containers with unready status: [c]');
    assert.equal(unready.status?.phase, 'Running');
    await core.patchNamespacedPod({ name: 'flaky', namespace: ns, body: { metadata: { annotations: { 'sandbox.podops.io/ready': null } } } }, merge);
    await waitPod('flaky', isReady);
  });

  test('sandbox.podops.io/crash makes a container crash and restart, as many times as asked', async () => {
    await createPod('crashy', {
      spec: {
        containers: [
          { name: 'c', image: 'nginx' },
          { name: 'side', image: 'busybox', command: ['sleep', 'infinity'] },
        ],
      },
    });
    const running = await waitPod('crashy', isReady);
    const firstID = container(running)?.containerID;
    await core.patchNamespacedPod({ name: 'crashy', namespace: ns, body: { metadata: { annotations: { 'sandbox.podops.io/crash': 'c' } } } }, merge);
    const restarted = await waitPod('crashy', (p) => container(p)?.restartCount === 1 && isReady(p));
    const status = container(restarted)!;
    assert.equal(status.lastState?.terminated?.exitCode, 1);
    assert.equal(status.lastState?.terminated?.reason, 'Error');
    assert.equal(status.lastState?.terminated?.containerID, firstID);
    assert.notEqual(status.containerID, firstID);
    assert.equal(container(restarted, 'side')?.restartCount, 0);
    await core.patchNamespacedPod({ name: 'crashy', namespace: ns, body: { metadata: { annotations: { 'sandbox.podops.io/crash': 'c=3' } } } }, merge);
    const thrice = await waitPod('crashy', (p) => container(p)?.restartCount === 3 && isReady(p));
    assert.equal(container(thrice, 'side')?.restartCount, 0);
    await sleep(150);
    assert.equal(container(await getPod('crashy'))?.restartCount, 3, 'a request already met does nothing more');
  });

  test('graceful deletion: containers stop after the (capped) grace period, then the kubelet removes the pod', async () => {
    await createPod('graceful', { spec: { terminationGracePeriodSeconds: 30 } });
    await waitPod('graceful', isReady);
    const started = Date.now();
    const deleted = await core.deleteNamespacedPod({ name: 'graceful', namespace: ns });
    assert.equal(deleted.metadata?.deletionGracePeriodSeconds, 30);
    await sleep(gracePeriodCapMs / 2);
    const terminating = await getPod('graceful');
    assert.equal(terminating.status?.phase, 'Running', 'still running within the grace period');
    assert.equal(container(terminating)?.state?.running !== undefined, true);
    await eventually(() => gone('graceful').then((g) => g || undefined));
    assert.ok(Date.now() - started >= gracePeriodCapMs);
  });

  test('a deleted pod with a finalizer stays after its containers stopped, until the finalizer goes', async () => {
    await createPod('held', { metadata: { finalizers: ['example.com/hold'] }, spec: { containers: [{ name: 'c', image: 'busybox', command: ['sleep', 'infinity'] }] } });
    await waitPod('held', isReady);
    await core.deleteNamespacedPod({ name: 'held', namespace: ns, gracePeriodSeconds: 5 });
    const stopped = await waitPod('held', (p) => p.metadata?.deletionGracePeriodSeconds === 0);
    assert.equal(stopped.status?.phase, 'Failed', 'sleep ignores SIGTERM and is killed');
    assert.equal(container(stopped)?.state?.terminated?.exitCode, 137);
    assert.equal(container(stopped)?.state?.terminated?.reason, 'Error');
    assert.equal(condition(stopped, 'Ready')?.reason, 'PodFailed');
    assert.equal(condition(stopped, 'PodReadyToStartContainers')?.status, 'False');
    await sleep(50);
    assert.equal(await gone('held'), false);
    await core.patchNamespacedPod({ name: 'held', namespace: ns, body: { metadata: { finalizers: null } } }, merge);
    assert.equal(await gone('held'), true);
  });

  test('an image change restarts the container in place: restartCount+1, new image and imageID', async () => {
    await createPod('upgrade', { spec: { containers: [{ name: 'c', image: 'nginx:1.26' }], terminationGracePeriodSeconds: 0 } });
    const before = container(await waitPod('upgrade', isReady))!;
    await core.patchNamespacedPod({ name: 'upgrade', namespace: ns, body: { spec: { containers: [{ name: 'c', image: 'nginx:1.27' }] } } }, strategic);
    const after = await waitPod('upgrade', (p) => container(p)?.restartCount === 1 && isReady(p));
    const status = container(after)!;
    assert.equal(status.image, 'docker.io/library/nginx:1.27');
    assert.notEqual(status.imageID, before.imageID);
    assert.notEqual(status.containerID, before.containerID);
    assert.equal(status.lastState?.terminated?.containerID, before.containerID);
    assert.equal(status.lastState?.terminated?.exitCode, 0);
    assert.equal(after.status?.phase, 'Running');
  });

  test('the container convention: exit codes, sleeps, restart policies and the crash-loop back-off', async () => {
    const run = (name: string, restartPolicy: string, command: string[]) =>
      createPod(name, { spec: { restartPolicy, containers: [{ name: 'c', image: 'busybox', command }] } });
    await run('exit3', 'Never', ['sh', '-c', 'exit 3']);
    await run('nap', 'Never', ['sleep', '2']);
    await run('script', 'OnFailure', ['/bin/sh', '-c', 'sleep 1; false && exit 7; exit 0']);
    await run('loop', 'Always', ['sh', '-c', 'exit 2']);
    const failed = await waitPod('exit3', (p) => p.status?.phase === 'Failed');
    assert.equal(container(failed)?.state?.terminated?.exitCode, 3);
    assert.equal(container(failed)?.state?.terminated?.reason, 'Error');
    assert.equal(condition(failed, 'Ready')?.reason, 'PodFailed');
    const napping = await waitPod('nap', (p) => p.status?.phase === 'Running');
    assert.ok(napping);
    const slept = await waitPod('nap', (p) => p.status?.phase === 'Succeeded');
    const terminated = container(slept)?.state?.terminated;
    assert.equal(terminated?.exitCode, 0);
    assert.equal(terminated?.reason, 'Completed');
    assert.equal(condition(slept, 'Initialized')?.reason, 'PodCompleted');
    assert.equal(condition(slept, 'ContainersReady')?.reason, 'PodCompleted');
    assert.equal((await waitPod('script', (p) => p.status?.phase === 'Succeeded')).status?.containerStatuses?.[0]?.restartCount, 0);
    const looping = await waitPod('loop', (p) => container(p)?.state?.waiting?.reason === 'CrashLoopBackOff');
    assert.equal(looping.status?.phase, 'Running');
    assert.match(container(looping)?.state?.waiting?.message ?? '', /^back-off \d+ms restarting failed container=c pod=loop_nodes\(.+\)$/);
    assert.equal(container(looping)?.lastState?.terminated?.exitCode, 2);
    assert.ok((container(looping)?.restartCount ?? 0) >= 1);
    await waitPod('loop', (p) => (container(p)?.restartCount ?? 0) >= 3);
  });

  test('init containers run in order before the containers: Initialized with the kubelet message', async () => {
    await createPod('init', {
      spec: {
        initContainers: [
          { name: 'first', image: 'busybox', command: ['sleep', '2'] },
          { name: 'second', image: 'busybox', command: ['sh', '-c', 'exit 0'] },
        ],
      },
    });
    const initializing = await waitPod('init', (p) => p.status?.initContainerStatuses?.[0]?.state?.running !== undefined);
    assert.equal(initializing.status?.phase, 'Pending');
    assert.equal(condition(initializing, 'Initialized')?.message, 'containers with incomplete status: [first second]');
    assert.equal(condition(initializing, 'Initialized')?.reason, 'ContainersNotInitialized');
    assert.equal(container(initializing)?.state?.waiting?.reason, 'PodInitializing');
    const ready = await waitPod('init', isReady);
    assert.deepEqual(
      ready.status?.initContainerStatuses?.map((s) => [s.name, s.state?.terminated?.reason, s.ready, s.started]),
      [
        ['first', 'Completed', true, false],
        ['second', 'Completed', true, false],
      ],
    );
    assert.equal(condition(ready, 'Initialized')?.status, 'True');
  });

  test('an init container failing with restartPolicy Never fails the pod', async () => {
    await createPod('badinit', { spec: { restartPolicy: 'Never', initContainers: [{ name: 'setup', image: 'busybox', command: ['sh', '-c', 'exit 1'] }] } });
    const failed = await waitPod('badinit', (p) => p.status?.phase === 'Failed');
    assert.equal(failed.status?.initContainerStatuses?.[0]?.state?.terminated?.exitCode, 1);
    assert.equal(container(failed)?.state?.terminated?.reason, 'ContainerStatusUnknown');
  });
});
