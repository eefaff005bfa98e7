import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { waitFor } from '../../../test/support/wait.ts';
import { after, describe, test } from 'node:test';
import type { PodTransitionRule } from '../../api/podtransitionrule.ts';
import type { WebhookCall } from '../webhook-rule.ts';
import { CallManager } from './call-manager.ts';

/** A rule server: `hang` keeps requests open (until the client gives up), otherwise it approves. */
async function ruleServer(hang: boolean): Promise<{ url: string; received: number; close(): Promise<void> }> {
  const state = { received: 0 };
  const open = new Set<ServerResponse>();
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    state.received++;
    req.resume();
    if (hang) open.add(res);
    else req.on('end', () => res.end(JSON.stringify({ success: true })));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/check`,
    get received() {
      return state.received;
    },
    close: () => {
      for (const res of open) res.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

const ptr = (name: string, url: string): PodTransitionRule => ({
  metadata: { name, namespace: 'default', uid: `uid-${name}` },
  spec: { selector: {}, rules: [{ name: 'hook', webhook: { clientConfig: { url } } }] },
});
const call = (url: string): WebhookCall => ({
  stage: 'PreCheck',
  ruleIndex: 0,
  ruleKey: 'k',
  url,
  caBundle: '',
  pods: ['web-0'],
  request: { traceId: 't', ruleName: 'hook', resources: [] },
});
describe('CallManager concurrency', () => {
  const servers: { close(): Promise<void> }[] = [];
  after(() => Promise.all(servers.map((s) => s.close())));

  test('beyond the limit calls wait their turn, pending; the deadline runs from sending; a dropped waiting call is never sent', async () => {
    const hanging = await ruleServer(true);
    const healthy = await ruleServer(false);
    const dropped = await ruleServer(false);
    servers.push(hanging, healthy, dropped);
    const answered: string[] = [];
    const calls = new CallManager({ concurrency: 1, requestTimeoutMs: 300, onAnswered: (owner) => answered.push(owner.name) });
    const slow = ptr('slow', hanging.url);
    const next = ptr('next', healthy.url);
    const gone = ptr('gone', dropped.url);
    calls.start(slow, call(hanging.url));
    calls.start(gone, call(dropped.url));
    calls.start(next, call(healthy.url));
    await waitFor(() => hanging.received === 1, 'the first call is sent');
    assert.equal(healthy.received, 0, 'the others wait for the slot');
    assert.deepEqual(calls.states(next).get(0), { traceId: 't', pods: ['web-0'], pending: true });
    calls.forget(gone);

    await waitFor(() => answered.includes('next'), 'the waiting call answered once the hanging one timed out');
    assert.deepEqual(answered, ['slow', 'next']);
    assert.match(String((calls.states(slow).get(0) as { error?: string }).error), /timed out|deadline|300/);
    assert.deepEqual((calls.states(next).get(0) as { response?: { success: boolean } }).response?.success, true);
    assert.equal(dropped.received, 0, 'the call dropped while waiting was never sent');
    calls.stop();
  });

  test('a concurrency below 1 is refused', () => {
    assert.throws(() => new CallManager({ concurrency: 0 }), /webhook call concurrency must be at least 1, got 0/);
  });
});
