// What KubeClient's requests look like on the wire: where they go and who they say they are.

import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { renderKubeconfig } from '@podops/sandbox';
import { KubeClient } from '../../src/kube/client.ts';
import { PODS } from '../../src/kube/resources.ts';
import { podopsVersion } from '../../src/kube/version.ts';

/** An API server that answers empty pod lists and empty watches, and keeps every request it got. */
async function recordingServer(path: string): Promise<{ requests: IncomingMessage[]; client: KubeClient; [Symbol.asyncDispose](): Promise<void> }> {
  const requests: IncomingMessage[] = [];
  const server = createServer((req, res) => {
    requests.push(req);
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.end(req.url?.includes('watch=true') ? '' : JSON.stringify({ kind: 'PodList', apiVersion: 'v1', metadata: { resourceVersion: '1' }, items: [] }));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  const kubeconfig = { apiVersion: 'v1', kind: 'Config', clusters: [{ name: 'c', cluster: { server: `http://127.0.0.1:${port}${path}` } }], users: [{ name: 'u', user: { token: 't' } }], contexts: [{ name: 'x', context: { cluster: 'c', user: 'u' } }], 'current-context': 'x' };
  const client = KubeClient.fromKubeconfigText(JSON.stringify(kubeconfig));
  return {
    requests,
    client,
    async [Symbol.asyncDispose]() {
      client.close();
      server.close();
      await once(server, 'close');
    },
  };
}

// A proxy in front of the API server (Rancher's `https://rancher.example/k8s/clusters/c-m-x`): every request, watches
// included, goes below that path.
test('API paths are appended to the path of the server URL', async () => {
  await using api = await recordingServer('/k8s/clusters/c-m-x/');
  await api.client.list(PODS, { namespace: 'demo', limit: 5 });
  for await (const _event of api.client.watch('/api/v1/namespaces/demo/pods', { watch: 'true', resourceVersion: '1' })) break;
  assert.deepEqual(
    api.requests.map((r) => r.url),
    ['/k8s/clusters/c-m-x/api/v1/namespaces/demo/pods?limit=5', '/k8s/clusters/c-m-x/api/v1/namespaces/demo/pods?watch=true&resourceVersion=1'],
  );
});

test("requests name podops and its version as client-go's do (`<program>/<version> (<os>/<arch>)`), for audit logs", async () => {
  await using api = await recordingServer('');
  await api.client.list(PODS, { namespace: 'demo' });
  assert.equal(api.requests[0]?.headers['user-agent'], `podops/${podopsVersion()} (${process.platform}/${process.arch})`);
  assert.match(podopsVersion(), /^\d+\.\d+\.\d+/);
});

test('warnings the server sends reach onWarning, each text whole, quotes and commas included', async () => {
  const server = createServer((req, res) => {
    res.writeHead(200, { 'Content-Type': 'application/json', Warning: ['299 - "first, with a comma"', '299 - "second \\"quoted\\""'] });
    res.end('{}');
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const warnings: [string, string][] = [];
  const client = KubeClient.fromKubeconfigText(renderKubeconfig({ server: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }), { onWarning: (warning, request) => warnings.push([warning, request]) });
  try {
    await client.get(PODS, 'default', 'web');
    assert.deepEqual(warnings, [
      ['first, with a comma', 'GET /api/v1/namespaces/default/pods/web'],
      ['second "quoted"', 'GET /api/v1/namespaces/default/pods/web'],
    ]);
  } finally {
    client.close();
    server.close();
  }
});

test('requestText answers a non-JSON path as text (`kubectl get --raw /metrics`), with the Accept asked for', async () => {
  const server = createServer((req, res) => {
    res.writeHead(req.url === '/metrics' ? 200 : 404, { 'Content-Type': 'text/plain' });
    res.end(req.url === '/metrics' ? `# accept ${req.headers.accept}\nup 1\n` : 'not found');
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  const client = KubeClient.fromKubeconfigText(renderKubeconfig({ server: `http://127.0.0.1:${port}` }));
  try {
    assert.equal(await client.requestText({ method: 'GET', path: '/metrics', accept: 'text/plain' }), '# accept text/plain\nup 1\n');
    await assert.rejects(client.requestText({ method: 'GET', path: '/nothing' }), (err: Error & { code?: number }) => err.code === 404);
  } finally {
    client.close();
    server.close();
  }
});
