// A kubeconfig server URL with a path (a proxy in front of the API server, e.g. Rancher's
// `https://rancher.example/k8s/clusters/c-m-x`): every request, watches included, goes below that path.

import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { KubeClient } from '../../src/kube/client.ts';
import { PODS } from '../../src/kube/resources.ts';

test('API paths are appended to the path of the server URL', async () => {
  const seen: string[] = [];
  const server = createServer((req, res) => {
    seen.push(req.url ?? '');
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.end(req.url?.includes('watch=true') ? '' : JSON.stringify({ kind: 'PodList', apiVersion: 'v1', metadata: { resourceVersion: '1' }, items: [] }));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  const kubeconfig = { apiVersion: 'v1', kind: 'Config', clusters: [{ name: 'c', cluster: { server: `http://127.0.0.1:${port}/k8s/clusters/c-m-x/` } }], users: [{ name: 'u', user: { token: 't' } }], contexts: [{ name: 'x', context: { cluster: 'c', user: 'u' } }], 'current-context': 'x' };
  const client = KubeClient.fromKubeconfigText(JSON.stringify(kubeconfig));
  try {
    await client.list(PODS, { namespace: 'demo', limit: 5 });
    for await (const _event of client.watch('/api/v1/namespaces/demo/pods', { watch: 'true', resourceVersion: '1' })) break;
    assert.deepEqual(seen, ['/k8s/clusters/c-m-x/api/v1/namespaces/demo/pods?limit=5', '/k8s/clusters/c-m-x/api/v1/namespaces/demo/pods?watch=true&resourceVersion=1']);
  } finally {
    client.close();
    server.close();
  }
});
