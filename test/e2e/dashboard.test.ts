// The dashboard's server against a sandbox API server, through a proxy that records (and can refuse) what it asks:
// one watch per resource whatever the number of browsers, a change on the stream from the watch event alone, the
// missing permission named by verb and resource, an unreachable API server, and bad requests answered, not fatal.

import assert from 'node:assert/strict';
import http from 'node:http';
import { connect } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { renderKubeconfig, startSandbox, type Sandbox } from '@podops/sandbox';
import type { Pod } from '../../src/api/kube.ts';
import { podTransitionRuleCRD } from '../../src/api/podtransitionrule.ts';
import { CONTROL_LABEL, idLabelKey } from '../../src/api/protocol.ts';
import { rolloutLifecycleCRD } from '../../src/api/rolloutlifecycle.ts';
import { MAX_STREAMS, startDashboard, type Dashboard } from '../../src/dashboard/server.ts';
import type { Problem, Snapshot, Update } from '../../src/dashboard/views.ts';
import { KubeClient, type KubeObject } from '../../src/kube/client.ts';
import { CUSTOM_RESOURCE_DEFINITIONS, EVENTS, NAMESPACES, PODS } from '../../src/kube/resources.ts';
import { startHoldingProxy, type HoldingProxy } from '../support/holding-proxy.ts';
import { openStream, type SseStream } from '../support/sse.ts';
import { freePort, sleep, until } from '../support/wait.ts';

const controlledPod = (namespace: string, name: string): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace, labels: { app: 'web', [CONTROL_LABEL]: 'true' } },
  spec: { containers: [{ name: 'web', image: 'nginx' }] },
});

/** The last list of problems a stream carried (snapshot or update). */
const problemsOf = (stream: SseStream): Problem[] =>
  stream.events
    .map((e) => JSON.parse(e.data) as Snapshot | Update)
    .filter((m) => m.problems !== undefined)
    .at(-1)?.problems ?? [];

describe('podops dashboard, server side', () => {
  let sandbox: Sandbox;
  let admin: KubeClient;
  let proxy: HoldingProxy;
  const clients: KubeClient[] = [];
  const streams: SseStream[] = [];
  const abort = new AbortController();
  const dashboards: Dashboard[] = [];

  /** A dashboard of `namespace` whose API server is reached at `server` (the proxy unless told otherwise). */
  async function dashboardOf(namespace: string, server = proxy.url): Promise<Dashboard> {
    const client = KubeClient.fromKubeconfigText(renderKubeconfig({ server }));
    clients.push(client);
    const dashboard = await startDashboard({ client, namespace, port: 0 }, abort.signal);
    dashboards.push(dashboard);
    return dashboard;
  }
  const stream = async (dashboard: Dashboard): Promise<SseStream> => {
    const opened = await openStream(`${dashboard.url}api/stream`);
    streams.push(opened);
    return opened;
  };

  before(async () => {
    sandbox = await startSandbox();
    admin = KubeClient.fromKubeconfigText(sandbox.kubeconfig);
    for (const crd of [podTransitionRuleCRD(), rolloutLifecycleCRD()]) await admin.create(CUSTOM_RESOURCE_DEFINITIONS, crd as KubeObject);
    for (const name of ['dash', 'locked']) await admin.create(NAMESPACES, { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
    await admin.create(PODS, controlledPod('dash', 'web-0'));
    proxy = await startHoldingProxy(sandbox.url);
  });
  after(async () => {
    for (const each of streams) each.close();
    abort.abort();
    await Promise.all(dashboards.map((d) => d.done));
    for (const each of [...clients, admin]) each.close();
    await proxy.close();
    await sandbox.stop();
  });

  test('three browsers share one list and one watch per resource; a label change reaches each from the watch event alone', async () => {
    const dashboard = await dashboardOf('dash');
    await until(() => dashboard.hub.snapshot(), (s) => s.synced && s.pods.some((p) => p.name === 'web-0'), 'the pod in the dashboard');
    const browsers = [await stream(dashboard), await stream(dashboard), await stream(dashboard)];
    assert.equal(dashboard.hub.subscribers, 3);
    for (const browser of browsers) {
      await until(() => browser.events[0], (e) => e?.event === 'snapshot', 'the snapshot');
      const snapshot = JSON.parse(browser.events[0]!.data) as Snapshot;
      assert.deepEqual(snapshot.pods.map((p) => [p.name, p.phase]), [['web-0', 'Completing']], 'no lifecycle, not service-available yet');
    }
    const asked = proxy.requests.length;

    const begun = BigInt(Date.now()) * 1_000_000n;
    await admin.patch<Pod>(PODS, 'dash', 'web-0', 'merge', {
      metadata: { labels: { [idLabelKey('operating', 'upgrade')]: `${begun}`, [idLabelKey('operation-type', 'upgrade')]: 'update', [idLabelKey('pre-check', 'upgrade')]: `${begun}` } },
    });
    for (const browser of browsers) {
      const update = await until(
        () => browser.events.filter((e) => e.event === 'update').map((e) => JSON.parse(e.data) as Update),
        (updates) => updates.some((u) => u.upsert.some((row) => row.phase === 'PreCheck')),
        'the change on the stream',
      );
      const row = update.flatMap((u) => u.upsert).find((r) => r.phase === 'PreCheck')!;
      assert.deepEqual(row.bars, [{ id: 'upgrade', type: 'update', segments: [{ phase: 'PreCheck', from: Number(begun / 1_000_000n) }] }], 'open: no end (JSON leaves out undefined)');
      assert.deepEqual(row.waitingFor, ['waiting for PodTransitionRules to pass stage PreCheck']);
    }
    assert.deepEqual(proxy.requests.slice(asked), [], 'nothing was listed or watched again: the watch already open carried it');
    const watches = proxy.requests.filter((r) => r.includes('watch=true'));
    assert.deepEqual(
      watches.map((r) => r.split('?')[0]).sort(),
      [
        'GET /api/v1/namespaces/dash/events',
        'GET /api/v1/namespaces/dash/pods',
        'GET /apis/apps.kusionstack.io/v1alpha1/namespaces/dash/podtransitionrules',
        'GET /apis/apps.kusionstack.io/v1alpha1/namespaces/dash/rolloutlifecycles',
      ],
      'one watch per resource for three browsers',
    );
  });

  test('a refused list or watch is named by verb and resource on the stream, and cleared once allowed again', async () => {
    const inLocked = (resource: string, verb: 'list' | 'watch') => (req: { url?: string }) =>
      (req.url ?? '').startsWith(`/api${resource === 'pods' ? '' : 's/apps.kusionstack.io'}/v1${resource === 'pods' ? '' : 'alpha1'}/namespaces/locked/${resource}?`) && (req.url ?? '').includes('watch=true') === (verb === 'watch');
    const podsWatch = inLocked('pods', 'watch');
    const rulesList = inLocked('podtransitionrules', 'list');
    proxy.forbid((req) => podsWatch(req) || rulesList(req));
    const browser = await stream(await dashboardOf('locked'));
    const problems = await until(() => problemsOf(browser), (p) => p.length === 2, 'both refusals on the stream');
    assert.deepEqual(
      problems.map((p) => [p.kind, p.verb, p.resource]).sort(),
      [
        ['forbidden', 'list', 'podtransitionrules.apps.kusionstack.io'],
        ['forbidden', 'watch', 'pods'],
      ],
    );
    assert.match(problems.find((p) => p.resource === 'pods')!.message, /^missing permission: watch pods in namespace locked \(the API server said: pods is forbidden: .*; check with: kubectl auth can-i watch pods -n locked\)$/);

    proxy.forbid(undefined);
    await until(() => problemsOf(browser), (p) => p.length === 0, 'the problems cleared', 20_000);
  });

  test('an API server that cannot be reached is said so, with its address', async () => {
    const port = await freePort();
    const browser = await stream(await dashboardOf('dash', `http://127.0.0.1:${port}`));
    const problems = await until(() => problemsOf(browser), (p) => p.some((each) => each.resource === 'pods'), 'the failure on the stream');
    assert.deepEqual(
      problems.find((p) => p.resource === 'pods'),
      { resource: 'pods', verb: 'list', kind: 'unreachable', message: `cannot reach the API server http://127.0.0.1:${port}: connection refused` },
    );
  });

  test('streams are capped, the slowest dropped first; a browser that stops reading is dropped once far behind', async () => {
    const dashboard = await dashboardOf('dash');
    await until(() => dashboard.hub.snapshot(), (s) => s.synced, 'the dashboard synced');
    const { hostname, port } = new URL(dashboard.url);
    // Connections that ask for the stream and never read a byte.
    const stalled = Array.from({ length: MAX_STREAMS + 8 }, () => {
      const socket = connect(Number(port), hostname);
      socket.write(`GET /api/stream HTTP/1.1\r\nHost: ${hostname}:${port}\r\n\r\n`);
      socket.pause();
      socket.on('error', () => {});
      return socket;
    });
    try {
      await until(() => dashboard.hub.subscribers, (n) => n === MAX_STREAMS, 'the streams at the cap');
      const browser = await stream(dashboard);
      await until(() => browser.events, (events) => events[0]?.event === 'snapshot', 'a new browser served at once');
      assert.equal(dashboard.hub.subscribers, MAX_STREAMS, 'one stream dropped for it');
      // Updates of hundreds of KiB (the events list, 10 KiB a message) the stalled streams never read: more than
      // the sockets' buffers hold, so that what they leave unread stays in the server.
      for (let i = 0; i < 80; i++) {
        // One update per event: the hub gathers changes for 50 ms.
        await sleep(60);
        await admin.create(EVENTS, {
          apiVersion: 'v1',
          kind: 'Event',
          metadata: { name: `flood-${i}`, namespace: 'dash' },
          involvedObject: { kind: 'Pod', name: 'web-0', namespace: 'dash' },
          reason: 'Flood',
          message: 'x'.repeat(10 * 1024),
          source: { component: 'podops' },
          firstTimestamp: new Date().toISOString(),
          lastTimestamp: new Date().toISOString(),
          type: 'Normal',
        });
      }
      await until(() => dashboard.hub.subscribers, (n) => n === 1, 'every stalled stream dropped, the reading one kept', 30_000);
      await until(() => browser.events.map((e) => JSON.parse(e.data) as Update).filter((u) => u.events?.some((event) => event.reason === 'Flood')), (updates) => updates.length > 0, 'the flood on the reading stream');
    } finally {
      for (const socket of stalled) socket.destroy();
    }
  });

  test('the page, its files and one pod are served; bad requests get 4xx with the reason and the server goes on', async () => {
    const dashboard = dashboards[0]!;
    const get = (path: string, init?: RequestInit) => fetch(new URL(path, dashboard.url), init);
    const page = await get('/');
    assert.equal(page.status, 200);
    assert.match(page.headers.get('content-security-policy') ?? '', /^default-src 'self'; script-src 'self' 'sha256-/);
    assert.match(await page.text(), /<script type="importmap">/);
    assert.equal((await get('/page/app.js')).headers.get('content-type'), 'text/javascript; charset=utf-8');
    assert.equal((await get('/vendor/preact.mjs')).status, 200);

    const inspect = await get('/api/pod?namespace=dash&name=web-0');
    assert.equal(inspect.status, 200);
    const pod = (await inspect.json()) as { text: string; labels: Record<string, string> };
    assert.match(pod.text, /^Pod dash\/web-0\n {2}phase: PreCheck\n {2}lifecycle upgrade \(type update\): PreCheck for /);
    assert.equal(pod.labels[CONTROL_LABEL], 'true');

    const refusals: [string, RequestInit | undefined, number, RegExp][] = [
      ['/api/pod?namespace=dash', undefined, 400, /needs \?namespace=NS&name=POD/],
      ['/api/pod?namespace=dash&name=nobody', undefined, 404, /no controlled pod "dash\/nobody"/],
      ['/page/../../../etc/passwd', undefined, 404, /not found/],
      ['/', { method: 'POST', body: 'x' }, 405, /read-only/],
    ];
    for (const [path, init, code, reason] of refusals) {
      const answer = await get(path, init);
      assert.equal(answer.status, code, path);
      assert.match(await answer.text(), reason);
    }
    // A page of another site that reached this address through its own name (DNS rebinding) is refused.
    const rebound = await new Promise<{ code: number | undefined; body: string }>((resolve, reject) => {
      http
        .get(new URL('/', dashboard.url), { headers: { host: 'evil.example' } }, (response) => {
          let body = '';
          response.on('data', (chunk: Buffer) => (body += chunk.toString()));
          response.on('end', () => resolve({ code: response.statusCode, body }));
        })
        .on('error', reject);
    });
    assert.equal(rebound.code, 403);
    assert.match(rebound.body, /unexpected Host header "evil.example"/);
    // A request that is not HTTP at all: the connection is closed, the server stays.
    const { port } = new URL(dashboard.url);
    await new Promise<void>((resolve) => {
      const socket = connect(Number(port), '127.0.0.1', () => socket.end('\u0000garbage\r\n\r\n'));
      socket.on('close', () => resolve());
      socket.on('error', () => resolve());
      socket.resume();
    });
    assert.equal((await get('/')).status, 200);
  });
});
