// The API for tests of other people's controllers: the kubeconfig as YAML, file and client-node object,
// registering CRDs, waiting for states on a watch, the write log with its writers, stopping and cleaning up.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { access, readFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { CoreV1Api, CustomObjectsApi, KubeConfig, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { startSandbox, WaitTimeoutError, type Sandbox } from '../src/index.ts';
import { gadgetCrd } from './harness.ts';

const merge = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);
const exists = (path: string): Promise<boolean> => access(path).then(() => true, () => false);

describe('the kubeconfig', () => {
  test('as an object, client-node loads it with loadFromOptions and its API clients work', async () => {
    await using sandbox = await startSandbox();
    const kc = new KubeConfig();
    kc.loadFromOptions(sandbox.kubeConfigOptions);
    const core = kc.makeApiClient(CoreV1Api);
    const names = (await core.listNamespace()).items.map((n) => n.metadata?.name);
    assert.deepEqual(names.sort(), ['default', 'kube-node-lease', 'kube-public', 'kube-system']);
    assert.equal(kc.getCurrentCluster()?.server, sandbox.url);
    assert.equal(kc.getContextObject(kc.getCurrentContext())?.namespace, 'default');
  });

  test('as a file in a temporary directory, the same YAML, removed by stop (and stop again is the same stop)', async () => {
    const sandbox = await startSandbox();
    assert.equal(await readFile(sandbox.kubeconfigPath, 'utf8'), sandbox.kubeconfig);
    const kc = new KubeConfig();
    kc.loadFromFile(sandbox.kubeconfigPath);
    await kc.makeApiClient(CoreV1Api).readNamespace({ name: 'default' });
    const first = sandbox.stop();
    assert.equal(sandbox.stop(), first);
    await first;
    assert.equal(await exists(sandbox.kubeconfigPath), false);
    await assert.rejects(fetch(`${sandbox.url}/version`));
  });

  test('`await using` stops the sandbox at the end of the block, also when the block throws', async () => {
    let url = '';
    let path = '';
    await assert.rejects(async () => {
      await using sandbox = await startSandbox();
      ({ url, kubeconfigPath: path } = sandbox);
      throw new Error('the test failed');
    }, /the test failed/);
    await assert.rejects(fetch(`${url}/version`));
    assert.equal(await exists(path), false);
  });

  test('a start that fails (the port is taken) stops what it started and says why', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const { port } = taken.address() as { port: number };
    let controllerStopped = false;
    const probe = { name: 'probe', start: () => () => void (controllerStopped = true) };
    try {
      await assert.rejects(startSandbox({ port, controllers: [probe] }), new RegExp(`listen EADDRINUSE: address already in use 127.0.0.1:${port}`));
    } finally {
      taken.close();
    }
    assert.equal(controllerStopped, true);
  });
});

describe('with a sandbox', () => {
  let sandbox: Sandbox;
  let core: CoreV1Api;
  before(async () => {
    sandbox = await startSandbox({ recordWrites: true });
    const kc = new KubeConfig();
    kc.loadFromOptions(sandbox.kubeConfigOptions);
    core = kc.makeApiClient(CoreV1Api);
  });
  after(() => sandbox.stop());

  const configMap = (name: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default', name });

  test('waitFor resolves at once on the current state, and on a later change', async () => {
    await core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'w1' }, data: { color: 'red' } } });
    const now = await sandbox.waitFor<{ data?: Record<string, string> }>(configMap('w1'), (cm) => cm.data?.color === 'red');
    assert.equal(now.data?.color, 'red');
    const later = sandbox.waitFor<{ data?: Record<string, string> }>(configMap('w1'), (cm) => cm.data?.color === 'blue');
    await core.patchNamespacedConfigMap({ namespace: 'default', name: 'w1', body: { data: { color: 'blue' } } }, merge);
    assert.equal((await later).data?.color, 'blue');
  });

  test('waitFor waits for an object to be created', async () => {
    const created = sandbox.waitFor(configMap('w2'), () => true);
    await core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'w2' } } });
    assert.equal((await created).metadata.name, 'w2');
  });

  test('a wait that times out names the object, the timeout and the last state seen', async () => {
    await core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'w3' }, data: { color: 'red' } } });
    await assert.rejects(
      sandbox.waitFor(configMap('w3'), () => false, { timeoutMs: 100 }),
      (err: unknown) =>
        err instanceof WaitTimeoutError &&
        /^timed out after 100 ms waiting for ConfigMap default\/w3 to meet the condition; last seen: \{.*"color":"red"/.test(err.message) &&
        !err.message.includes('managedFields') &&
        (err.lastSeen?.data as Record<string, string>).color === 'red',
    );
    await assert.rejects(sandbox.waitFor(configMap('never'), () => true, { timeoutMs: 50 }), /waiting for ConfigMap default\/never to meet the condition; it did not exist$/);
  });

  test('waitForDeletion and waitForCondition', async () => {
    await sandbox.waitForDeletion(configMap('never-existed'));
    await core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'w4' } } });
    const deleted = sandbox.waitForDeletion(configMap('w4'));
    await core.deleteNamespacedConfigMap({ namespace: 'default', name: 'w4' });
    await deleted;

    await core.createNamespace({ body: { metadata: { name: 'conditions' } } });
    await core.createNamespacedPod({ namespace: 'conditions', body: { metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'nginx:1.27' }] } } });
    const pod = { apiVersion: 'v1', kind: 'Pod', namespace: 'conditions', name: 'p' };
    const ready = sandbox.waitForCondition(pod, 'Ready');
    await assert.rejects(sandbox.waitForCondition(pod, 'Ready', { status: 'False', timeoutMs: 50 }), /waiting for Pod conditions\/p to have condition Ready=False; last seen/);
    await core.patchNamespacedPodStatus({ namespace: 'conditions', name: 'p', body: { status: { conditions: [{ type: 'Ready', status: 'True' }] } } }, merge);
    assert.equal(((await ready).status as { conditions: { type: string }[] }).conditions[0]?.type, 'Ready');
  });

  test('bad references are refused with what is wrong', async () => {
    await assert.rejects(sandbox.waitFor({ apiVersion: 'v1', kind: 'ConfigMap', name: 'x' }, () => true), /ConfigMap is namespaced: the reference to "x" needs a namespace/);
    await assert.rejects(sandbox.waitFor({ apiVersion: 'v1', kind: 'Namespace', namespace: 'default', name: 'x' }, () => true), /Namespace is cluster-scoped/);
    await assert.rejects(sandbox.waitFor({ apiVersion: 'example.com/v1', kind: 'Gadget', name: 'x' }, () => true), /serves no kind Gadget in example.com\/v1/);
    await assert.rejects(sandbox.waitFor({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default', name: '' }, () => true), /has no name/);
    await assert.rejects(sandbox.waitFor(configMap('x'), () => true, { timeoutMs: -1 }), /timeoutMs must be a positive number/);
  });

  test('a predicate that throws rejects the wait with its error', async () => {
    await core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'w5' } } });
    await assert.rejects(
      sandbox.waitFor(configMap('w5'), () => {
        throw new Error('broken predicate');
      }),
      /broken predicate/,
    );
  });

  test('registerCrd resolves once the resource is served, so the next client call works', async () => {
    const crd = await sandbox.registerCrd(gadgetCrd([{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { size: { type: 'integer', default: 3 } } } } } } }]));
    assert.equal(crd.metadata.name, 'gadgets.example.com');
    const kc = new KubeConfig();
    kc.loadFromOptions(sandbox.kubeConfigOptions);
    const created = (await kc.makeApiClient(CustomObjectsApi).createNamespacedCustomObject({
      group: 'example.com',
      version: 'v1',
      namespace: 'default',
      plural: 'gadgets',
      body: { apiVersion: 'example.com/v1', kind: 'Gadget', metadata: { name: 'g' }, spec: {} },
    })) as { spec: { size: number } };
    assert.equal(created.spec.size, 3);
    const discovery = (await (await fetch(`${sandbox.url}/apis/example.com/v1`)).json()) as { resources: { name: string }[] };
    assert.deepEqual(discovery.resources.map((r) => r.name), ['gadgets']);
  });

  test('registerCrd rejects a CRD whose names are taken, with the reason', async () => {
    const clash = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'gizmos.example.com' },
      spec: {
        group: 'example.com',
        scope: 'Namespaced',
        names: { plural: 'gizmos', kind: 'Gadget' },
        versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object' } } }],
      },
    };
    await assert.rejects(sandbox.registerCrd(clash), /CustomResourceDefinition gizmos.example.com is not served: NamesAccepted is False \(ListKindConflict: "GadgetList" is already in use\)/);
    await assert.rejects(sandbox.registerCrd({ ...clash, metadata: { name: 'wrong.example.com' } }), /CustomResourceDefinition.apiextensions.k8s.io "wrong.example.com" is invalid/);
  });

  test('the write log names each writer: user (impersonated through the kubeconfig), agent, field manager, verb', async () => {
    const since = sandbox.resourceVersion;
    const kc = new KubeConfig();
    kc.loadFromOptions(sandbox.kubeConfigOptionsAs('system:serviceaccount:default:mirror'));
    const asController = kc.makeApiClient(CoreV1Api);
    await asController.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'log-1' } } });
    await asController.patchNamespacedConfigMap({ namespace: 'default', name: 'log-1', fieldManager: 'mirror', body: { data: { a: '1' } } }, merge);
    await core.deleteNamespacedConfigMap({ namespace: 'default', name: 'log-1' });

    const records = sandbox.history?.records({ after: since, name: 'log-1' }) ?? [];
    assert.deepEqual(
      records.map((r) => [r.type, r.verb, r.user, r.manager]),
      [
        // client-node's User-Agent is kubernetes-client-javascript/<version>: its first segment names the manager.
        ['ADDED', 'create', 'system:serviceaccount:default:mirror', 'kubernetes-client-javascript'],
        ['MODIFIED', 'patch', 'system:serviceaccount:default:mirror', 'mirror'],
        ['DELETED', 'delete', 'admin', 'kubernetes-client-javascript'],
      ],
    );
    assert.deepEqual(records[0]?.groups, ['system:serviceaccounts', 'system:serviceaccounts:default', 'system:authenticated']);
    assert.match(records[0]?.userAgent ?? '', /^kubernetes-client-javascript\/\d/);
    assert.equal(sandbox.history?.records({ after: since, user: 'system:serviceaccount:default:mirror' }).length, 2);
    assert.equal(sandbox.history?.records({ after: since, manager: 'mirror', resource: 'configmaps', namespace: 'default', verb: 'patch', type: 'MODIFIED' }).length, 1);
  });

  test('the write log filter: subresources, writes after a version, and unknown fields refused', async () => {
    await core.createNamespacedPod({ namespace: 'default', body: { metadata: { name: 'log-pod' }, spec: { containers: [{ name: 'c', image: 'nginx:1.27' }] } } });
    const since = sandbox.resourceVersion;
    await core.patchNamespacedPodStatus({ namespace: 'default', name: 'log-pod', body: { status: { conditions: [{ type: 'Ready', status: 'False' }] } } }, merge);
    await core.patchNamespacedPod({ namespace: 'default', name: 'log-pod', body: { metadata: { labels: { a: 'b' } } } }, merge);
    const log = sandbox.history;
    assert.deepEqual(log?.records({ after: since, subresource: 'status' }).map((r) => r.name), ['log-pod']);
    assert.deepEqual(log?.records({ after: since, subresource: '' }).map((r) => r.object.metadata.labels), [{ a: 'b' }]);
    assert.equal(log?.records({ name: 'log-pod' }).length, 3);
    assert.throws(() => log?.records({ usr: 'x' } as never), /unknown write log filter field "usr"; known: resource, namespace/);
  });

  test('a wait rejects when the sandbox stops under it', async () => {
    const other = await startSandbox();
    const rejected = assert.rejects(other.waitFor(configMap('never'), () => true), /the sandbox stopped while waiting for ConfigMap default\/never to meet the condition; it did not exist/);
    await other.stop();
    await rejected;
  });
});
