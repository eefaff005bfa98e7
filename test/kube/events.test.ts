import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Registry, Counter } from 'prom-client';
import type { KubeObject } from '../../src/kube/client.ts';
import { EventRecorder } from '../../src/kube/events.ts';
import { parseBindAddress, startProbeServer } from '../../src/kube/health.ts';
import { EVENTS } from '../../src/kube/resources.ts';
import { useSandboxClient } from '../support/sandbox-client.ts';

describe('EventRecorder', () => {
  const env = useSandboxClient();

  const pod = (name: string) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default', uid: `uid-${name}`, resourceVersion: '7' } });
  const eventsFor = async (name: string) =>
    (await env.client.list<KubeObject & { count: number; reason: string; message: string; involvedObject: Record<string, string>; source: { component: string } }>(EVENTS, { namespace: 'default', fieldSelector: `involvedObject.name=${name}` })).items;

  test('records a core/v1 Event about the object, and folds a repeat into its count', async () => {
    const recorder = new EventRecorder({ client: env.client, component: 'podops', instance: 'podops-0' });
    recorder.event(pod('web-0'), 'Normal', 'ServiceReady', 'update service readiness gate to: False');
    await recorder.flush();
    let [event] = await eventsFor('web-0');
    assert.ok(event);
    assert.equal(event.reason, 'ServiceReady');
    assert.equal(event.type, 'Normal');
    assert.deepEqual(event.involvedObject, { apiVersion: 'v1', kind: 'Pod', name: 'web-0', namespace: 'default', uid: 'uid-web-0', resourceVersion: '7' });
    assert.equal(event.source.component, 'podops');
    recorder.event(pod('web-0'), 'Normal', 'ServiceReady', 'update service readiness gate to: False');
    await recorder.flush();
    const events = await eventsFor('web-0');
    assert.equal(events.length, 1);
    [event] = events;
    assert.equal(event?.count, 2);
  });

  test('past ten different messages of one reason on one object, the rest become one combined event; a hot loop is capped at the burst of 25', async () => {
    const recorder = new EventRecorder({ client: env.client, component: 'podops' });
    for (let i = 0; i < 40; i++) recorder.event(pod('hot'), 'Warning', 'Retry', `attempt ${i}`);
    await recorder.flush();
    const events = await eventsFor('hot');
    assert.equal(events.length, 11, 'ten events and a combined one');
    const combined = events.find((e) => e.message.startsWith('(combined from similar events): '));
    // The bucket lets 25 of the 40 through: ten events, then the combined one and 14 more counts on it.
    assert.equal(combined?.message, '(combined from similar events): attempt 24');
    assert.equal(combined?.count, 15);
    recorder.event(pod('hot'), 'Warning', 'Retry', 'attempt 3');
    await recorder.flush();
    assert.equal((await eventsFor('hot')).length, 11, 'the bucket is empty: nothing more is recorded');
  });
});

describe('probe server', () => {
  test('healthz, readyz with named checks, metrics, and 404', async () => {
    const registry = new Registry();
    new Counter({ name: 'podops_probe_test_total', help: 'test', registers: [registry] }).inc();
    let synced = false;
    const server = await startProbeServer({ address: '127.0.0.1:0', registry, healthChecks: { ping: () => true }, readyChecks: { 'informers-synced': () => synced } });
    try {
      const get = async (path: string) => {
        const res = await fetch(`http://${server.address}${path}`);
        return { status: res.status, text: await res.text() };
      };
      assert.deepEqual(await get('/healthz'), { status: 200, text: 'ok' });
      assert.deepEqual(await get('/readyz'), { status: 500, text: '[-]informers-synced failed\nreadyz check failed\n' });
      synced = true;
      assert.deepEqual(await get('/readyz'), { status: 200, text: 'ok' });
      assert.deepEqual(await get('/readyz/informers-synced?verbose'), { status: 200, text: '[+]informers-synced ok\nreadyz check passed\n' });
      assert.match((await get('/metrics')).text, /podops_probe_test_total 1/);
      assert.equal((await get('/nope')).status, 404);
    } finally {
      await server.close();
    }
  });

  test('bind addresses', () => {
    assert.deepEqual(parseBindAddress(':8080'), { host: '0.0.0.0', port: 8080 });
    assert.deepEqual(parseBindAddress('127.0.0.1:0'), { host: '127.0.0.1', port: 0 });
    assert.throws(() => parseBindAddress('localhost:http'), /invalid bind address "localhost:http"/);
  });
});
