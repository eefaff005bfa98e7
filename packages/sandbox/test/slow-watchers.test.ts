// A watcher that stops reading: kube-apiserver closes a watcher that falls behind its buffer (the client then
// watches again from its last resourceVersion), so one client that stopped reading costs neither the writes
// nor the server's memory. The sandbox must do the same.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { startSandbox, type Sandbox } from '../src/index.ts';

let sandbox: Sandbox;
const ns = 'slow';

before(async () => {
  sandbox = await startSandbox({});
  await send('POST', '/api/v1/namespaces', { metadata: { name: ns } });
  await send('POST', `/api/v1/namespaces/${ns}/configmaps`, { metadata: { name: 'big' } });
});
after(() => sandbox.stop());

async function send(method: string, path: string, body: unknown, contentType = 'application/json'): Promise<void> {
  const res = await fetch(`${sandbox.url}${path}`, { method, headers: { 'content-type': contentType }, body: JSON.stringify(body) });
  assert.ok(res.ok, `${method} ${path}: ${res.status} ${await res.text()}`);
}

const END_OF_STREAM = '\r\n0\r\n\r\n';

interface RawWatch {
  socket: Socket;
  /** Events of the type read so far. */
  count(type: string): number;
  /** Whether the chunked stream ended (its last chunk came) or the connection closed. */
  ended(): boolean;
}

/** A watch on a raw connection: the test decides when (if ever) it reads. */
function rawWatch(path: string): RawWatch {
  const { hostname, port } = new URL(sandbox.url);
  const socket = connect(Number(port), hostname);
  socket.write(`GET ${path} HTTP/1.1\r\nHost: ${hostname}:${port}\r\n\r\n`);
  socket.setEncoding('latin1');
  let text = '';
  socket.on('data', (chunk: string) => (text += chunk));
  socket.on('error', () => {});
  return { socket, count: (type) => text.split(`"type":"${type}"`).length - 1, ended: () => text.endsWith(END_OF_STREAM) || socket.destroyed };
}

test('a watcher that stops reading is closed once it falls behind; the others get every event', async () => {
  const path = `/api/v1/namespaces/${ns}/configmaps?watch=1&fieldSelector=metadata.name%3Dbig`;
  const stalled = rawWatch(path);
  stalled.socket.pause();
  const reader = rawWatch(path);
  await new Promise((resolve) => setTimeout(resolve, 100));

  // 100 writes of 200 KiB each: 20 MB the stalled watcher cannot take (more than a socket's buffers hold).
  const filler = 'x'.repeat(200 * 1024);
  for (let i = 0; i < 100; i++) await send('PATCH', `/api/v1/namespaces/${ns}/configmaps/big`, { data: { filler, i: String(i) } }, 'application/merge-patch+json');

  // Once it reads again, the stalled watcher finds its stream ended (client-go then watches again).
  stalled.socket.resume();
  await until(() => stalled.ended(), () => `the stalled watcher is still open, having read ${stalled.count('MODIFIED')} events`);
  assert.ok(stalled.count('MODIFIED') < 100, 'the stalled watcher was closed before it got every event');
  // The reading watcher was not closed and got every write.
  await until(() => reader.count('MODIFIED') === 100, () => `the reading watcher got ${reader.count('MODIFIED')} of 100 events`);
  assert.ok(!reader.ended(), 'the watcher that reads stays open');
  reader.socket.destroy();
  stalled.socket.destroy();
});

test('the initial events of a watch go out at the pace of its client, however many', async () => {
  // 40 objects of 200 KiB: 8 MB of initial events, more than a watcher may fall behind by afterwards.
  const filler = 'x'.repeat(200 * 1024);
  for (let i = 0; i < 40; i++) await send('POST', `/api/v1/namespaces/${ns}/configmaps`, { metadata: { name: `initial-${i}`, labels: { set: 'initial' } }, data: { filler } });
  const watch = rawWatch(`/api/v1/namespaces/${ns}/configmaps?watch=1&labelSelector=set%3Dinitial`);
  watch.socket.pause();
  await new Promise((resolve) => setTimeout(resolve, 1500));
  watch.socket.resume();
  await until(() => watch.count('ADDED') === 40, () => `the watcher got ${watch.count('ADDED')} of 40 initial events`);
  assert.ok(!watch.ended(), 'the watch stays open');
  watch.socket.destroy();
});

async function until(done: () => boolean, what: () => string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > deadline) assert.fail(what());
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
