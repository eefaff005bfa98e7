// Upstream's webhook-rule scenarios end to end, against real rule servers on 127.0.0.1: a small loop
// plays the controller (evaluate, keep the status, evaluate again when a first request is answered or
// the poll manager has polled).

import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import type { Pod } from '../../api/kube.ts';
import type { PodTransitionRule, TransitionRule, TransitionRuleWebhook, WebhookRequest } from '../../api/podtransitionrule.ts';
import { nanosFromMillis } from '../../lifecycle/time.ts';
import type { Evaluation } from '../evaluate.ts';
import { ptr, stagePod } from '../fixtures.test-support.ts';
import { waitFor } from '../../../test/support/wait.ts';
import { CallManager } from './call-manager.ts';
import { evaluateWithWebhooks } from './driver.ts';
import { PollManager } from './poll-manager.ts';
import { closedPort, json, otherPki, startRuleServer, testPki, type Handler, type RuleServer } from './rule-server.test-support.ts';

const SECOND_MS = 40;
const servers: RuleServer[] = [];
const managers: { stop(): void }[] = [];
after(async () => {
  for (const m of managers) m.stop();
  await Promise.all(servers.map((s) => s.close()));
});
const serve = async (handler: Handler, tls?: Awaited<ReturnType<typeof testPki>>): Promise<RuleServer> => {
  const server = await startRuleServer(handler, tls);
  servers.push(server);
  return server;
};
const podsOf = (request: { body: string }): string[] => (JSON.parse(request.body) as WebhookRequest).resources.map((r) => r.name);
const clock = (): bigint => nanosFromMillis(Date.now());

/** Plays the PodTransitionRule controller for one rule: evaluate, keep the status, requeue on answers and polls. */
function controller(webhook: TransitionRuleWebhook | TransitionRule[], options: { requestTimeoutMs?: number; name?: string } = {}) {
  let polled: (() => void) | undefined;
  let answered: (() => void) | undefined;
  const requestTimeoutMs = options.requestTimeoutMs ?? 2000;
  const managersFor = () => {
    const m = {
      polls: new PollManager({ secondMs: SECOND_MS, requestTimeoutMs, onPolled: () => polled?.() }),
      calls: new CallManager({ requestTimeoutMs, clock, onAnswered: () => answered?.() }),
    };
    managers.push(m.polls, m.calls);
    return m;
  };
  let traces = 0;
  const state = {
    rule: ptr(Array.isArray(webhook) ? webhook : [{ name: 'w', webhook }], { name: options.name ?? 'ptr' }) as PodTransitionRule,
    ...managersFor(),
    /** One reconcile: returns at once, whatever the rule servers do. `laterMs` moves the evaluation's clock. */
    evaluate(pods: Pod[], laterMs = 0): Evaluation {
      const evaluation = evaluateWithWebhooks(
        { ptr: state.rule, pods, now: nanosFromMillis(Date.now() + laterMs) },
        { polls: state.polls, calls: state.calls, newTraceId: () => `trace-${++traces}` },
      );
      state.rule = { ...state.rule, status: evaluation.status };
      evaluation.releaseAnswers();
      return evaluation;
    },
    /** A reconcile whose status write is lost (a conflict): nothing is kept, nothing released. */
    evaluateLosingTheWrite(pods: Pod[]): Evaluation {
      return evaluateWithWebhooks(
        { ptr: state.rule, pods, now: nanosFromMillis(Date.now()) },
        { polls: state.polls, calls: state.calls, newTraceId: () => `trace-${++traces}` },
      );
    },
    /** Reconciles until no first request is in flight, as the requeue on each answer does. */
    async reconcile(pods: Pod[]): Promise<Evaluation> {
      for (;;) {
        const next = new Promise<void>((resolve) => (answered = resolve));
        const evaluation = state.evaluate(pods);
        if (state.calls.inFlight === 0) return evaluation;
        await next;
      }
    },
    nextPoll: (): Promise<void> => new Promise((resolve) => (polled = resolve)),
    /** Replaces the managers, as a restart of the operator does. */
    restart(): void {
      state.polls.stop();
      state.calls.stop();
      Object.assign(state, managersFor());
    },
  };
  return state;
}

const PODS = ['test-pod-a', 'test-pod-b', 'test-pod-c'].map((name, i) => stagePod(name, { podIP: `1.1.1.${58 + i}` }));
const passed = (evaluation: Evaluation): string[] => (evaluation.status.details ?? []).filter((d) => d.passed).map((d) => d.name as string);
const reasonOf = (evaluation: Evaluation, pod: string): string | undefined => evaluation.status.details?.find((d) => d.name === pod)?.rejectInfo?.[0]?.reason;

describe('webhook rule end to end: first request', () => {
  test('always success: 1 then 4 pods pass, each asked once', async () => {
    const server = await serve((_req, res) => json(res, { success: true, message: 'test success' }));
    const c = controller({ clientConfig: { url: server.url } });
    const four = ['p1', 'p2', 'p3', 'p4'].map((n) => stagePod(n));
    assert.deepEqual(passed(await c.reconcile([four[0]!, ...four.slice(1).map((p) => stagePod(p.metadata.name!, { stage: 'none' }))])), ['p1']);
    const evaluation = await c.reconcile(four);
    assert.deepEqual(passed(evaluation), ['p1', 'p2', 'p3', 'p4']);
    assert.deepEqual(evaluation.status.details?.length, 4);
    assert.deepEqual(server.requests.map(podsOf), [['p1'], ['p2', 'p3', 'p4']]);
  });

  test('the request carries the parameters of each pod', async () => {
    const server = await serve((_req, res) => json(res, { success: true }));
    const c = controller({
      clientConfig: { url: server.url },
      parameters: [{ key: 'podIP', valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: 'status.podIP' } } }],
    });
    await c.reconcile(PODS.slice(0, 1));
    assert.equal(server.requests[0]?.body, '{"traceId":"trace-1","ruleName":"w","resources":[{"apiVersion":"core/v1","kind":"Pod","name":"test-pod-a","parameters":{"podIP":"1.1.1.58"}}]}');
  });

  test('always fail: every pod rejected; the answer stands for 5 s, then the pods are asked again', async () => {
    const server = await serve((_req, res) => json(res, { success: false, message: 'test false' }));
    const c = controller({ clientConfig: { url: server.url } });
    const evaluation = await c.reconcile(PODS.slice(0, 1));
    assert.deepEqual(passed(evaluation), []);
    const rejected = 'Webhook check default/ptr/w rejected, traceId trace-1, taskId , msg: test false';
    assert.equal(reasonOf(evaluation, 'test-pod-a'), rejected);
    assert.ok(evaluation.requeueAfterMs !== undefined && evaluation.requeueAfterMs > 4000 && evaluation.requeueAfterMs <= 5000, String(evaluation.requeueAfterMs));
    // Reconciles within the 5 s (a status write, a pod event) change nothing and send nothing.
    const within = c.evaluate(PODS.slice(0, 1), 4000);
    assert.equal(within.changed, false);
    assert.ok(within.requeueAfterMs !== undefined && within.requeueAfterMs <= 1000);
    assert.equal(server.requests.length, 1);
    const due = c.evaluate(PODS.slice(0, 1), 5000);
    assert.equal(reasonOf(due, 'test-pod-a'), 'Waiting for webhook default/ptr/w response, traceId trace-2');
    await waitFor(() => server.requests.length === 2);
  });

  test('an answer whose status write was lost is used again, not asked again', async () => {
    const server = await serve((_req, res) => json(res, { success: true }));
    const c = controller({ clientConfig: { url: server.url } });
    c.evaluate(PODS);
    await waitFor(() => c.calls.inFlight === 0);
    assert.deepEqual(passed(c.evaluateLosingTheWrite(PODS)), PODS.map((p) => p.metadata.name));
    assert.deepEqual(passed(c.evaluate(PODS)), PODS.map((p) => p.metadata.name));
    assert.equal(server.requests.length, 1);
  });

  test('partial: finishedNames of a failed answer pass', async () => {
    const server = await serve((req, res) => json(res, { success: false, message: 'test finishedNames', finishedNames: podsOf(req).slice(0, -1) }));
    const evaluation = await controller({ clientConfig: { url: server.url } }).reconcile(PODS);
    assert.deepEqual(passed(evaluation), ['test-pod-a', 'test-pod-b']);
    assert.equal(reasonOf(evaluation, 'test-pod-c'), 'Webhook check default/ptr/w rejected, traceId trace-1, taskId , msg: test finishedNames');
  });

  test('HTTPS with the caBundle as trust root', async () => {
    const pki = await testPki();
    const server = await serve((_req, res) => json(res, { success: true }), pki);
    assert.deepEqual(passed(await controller({ clientConfig: { url: server.url, caBundle: pki.caBundle } }).reconcile(PODS)), PODS.map((p) => p.metadata.name));
  });
});

describe('webhook rule end to end: polling', () => {
  /** First request answers async with a trace ID; each poll approves one more pod, then `last`. */
  /** The first answer: async with a trace ID (default), or e.g. poll with a task ID. */
  async function pollServers(last: (res: Parameters<Handler>[1]) => void, key = 'trace-id', answer = (id: string): object => ({ success: true, async: true, traceId: id })) {
    const tasks = new Map<string, { pods: string[]; polls: number }>();
    const first = await serve((req, res) => {
      const id = `srv-${tasks.size + 1}`;
      tasks.set(id, { pods: podsOf(req), polls: 0 });
      json(res, answer(id));
    });
    const poll = await serve((req, res) => {
      const task = tasks.get(new URL(req.url, 'http://x').searchParams.get(key) ?? '');
      if (!task) return json(res, { success: false, message: 'unknown task' }, 404);
      task.polls++;
      if (task.polls >= task.pods.length) return last(res);
      json(res, { success: true, finished: false, finishedNames: task.pods.slice(0, task.polls), message: `server: success size ${task.polls}` });
    });
    return { first, poll, tasks };
  }
  const pollWebhook = (first: RuleServer, poll: RuleServer): TransitionRuleWebhook => ({
    clientConfig: { url: first.url, poll: { url: poll.url, rawQueryKey: 'trace-id', intervalSeconds: 1, timeoutSeconds: 60 } },
    failurePolicy: 'Fail',
  });

  test('async with the trace-id key: passed pods step 0, 1, 2, 3, 4, one per poll', async () => {
    const { first, poll } = await pollServers((res) => json(res, { success: true, finished: true, message: 'success' }));
    const c = controller(pollWebhook(first, poll));
    const pods = ['a', 'b', 'c', 'd'].map((n) => stagePod(n));
    const counts: number[] = [];
    let evaluation = await c.reconcile(pods);
    counts.push(passed(evaluation).length);
    assert.equal(reasonOf(evaluation, 'a'), 'Polling task default/ptr/w initialized, will polling by taskId srv-1, msg: ');
    while (passed(evaluation).length < 4) {
      await c.nextPoll();
      evaluation = await c.reconcile(pods);
      if (counts.at(-1) !== passed(evaluation).length) counts.push(passed(evaluation).length);
    }
    assert.deepEqual(counts, [0, 1, 2, 3, 4]);
    assert.deepEqual(new Set(poll.requests.map((r) => r.url)), new Set(['/?trace-id=srv-1']));
    assert.deepEqual(evaluation.status.ruleStates?.[0]?.webhookStatus?.history?.map((t) => [t.taskId, t.approved]), [['srv-1', ['a', 'b', 'c', 'd']]]);
    assert.equal(c.polls.size, 0, 'the finished task is forgotten');
  });

  test('poll with a task ID and the default task-id key: passed pods step 0, 1, 2, 3, 4, one per poll', async () => {
    const { first, poll } = await pollServers((res) => json(res, { success: true, finished: true, message: 'success' }), 'task-id', (id) => ({ success: true, poll: true, taskId: id, message: 'accepted' }));
    const c = controller({ clientConfig: { url: first.url, poll: { url: poll.url, intervalSeconds: 1, timeoutSeconds: 60 } } });
    const pods = ['a', 'b', 'c', 'd'].map((n) => stagePod(n));
    let evaluation = await c.reconcile(pods);
    assert.equal(reasonOf(evaluation, 'a'), 'Polling task default/ptr/w initialized, will polling by taskId srv-1, msg: accepted');
    const counts = [passed(evaluation).length];
    while (passed(evaluation).length < 4) {
      await c.nextPoll();
      evaluation = await c.reconcile(pods);
      if (counts.at(-1) !== passed(evaluation).length) counts.push(passed(evaluation).length);
    }
    assert.deepEqual(counts, [0, 1, 2, 3, 4]);
    assert.equal(first.requests.length, 1);
    assert.ok(poll.requests.length >= 4);
    assert.deepEqual(new Set(poll.requests.map((r) => `${r.method} ${r.url}`)), new Set(['GET /?task-id=srv-1']));
    assert.deepEqual(evaluation.status.ruleStates?.[0]?.webhookStatus?.history?.map((t) => [t.taskId, t.approved, t.message]), [['srv-1', ['a', 'b', 'c', 'd'], 'success']]);
    assert.equal(c.polls.size, 0, 'the finished task is forgotten');
  });

  test('fail with stop: approved pods pass, the last one is asked again in a new request', async () => {
    const { first, poll } = await pollServers((res) => json(res, { success: false, message: 'fail', stop: true }));
    const c = controller(pollWebhook(first, poll));
    let evaluation = await c.reconcile(PODS);
    assert.deepEqual(passed(evaluation), []);
    while (first.requests.length < 2) {
      await c.nextPoll();
      evaluation = await c.reconcile(PODS);
    }
    assert.deepEqual(passed(evaluation), ['test-pod-a', 'test-pod-b']);
    assert.deepEqual(first.requests.map(podsOf), [['test-pod-a', 'test-pod-b', 'test-pod-c'], ['test-pod-c']]);
    const status = evaluation.status.ruleStates?.[0]?.webhookStatus;
    assert.deepEqual(status?.history?.map((t) => [t.taskId, t.processing, t.approved, t.message]), [['srv-1', ['test-pod-c'], ['test-pod-a', 'test-pod-b'], 'fail']]);
    assert.deepEqual(status?.taskStates?.map((t) => [t.taskId, t.processing]), [['srv-2', ['test-pod-c']]]);
  });

  test('HTTP 500 on polls under Fail: the pods wait with the error, and pass once the server recovers', async () => {
    let broken = true;
    const { first, poll } = await pollServers((res) => {
      if (broken) {
        res.writeHead(500);
        res.end('test http error case');
      } else {
        json(res, { success: true, finished: true, message: 'success' });
      }
    });
    const c = controller(pollWebhook(first, poll));
    await c.reconcile(PODS);
    let evaluation: Evaluation;
    do {
      await c.nextPoll();
      evaluation = await c.reconcile(PODS);
    } while (!reasonOf(evaluation, 'test-pod-c')?.includes('error'));
    assert.equal(
      reasonOf(evaluation, 'test-pod-c'),
      'Not approved by webhook default/ptr/w, polling task srv-1 is running server: success size 2 polling task srv-1 error, failed by response status code: 500, body: test http error case',
    );
    broken = false;
    while (passed(evaluation).length < 3) {
      await c.nextPoll();
      evaluation = await c.reconcile(PODS);
    }
    assert.equal(first.requests.length, 1);
  });

  test('restart: a task in status without a result is polled again, and its pods pass when it finishes', async () => {
    const { first, poll } = await pollServers((res) => json(res, { success: true, finished: true, message: 'success' }));
    const c = controller(pollWebhook(first, poll));
    await c.reconcile(PODS);
    c.restart();
    let evaluation = await c.reconcile(PODS);
    assert.equal(reasonOf(evaluation, 'test-pod-a'), 'Task default/ptr/w polling result not found, try polling again, srv-1');
    assert.deepEqual(evaluation.status.ruleStates?.[0]?.webhookStatus?.taskStates?.map((t) => t.taskId), ['srv-1']);
    while (passed(evaluation).length < 3) {
      await c.nextPoll();
      evaluation = await c.reconcile(PODS);
    }
    assert.equal(first.requests.length, 1, 'no new first request: the task was recovered');
  });

  test('poll timeout under Fail: "Polling Timeout." then a new first request', async () => {
    const { first, poll } = await pollServers((res) => json(res, { success: true, finished: false, message: 'still working' }));
    const c = controller({ ...pollWebhook(first, poll), clientConfig: { url: first.url, poll: { url: poll.url, rawQueryKey: 'trace-id', intervalSeconds: 1, timeoutSeconds: 4 } } });
    let evaluation = await c.reconcile(PODS);
    while (first.requests.length < 2) {
      await c.nextPoll();
      evaluation = await c.reconcile(PODS);
    }
    const history = evaluation.status.ruleStates?.[0]?.webhookStatus?.history;
    assert.match(history?.[0]?.message ?? '', /^Polling Timeout\. /);
    assert.deepEqual(first.requests.map(podsOf)[1], ['test-pod-c']);
  });
});

describe('webhook rule end to end: broken rule servers', () => {
  const hanging: Handler = () => undefined;
  const drip: Handler = (_req, res) => {
    res.writeHead(200);
    const timer = setInterval(() => res.write(' '), 20);
    res.on('close', () => clearInterval(timer));
  };
  // Only the hanging and dripping servers are meant to time out; the others must fail for their own reason even
  // on a busy machine (a TLS handshake or the first MiB of a 10 MB body can take longer than 300 ms there).
  const cases: { name: string; start: () => Promise<{ url: string; caBundle?: string }>; error: RegExp; requestTimeoutMs?: number }[] = [
    { name: 'hanging', start: async () => serve(hanging), error: /^request timed out after 300ms$/, requestTimeoutMs: 300 },
    { name: 'slow drip', start: async () => serve(drip), error: /^request timed out after 300ms$/, requestTimeoutMs: 300 },
    { name: 'invalid JSON', start: async () => serve((_req, res) => res.end('<html>')), error: /^invalid JSON in response: .*, response: <html>$/ },
    {
      name: 'a 10 MB body',
      start: async () => serve((_req, res) => res.end(JSON.stringify({ message: 'x'.repeat(10 * 1024 * 1024) }))),
      error: /^response body exceeds 1048576 bytes$/,
    },
    { name: 'HTTP 500', start: async () => serve((_req, res) => ((res.statusCode = 500), res.end('boom'))), error: /^failed by response status code: 500, body: boom$/ },
    { name: 'the wrong CA', start: async () => ({ url: (await serve(hanging, await otherPki())).url, caBundle: (await testPki()).caBundle }), error: /certificate/ },
    { name: 'connection refused', start: async () => ({ url: `http://127.0.0.1:${await closedPort()}` }), error: /ECONNREFUSED/ },
  ];
  for (const c of cases) {
    test(`${c.name}: Fail rejects with the error and retries; Ignore lets the pods pass and says so`, async () => {
      const { url, caBundle } = await c.start();
      const clientConfig = { url, ...(caBundle ? { caBundle } : {}) };
      const requestTimeoutMs = c.requestTimeoutMs ?? 30_000;
      const failing = await controller({ clientConfig, failurePolicy: 'Fail' }, { requestTimeoutMs }).reconcile(PODS);
      const reason = reasonOf(failing, 'test-pod-a') ?? '';
      const prefix = 'Fail to do webhook request default/ptr/w, ';
      const suffix = ', traceId trace-1';
      assert.ok(reason.startsWith(prefix) && reason.endsWith(suffix), reason);
      assert.match(reason.slice(prefix.length, -suffix.length), c.error);
      assert.equal(failing.requeue, true);
      const ignoring = await controller({ clientConfig, failurePolicy: 'Ignore' }, { requestTimeoutMs }).reconcile(PODS);
      assert.deepEqual(passed(ignoring), PODS.map((p) => p.metadata.name));
      assert.equal(ignoring.ignored.length, 1);
      assert.match(ignoring.ignored[0]?.error ?? '', c.error);
    });
  }

  test('a hanging rule server: the evaluation returns at once, its pods wait under the trace ID, one request at a time', async () => {
    const stuck = await serve(hanging);
    const c = controller({ clientConfig: { url: stuck.url } }, { requestTimeoutMs: 60_000 });
    const first = c.evaluate(PODS.slice(0, 2));
    assert.equal(reasonOf(first, 'test-pod-a'), 'Waiting for webhook default/ptr/w response, traceId trace-1');
    assert.deepEqual(first.waiting, [{ stage: 'PreCheck', pod: 'test-pod-a' }, { stage: 'PreCheck', pod: 'test-pod-b' }]);
    // A pod that arrives meanwhile waits for that answer before it is asked.
    const again = c.evaluate(PODS);
    assert.equal(reasonOf(again, 'test-pod-b'), 'Waiting for webhook default/ptr/w response, traceId trace-1');
    assert.equal(reasonOf(again, 'test-pod-c'), 'Waiting for webhook default/ptr/w to answer traceId trace-1 before asking');
    await waitFor(() => stuck.requests.length === 1);
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.equal(stuck.requests.length, 1);
    assert.equal(c.calls.inFlight, 1);
  });

  test('pods that arrive while a request is in flight are asked once it is answered', async () => {
    let release: (() => void) | undefined;
    const server = await serve((req, res) => {
      if (server.requests.length === 1) release = () => json(res, { success: true });
      else json(res, { success: true });
    });
    const c = controller({ clientConfig: { url: server.url } });
    c.evaluate(PODS.slice(0, 2));
    await waitFor(() => release !== undefined);
    c.evaluate(PODS);
    release?.();
    const evaluation = await c.reconcile(PODS);
    assert.deepEqual(passed(evaluation), PODS.map((p) => p.metadata.name));
    assert.deepEqual(server.requests.map(podsOf), [['test-pod-a', 'test-pod-b'], ['test-pod-c']]);
  });

  test('a call whose rule changed is dropped: the new URL is asked', async () => {
    const stuck = await serve(hanging);
    const fine = await serve((_req, res) => json(res, { success: true }));
    const c = controller({ clientConfig: { url: stuck.url } }, { requestTimeoutMs: 60_000 });
    c.evaluate(PODS);
    c.rule = { ...c.rule, spec: { ...c.rule.spec, rules: [{ name: 'w', webhook: { clientConfig: { url: fine.url } } }] } };
    const evaluation = await c.reconcile(PODS);
    assert.deepEqual(passed(evaluation), PODS.map((p) => p.metadata.name));
    assert.equal(fine.requests.length, 1);
  });

  test('two webhook rules in one stage: the second is asked only about pods the first passed', async () => {
    const first = await serve((req, res) => json(res, { success: false, finishedNames: podsOf(req).slice(0, 1) }));
    const second = await serve((_req, res) => json(res, { success: true }));
    const c = controller([
      { name: 'one', webhook: { clientConfig: { url: first.url } } },
      { name: 'two', webhook: { clientConfig: { url: second.url } } },
    ]);
    const evaluation = await c.reconcile(PODS);
    assert.deepEqual(second.requests.map(podsOf), [['test-pod-a']]);
    assert.deepEqual(passed(evaluation), ['test-pod-a']);
    assert.deepEqual(evaluation.calls, []);
  });
});
