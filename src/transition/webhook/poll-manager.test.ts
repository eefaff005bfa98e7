// The poll manager against real servers on 127.0.0.1, with rule seconds shortened to milliseconds.

import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import type { PollTaskSpec } from '../webhook-rule.ts';
import { FIRST_POLL_MESSAGE, PollManager, ruleKeyOf, type PollManagerOptions } from './poll-manager.ts';
import { json, startRuleServer, type Handler, type RuleServer } from './rule-server.test-support.ts';

const SECOND_MS = 10;
const servers: RuleServer[] = [];
const managers: PollManager[] = [];
after(async () => {
  for (const m of managers) m.stop();
  await Promise.all(servers.map((s) => s.close()));
});
const serve = async (handler: Handler): Promise<RuleServer> => {
  const server = await startRuleServer(handler);
  servers.push(server);
  return server;
};

/** A manager whose notifications can be awaited: `until(check)` resolves at the first poll after which check() holds. */
function manager(options: Omit<PollManagerOptions, 'onPolled'> = {}) {
  const polled: PollTaskSpec[] = [];
  const waiters: { check: () => boolean; resolve: () => void }[] = [];
  const m = new PollManager({
    secondMs: SECOND_MS,
    ...options,
    onPolled: (spec) => {
      polled.push(spec);
      for (const w of [...waiters]) {
        if (w.check()) {
          waiters.splice(waiters.indexOf(w), 1);
          w.resolve();
        }
      }
    },
  });
  managers.push(m);
  const until = (check: () => boolean, limitMs = 5000): Promise<void> =>
    check()
      ? Promise.resolve()
      : new Promise((resolve, reject) => {
          const timer = setTimeout(() => reject(new Error('condition not reached')), limitMs);
          waiters.push({ check, resolve: () => (clearTimeout(timer), resolve()) });
        });
  return { m, polled, until };
}

const spec = (url: string, extra: Partial<PollTaskSpec> = {}): PollTaskSpec => ({
  namespace: 'default',
  name: 'ptr',
  rule: 'w',
  taskId: 'tk',
  url,
  caBundle: '',
  intervalSeconds: 1,
  timeoutSeconds: 60,
  ...extra,
});
const KEY = 'default/ptr/w';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('PollManager', () => {
  test('polls every interval, approving one more pod per poll until finished; notifies after each poll', async () => {
    const pods = ['a', 'b', 'c', 'd'];
    let polls = 0;
    const server = await serve((_req, res) => {
      polls++;
      json(res, polls >= pods.length ? { success: true, finished: true, message: 'success' } : { success: true, finished: false, finishedNames: pods.slice(0, polls), message: `server: success size ${polls}` });
    });
    const { m, polled, until } = manager();
    m.add(spec(`${server.url}/fetch?task-id=tk`));
    assert.equal(m.result(KEY, 'tk')?.lastMessage, FIRST_POLL_MESSAGE);
    const seen: number[] = [];
    await until(() => {
      const r = m.result(KEY, 'tk');
      if (r) seen.push(r.approved.size);
      return r?.approveAll === true;
    });
    assert.deepEqual(seen, [0, 1, 2, 3, 3], "before the first poll, then after each");
    const result = m.result(KEY, 'tk')!;
    assert.deepEqual({ count: result.count, stopped: result.stopped, approveAll: result.approveAll, lastMessage: result.lastMessage }, { count: 4, stopped: true, approveAll: true, lastMessage: 'success' });
    assert.equal(typeof result.lastQueryTime, 'bigint');
    assert.deepEqual(new Set(server.requests.map((r) => `${r.method} ${r.url}`)), new Set(['GET /fetch?task-id=tk']));
    assert.equal(polled.length, 4);
    assert.deepEqual(polled[0], spec(`${server.url}/fetch?task-id=tk`));
    await sleep(5 * SECOND_MS);
    assert.equal(server.requests.length, 4, 'no poll after the task stopped');
  });

  test('the approved set only grows; stop ends the task', async () => {
    const answers = [{ finishedNames: ['a', 'b'] }, { finishedNames: ['a'] }, { finishedNames: ['c'], stop: true }];
    let i = 0;
    const server = await serve((_req, res) => json(res, { success: false, message: `answer ${i}`, ...answers[Math.min(i++, answers.length - 1)] }));
    const { m, until } = manager();
    m.add(spec(server.url));
    await until(() => m.result(KEY, 'tk')?.stopped === true);
    const result = m.result(KEY, 'tk')!;
    assert.deepEqual([...result.approved].sort(), ['a', 'b', 'c']);
    assert.equal(result.approveAll, false);
    assert.equal(result.timedOut, false);
    await sleep(5 * SECOND_MS);
    assert.equal(server.requests.length, 3);
  });

  test('timeout: the task stops with "Polling Timeout. <last message>" and is forgotten timeout + 59 s after it started', async () => {
    const server = await serve((_req, res) => json(res, { success: true, finished: false, message: 'still working' }));
    const { m, until } = manager();
    m.add(spec(server.url, { intervalSeconds: 1, timeoutSeconds: 3 }));
    await until(() => m.result(KEY, 'tk')?.stopped === true);
    const result = m.result(KEY, 'tk')!;
    assert.equal(result.timedOut, true);
    assert.equal(result.lastMessage, 'Polling Timeout. still working');
    const requests = server.requests.length;
    await sleep((3 + 59) * SECOND_MS + 100);
    assert.equal(m.result(KEY, 'tk'), undefined);
    assert.equal(m.size, 0);
    assert.equal(server.requests.length, requests);
  });

  test('a failed poll is recorded and polling goes on; a good poll clears the error', async () => {
    let i = 0;
    const server = await serve((_req, res) => {
      if (i++ === 0) {
        res.writeHead(500);
        res.end('down');
      } else {
        json(res, { success: true, finished: false, finishedNames: ['a'], message: 'up' });
      }
    });
    const { m, until } = manager();
    m.add(spec(server.url));
    await until(() => m.result(KEY, 'tk')?.lastError !== undefined);
    assert.equal(m.result(KEY, 'tk')?.lastError, 'failed by response status code: 500, body: down');
    assert.equal(m.result(KEY, 'tk')?.lastMessage, FIRST_POLL_MESSAGE);
    await until(() => m.result(KEY, 'tk')?.approved.has('a') === true);
    assert.equal(m.result(KEY, 'tk')?.lastError, undefined);
  });

  test('at most `concurrency` polls in flight', async () => {
    let inFlight = 0;
    let most = 0;
    const server = await serve((_req, res) => {
      inFlight++;
      most = Math.max(most, inFlight);
      setTimeout(() => {
        inFlight--;
        json(res, { success: true, finished: true });
      }, 30);
    });
    const { m, until } = manager({ concurrency: 2 });
    for (let t = 0; t < 6; t++) m.add(spec(server.url, { taskId: `t${t}` }));
    await until(() => [0, 1, 2, 3, 4, 5].every((t) => m.result(KEY, `t${t}`)?.approveAll === true));
    assert.equal(most, 2);
  });

  test('hanging servers hold their slots only until the request deadline: another rule’s polls go on', async () => {
    const hanging = await serve(() => undefined);
    const healthy = await serve((_req, res) => json(res, { success: true, finished: true, message: 'ok' }));
    const { m, until } = manager({ concurrency: 2, requestTimeoutMs: 100 });
    for (let t = 0; t < 4; t++) m.add(spec(hanging.url, { rule: 'broken', taskId: `h${t}` }));
    m.add(spec(healthy.url, { rule: 'fine' }));
    await until(() => m.result('default/ptr/fine', 'tk')?.approveAll === true);
    assert.equal(m.result('default/ptr/broken', 'h0')?.lastError, 'request timed out after 100ms');
    assert.equal(m.result('default/ptr/broken', 'h0')?.stopped, false);
  });

  test('forget stops a task; a task of the same rule and ID replaces the old one', async () => {
    const server = await serve((_req, res) => json(res, { success: true, finished: false }));
    const { m } = manager();
    m.add(spec(server.url));
    m.forget({ ruleKey: KEY, taskId: 'tk' });
    assert.equal(m.result(KEY, 'tk'), undefined);
    await sleep(5 * SECOND_MS);
    assert.equal(server.requests.length, 0);
    m.add(spec(server.url, { timeoutSeconds: 1000 }));
    m.add(spec(server.url, { timeoutSeconds: 1000 }));
    assert.equal(m.size, 1);
  });

  test('reader: each task is read once per evaluation', async () => {
    const server = await serve((_req, res) => json(res, { success: true, finished: true }));
    const { m, until } = manager();
    m.add(spec(server.url));
    const read = m.reader();
    assert.equal(read(KEY, 'tk')?.count, 0);
    await until(() => m.result(KEY, 'tk')?.approveAll === true);
    assert.equal(read(KEY, 'tk')?.count, 0);
    assert.equal(m.reader()(KEY, 'tk')?.count, 1);
    assert.equal(ruleKeyOf(spec('')), KEY);
  });

  test('stop aborts polls in flight and refuses new tasks', async () => {
    const hanging = await serve(() => undefined);
    const { m, polled } = manager();
    m.add(spec(hanging.url));
    await sleep(3 * SECOND_MS);
    m.stop();
    await sleep(3 * SECOND_MS);
    assert.equal(m.size, 0);
    assert.equal(polled.length, 0);
    assert.throws(() => m.add(spec(hanging.url)), /stopped/);
  });
});
