// The poll manager against real servers on 127.0.0.1, with rule seconds shortened to milliseconds.

import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import type { PollTaskSpec } from '../webhook-rule.ts';
import { FIRST_POLL_MESSAGE, PollManager, ruleKeyOf, type PollManagerOptions } from './poll-manager.ts';
import { EventWaiter, sleep, until } from '../../../test/support/wait.ts';
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

/**
 * A manager whose notifications can be awaited: `afterPoll(check)` resolves at the first poll after which check()
 * holds (a poll's outcome may last only until the next one, 10 ms later).
 */
function manager(options: Omit<PollManagerOptions, 'onPolled'> = {}) {
  const polled: PollTaskSpec[] = [];
  const polls = new EventWaiter();
  const m = new PollManager({
    secondMs: SECOND_MS,
    ...options,
    onPolled: (spec) => {
      polled.push(spec);
      polls.notify();
    },
  });
  managers.push(m);
  const afterPoll = (check: () => boolean, what: string): Promise<void> => polls.waitFor(check, what);
  return { m, polled, afterPoll };
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

describe('PollManager', () => {
  test('polls every interval, approving one more pod per poll until finished; notifies after each poll', async () => {
    const pods = ['a', 'b', 'c', 'd'];
    let polls = 0;
    const server = await serve((_req, res) => {
      polls++;
      json(res, polls >= pods.length ? { success: true, finished: true, message: 'success' } : { success: true, finished: false, finishedNames: pods.slice(0, polls), message: `server: success size ${polls}` });
    });
    const { m, polled, afterPoll } = manager();
    m.add(spec(`${server.url}/fetch?task-id=tk`));
    assert.equal(m.result(KEY, 'tk')?.lastMessage, FIRST_POLL_MESSAGE);
    const seen: number[] = [];
    await afterPoll(() => {
      const r = m.result(KEY, 'tk');
      if (r) seen.push(r.approved.size);
      return r?.approveAll === true;
    }, 'every pod approved');
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
    const { m, afterPoll } = manager();
    m.add(spec(server.url));
    await afterPoll(() => m.result(KEY, 'tk')?.stopped === true, 'the task to stop');
    const result = m.result(KEY, 'tk')!;
    assert.deepEqual([...result.approved].sort(), ['a', 'b', 'c']);
    assert.equal(result.approveAll, false);
    assert.equal(result.timedOut, false);
    await sleep(5 * SECOND_MS);
    assert.equal(server.requests.length, 3);
  });

  test('timeout: at the first poll after its timeout the task stops with "Polling Timeout. <last message>"', async () => {
    const server = await serve((_req, res) => json(res, { success: true, finished: false, message: 'still working' }));
    // The timeout is read on the manager's clock, moved here by the test: the task is forgotten 59 s after its
    // timeout on real timers, which a loaded machine must not reach before the stop is seen (1000 + 59 s of 10 ms).
    let now = Date.now();
    const { m, afterPoll } = manager({ clock: () => now });
    m.add(spec(server.url, { intervalSeconds: 1, timeoutSeconds: 1000 }));
    await afterPoll(() => m.result(KEY, 'tk')?.lastMessage === 'still working', 'a first answer');
    assert.equal(m.result(KEY, 'tk')?.stopped, false);
    now += 1000 * SECOND_MS + 1;
    await afterPoll(() => m.result(KEY, 'tk')?.stopped === true, 'the task to stop');
    const result = m.result(KEY, 'tk')!;
    assert.equal(result.timedOut, true);
    assert.equal(result.lastMessage, 'Polling Timeout. still working');
    const requests = server.requests.length;
    await sleep(5 * SECOND_MS);
    assert.equal(server.requests.length, requests, 'no poll after the timeout');
  });

  test('a task is forgotten timeout + 59 s after it started', async () => {
    const server = await serve((_req, res) => json(res, { success: true, finished: false, message: 'still working' }));
    const { m } = manager();
    const started = performance.now();
    m.add(spec(server.url, { intervalSeconds: 1, timeoutSeconds: 3 }));
    await until(() => m.size, (size) => size === 0, 'the task forgotten', 60_000);
    // Timers fire late under load, never early (by more than the millisecond they are rounded to).
    assert.ok(performance.now() - started >= (3 + 59) * SECOND_MS - 1, `forgotten after ${performance.now() - started} ms`);
    assert.equal(m.result(KEY, 'tk'), undefined);
    const requests = server.requests.length;
    await sleep(5 * SECOND_MS);
    assert.equal(server.requests.length, requests, 'no poll after the task was forgotten');
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
    const { m, afterPoll } = manager();
    m.add(spec(server.url));
    await afterPoll(() => m.result(KEY, 'tk')?.lastError !== undefined, 'the failed poll');
    assert.equal(m.result(KEY, 'tk')?.lastError, 'failed by response status code: 500, body: down');
    assert.equal(m.result(KEY, 'tk')?.lastMessage, FIRST_POLL_MESSAGE);
    await afterPoll(() => m.result(KEY, 'tk')?.approved.has('a') === true, 'a good poll');
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
    const { m, afterPoll } = manager({ concurrency: 2 });
    for (let t = 0; t < 6; t++) m.add(spec(server.url, { taskId: `t${t}` }));
    await afterPoll(() => [0, 1, 2, 3, 4, 5].every((t) => m.result(KEY, `t${t}`)?.approveAll === true), 'every task approved');
    assert.equal(most, 2);
  });

  test('hanging servers hold their slots only until the request deadline: another rule’s polls go on', async () => {
    const hanging = await serve(() => undefined);
    const healthy = await serve((_req, res) => json(res, { success: true, finished: true, message: 'ok' }));
    const { m, afterPoll } = manager({ concurrency: 2, requestTimeoutMs: 100 });
    for (let t = 0; t < 4; t++) m.add(spec(hanging.url, { rule: 'broken', taskId: `h${t}` }));
    m.add(spec(healthy.url, { rule: 'fine' }));
    await afterPoll(() => m.result('default/ptr/fine', 'tk')?.approveAll === true, 'the healthy rule approved');
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
    const { m, afterPoll } = manager();
    m.add(spec(server.url));
    const read = m.reader();
    assert.equal(read(KEY, 'tk')?.count, 0);
    await afterPoll(() => m.result(KEY, 'tk')?.approveAll === true, 'the task approved');
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
