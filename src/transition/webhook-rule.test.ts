// The webhook rule's decisions, pure: the first request's state (in flight or answered) and poll results
// are given, and the expected reject reasons, task states, poll commands and retries are upstream's
// (Kuperator's behaviour, docs/podtransitionrule.md); the waiting and the 5 s a rejection stands are podops' (first requests run
// in the background).

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Pod } from '../api/kube.ts';
import type { PodTransitionRuleStatus, TaskInfo, TransitionRule, TransitionRuleWebhook, WebhookResponse } from '../api/podtransitionrule.ts';
import { evaluate } from './evaluate.ts';
import { ptr, stagePod } from './fixtures.test-support.ts';
import type { PollResult, WebhookCallOutcome } from './webhook-rule.ts';

const NOW = 1717505885197871195n; // 2024-06-04T12:58:05Z
const SECOND = 1_000_000_000n;
const KEY = 'default/ptr/w';
const POLL = { url: 'http://rules.test/fetch', intervalSeconds: 5, timeoutSeconds: 60 };
const PODS = [stagePod('a'), stagePod('b'), stagePod('c')];

const webhookRule = (webhook: Partial<TransitionRuleWebhook> = {}, extra: Partial<TransitionRule> = {}): TransitionRule => ({
  name: 'w',
  webhook: { clientConfig: { url: 'http://rules.test/check', poll: POLL }, ...webhook },
  ...extra,
});

interface Run {
  rule?: TransitionRule;
  pods?: Pod[];
  status?: PodTransitionRuleStatus;
  outcome?: WebhookCallOutcome;
  polls?: Record<string, PollResult>;
  now?: bigint;
}

function run(options: Run = {}) {
  return evaluate({
    ptr: ptr([options.rule ?? webhookRule()], options.status ? { status: options.status } : {}),
    pods: options.pods ?? PODS,
    now: options.now ?? NOW,
    newTraceId: () => 't1',
    polls: (ruleKey, taskId) => (ruleKey === KEY ? options.polls?.[taskId] : undefined),
    webhookOutcomes: new Map(options.outcome ? [[0, options.outcome]] : []),
  });
}

const response = (fields: Partial<WebhookResponse>): WebhookCallOutcome => ({
  traceId: 't1',
  pods: ['a', 'b', 'c'],
  response: { success: true, message: '', poll: false, async: false, traceId: '', taskId: '', ...fields },
});
const reasons = (evaluation: ReturnType<typeof run>) =>
  Object.fromEntries((evaluation.status.details ?? []).map((d) => [d.name, d.passed ? 'passed' : d.rejectInfo?.[0]?.reason]));
const webhookStatus = (evaluation: ReturnType<typeof run>) => evaluation.status.ruleStates?.[0]?.webhookStatus;
const statusWithTask = (task: TaskInfo, history: TaskInfo[] = []): PodTransitionRuleStatus => ({
  ruleStates: [{ name: 'w', webhookStatus: { taskStates: [task], ...(history.length ? { history } : {}) } }],
});
const pollResult = (fields: Partial<PollResult>): PollResult => ({
  count: 1,
  stopped: false,
  timedOut: false,
  approveAll: false,
  approved: new Set(),
  lastMessage: 'working',
  lastQueryTime: NOW + 5n * SECOND,
  ...fields,
});
const TASK: TaskInfo = { taskId: 'tk', processing: ['a', 'b', 'c'], beginTime: '2024-06-04T12:58:05Z', message: 'accepted' };

describe('webhook rule: the first request', () => {
  test('without an answer the evaluation asks for the call: exact request, pods held', () => {
    const rule = webhookRule({ parameters: [{ key: 'podIP', valueFrom: { fieldRef: { fieldPath: 'status.podIP' } } }] }, { stage: 'PreCheck' });
    const evaluation = run({ rule });
    assert.equal(evaluation.calls.length, 1);
    const call = evaluation.calls[0]!;
    assert.deepEqual(
      { stage: call.stage, ruleIndex: call.ruleIndex, ruleKey: call.ruleKey, url: call.url, caBundle: call.caBundle, pods: call.pods },
      { stage: 'PreCheck', ruleIndex: 0, ruleKey: KEY, url: 'http://rules.test/check', caBundle: '', pods: ['a', 'b', 'c'] },
    );
    assert.deepEqual(call.request, {
      traceId: 't1',
      ruleName: 'w',
      stage: 'PreCheck',
      resources: ['a', 'b', 'c'].map((name) => ({ apiVersion: 'core/v1', kind: 'Pod', name, parameters: { podIP: '' } })),
    });
    assert.equal(reasons(evaluation).a, `Waiting for webhook ${KEY} response, traceId t1`);
  });

  test('success: every requested pod passes, finishedNames ignored; the answer is used up', () => {
    const evaluation = run({ outcome: response({ success: true, finishedNames: ['a'] }) });
    assert.deepEqual(reasons(evaluation), { a: 'passed', b: 'passed', c: 'passed' });
    assert.deepEqual(evaluation.calls, []);
    assert.deepEqual(evaluation.keptAnswers, []);
    assert.deepEqual(evaluation.status.ruleStates, [{ name: 'w', webhookStatus: {} }]);
    assert.equal(evaluation.requeue, false);
  });

  test('failure: every pod rejected, evaluated again after 5 s', () => {
    const evaluation = run({ outcome: response({ success: false, message: 'not now' }) });
    const reason = `Webhook check ${KEY} rejected, traceId t1, taskId , msg: not now`;
    assert.deepEqual(reasons(evaluation), { a: reason, b: reason, c: reason });
    assert.equal(evaluation.requeueAfterMs, 5000);
    assert.equal(evaluation.requeue, false);
    assert.deepEqual(evaluation.keptAnswers, [0]);
    assert.deepEqual(evaluation.waiting, []);
  });

  test('a rejection stands for 5 s after the answer: the same reasons and no request; then every pod is asked again', () => {
    const rejected = { ...response({ success: false, message: 'not now' }), answeredAt: NOW };
    const within = run({ outcome: rejected, now: NOW + 3n * SECOND });
    assert.equal(reasons(within).a, `Webhook check ${KEY} rejected, traceId t1, taskId , msg: not now`);
    assert.deepEqual(within.calls, []);
    assert.equal(within.requeueAfterMs, 2000);
    assert.deepEqual(within.keptAnswers, [0]);
    const due = run({ outcome: rejected, now: NOW + 5n * SECOND });
    assert.deepEqual(due.calls[0]?.pods, ['a', 'b', 'c']);
    assert.deepEqual(due.keptAnswers, []);
    assert.equal(reasons(due).a, `Waiting for webhook ${KEY} response, traceId t1`);
  });

  test('a rejection with pods that were not asked: one new request for all of them at once', () => {
    const evaluation = run({ outcome: { ...response({ success: false }), pods: ['a', 'b'], answeredAt: NOW } });
    assert.deepEqual(evaluation.calls[0]?.pods, ['a', 'b', 'c']);
    assert.deepEqual(evaluation.keptAnswers, []);
  });

  test('partial: success false with finishedNames passes those; names outside the request are ignored', () => {
    const evaluation = run({ outcome: response({ success: false, message: 'partial', finishedNames: ['a', 'b', 'zz'] }) });
    assert.deepEqual(reasons(evaluation), { a: 'passed', b: 'passed', c: `Webhook check ${KEY} rejected, traceId t1, taskId , msg: partial` });
  });

  test('a pod that passed the rule before is not asked again', () => {
    const status: PodTransitionRuleStatus = { details: [{ name: 'a', stage: 'PreCheck', passed: true, passedRules: ['w'] }] };
    const evaluation = run({ status });
    assert.deepEqual(evaluation.calls[0]?.pods, ['b', 'c']);
    assert.equal(reasons(evaluation).a, 'passed');
  });

  test('a parameter that cannot be read: no call, every pod rejected, an error', () => {
    const evaluation = run({ rule: webhookRule({ parameters: [{ key: 'ip' }] }) });
    const reason = `Fail to do webhook request ${KEY}, ${KEY} failed to parse parameter, unexpected empty parameter ip, traceId t1`;
    assert.deepEqual(evaluation.calls, []);
    assert.deepEqual(reasons(evaluation), { a: reason, b: reason, c: reason });
    assert.equal(evaluation.requeue, true);
  });

  test('an answer decides the pods it asked about; pods added since are asked in a new request', () => {
    const evaluation = run({ outcome: { ...response({ success: true }), pods: ['a', 'gone'] } });
    assert.equal(reasons(evaluation).a, 'passed');
    assert.deepEqual(evaluation.calls[0]?.pods, ['b', 'c']);
    assert.equal(reasons(evaluation).b, `Waiting for webhook ${KEY} response, traceId t1`);
    assert.deepEqual(evaluation.keptAnswers, []);
  });

  test('a request in flight: its pods wait under its trace ID, later pods wait to be asked, nothing new is sent', () => {
    const evaluation = run({ outcome: { traceId: 'in-flight', pods: ['a', 'b'], pending: true } });
    assert.deepEqual(reasons(evaluation), {
      a: `Waiting for webhook ${KEY} response, traceId in-flight`,
      b: `Waiting for webhook ${KEY} response, traceId in-flight`,
      c: `Waiting for webhook ${KEY} to answer traceId in-flight before asking`,
    });
    assert.deepEqual(evaluation.calls, []);
    assert.deepEqual(evaluation.waiting.map((w) => w.pod), ['a', 'b', 'c']);
    assert.equal(evaluation.requeue, false);
    assert.equal(evaluation.requeueAfterMs, undefined);
  });
});

describe('webhook rule: failed calls and failurePolicy', () => {
  const failed: WebhookCallOutcome = { traceId: 't1', pods: ['a', 'b', 'c'], error: 'connect ECONNREFUSED 127.0.0.1:9' };

  test('Fail (the default): every pod rejected with the error, an error; the failure stands for 5 s', () => {
    const evaluation = run({ outcome: { ...failed, answeredAt: NOW - SECOND } });
    const reason = `Fail to do webhook request ${KEY}, connect ECONNREFUSED 127.0.0.1:9, traceId t1`;
    assert.deepEqual(reasons(evaluation), { a: reason, b: reason, c: reason });
    assert.deepEqual(evaluation.errors, [{ stage: 'PreCheck', rule: 'w', message: reason }]);
    assert.deepEqual(evaluation.ignored, []);
    assert.equal(evaluation.requeueAfterMs, 4000);
    assert.deepEqual(evaluation.keptAnswers, [0]);
    assert.deepEqual(run({ outcome: { ...failed, answeredAt: NOW - 5n * SECOND } }).calls[0]?.pods, ['a', 'b', 'c']);
  });

  test('Ignore: the pods pass and the evaluation reports what was ignored', () => {
    const evaluation = run({ rule: webhookRule({ failurePolicy: 'Ignore' }), outcome: failed });
    assert.deepEqual(reasons(evaluation), { a: 'passed', b: 'passed', c: 'passed' });
    assert.deepEqual(evaluation.ignored, [{ stage: 'PreCheck', rule: 'w', pods: ['a', 'b', 'c'], error: 'connect ECONNREFUSED 127.0.0.1:9' }]);
    assert.equal(evaluation.requeue, false);
    assert.deepEqual(evaluation.keptAnswers, [], 'the passes are in status now: the answer is used up');
  });

  test('a polling answer without task ID is a bad response: rejected (Fail) or ignored (Ignore)', () => {
    const bad = response({ poll: true, message: 'ok' });
    assert.equal(reasons(run({ outcome: bad })).a, 'Invalid empty taskID, request trace t1');
    assert.equal(run({ outcome: bad }).requeue, true);
    assert.equal(reasons(run({ rule: webhookRule({ failurePolicy: 'Ignore' }), outcome: bad })).a, 'passed');
  });

  test('a polling answer for a rule without poll configuration', () => {
    const evaluation = run({ rule: { name: 'w', webhook: { clientConfig: { url: 'http://rules.test/check' } } }, outcome: response({ poll: true, taskId: 'tk' }) });
    assert.equal(reasons(evaluation).a, `Fail to get ${KEY} polling config , null polling config in rule ${KEY}`);
    assert.equal(evaluation.requeue, true);
  });
});

describe('webhook rule: poll tasks', () => {
  test('a polling answer starts a task: finished pods pass, the rest wait for polls', () => {
    const evaluation = run({ outcome: response({ poll: true, taskId: 'tk', message: 'accepted', finishedNames: ['a'] }) });
    assert.deepEqual(reasons(evaluation), {
      a: 'passed',
      b: `Polling task ${KEY} initialized, will polling by taskId tk, msg: accepted`,
      c: `Polling task ${KEY} initialized, will polling by taskId tk, msg: accepted`,
    });
    assert.deepEqual(evaluation.startPolls, [
      { namespace: 'default', name: 'ptr', rule: 'w', taskId: 'tk', url: 'http://rules.test/fetch?task-id=tk', caBundle: '', intervalSeconds: 5, timeoutSeconds: 60 },
    ]);
    assert.deepEqual(webhookStatus(evaluation), {
      taskStates: [{ taskId: 'tk', processing: ['b', 'c'], approved: ['a'], beginTime: '2024-06-04T12:58:05Z', message: 'accepted' }],
    });
    assert.equal(evaluation.requeueAfterMs, undefined);
    assert.deepEqual(evaluation.keptAnswers, []);
  });

  test('async with the trace ID as task and rawQueryKey trace-id', () => {
    const rule = webhookRule({ clientConfig: { url: 'http://rules.test/check', poll: { ...POLL, rawQueryKey: 'trace-id' } } });
    const evaluation = run({ rule, outcome: response({ async: true, traceId: 'srv-trace' }) });
    assert.equal(evaluation.startPolls[0]?.url, 'http://rules.test/fetch?trace-id=srv-trace');
    assert.equal(webhookStatus(evaluation)?.taskStates?.[0]?.taskId, 'srv-trace');
  });

  test('a running task: approved pods pass, the others wait; the task state follows the polls', () => {
    const evaluation = run({ status: statusWithTask(TASK), polls: { tk: pollResult({ approved: new Set(['a']), lastMessage: 'server: success size 1' }) } });
    const waiting = `Not approved by webhook ${KEY}, polling task tk is running server: success size 1 `;
    assert.deepEqual(reasons(evaluation), { a: 'passed', b: waiting, c: waiting });
    assert.deepEqual(evaluation.calls, []);
    assert.deepEqual(webhookStatus(evaluation), {
      taskStates: [{ taskId: 'tk', processing: ['b', 'c'], approved: ['a'], beginTime: '2024-06-04T12:58:05Z', lastTime: '2024-06-04T12:58:10Z', message: 'server: success size 1' }],
    });
  });

  test('a running task whose last poll failed says so (Fail)', () => {
    const evaluation = run({ status: statusWithTask(TASK), polls: { tk: pollResult({ lastError: 'failed by response status code: 500, body: oops' }) } });
    assert.equal(reasons(evaluation).a, `Not approved by webhook ${KEY}, polling task tk is running working polling task tk error, failed by response status code: 500, body: oops`);
  });

  test('approve-all: every pod of the task passes, the task goes to history and is forgotten', () => {
    const evaluation = run({ status: statusWithTask(TASK), polls: { tk: pollResult({ approveAll: true, stopped: true, lastMessage: 'success' }) } });
    assert.deepEqual(reasons(evaluation), { a: 'passed', b: 'passed', c: 'passed' });
    assert.deepEqual(webhookStatus(evaluation), {
      history: [{ taskId: 'tk', approved: ['a', 'b', 'c'], beginTime: '2024-06-04T12:58:05Z', lastTime: '2024-06-04T12:58:10Z', message: 'success' }],
    });
    assert.deepEqual(evaluation.forgetPolls, [{ ruleKey: KEY, taskId: 'tk' }]);
  });

  test('stopped: approved pods pass, the others are asked again in a new first request; history keeps the unapproved as processing', () => {
    const evaluation = run({ status: statusWithTask(TASK), polls: { tk: pollResult({ stopped: true, approved: new Set(['a']), lastMessage: 'fail' }) } });
    assert.deepEqual(evaluation.calls[0]?.pods, ['b', 'c']);
    assert.equal(reasons(evaluation).a, 'passed');
    assert.deepEqual(webhookStatus(evaluation)?.history, [
      { taskId: 'tk', processing: ['b', 'c'], approved: ['a'], beginTime: '2024-06-04T12:58:05Z', lastTime: '2024-06-04T12:58:10Z', message: 'fail' },
    ]);
    assert.deepEqual(evaluation.forgetPolls, [{ ruleKey: KEY, taskId: 'tk' }]);
    // Once answered, the stop reason is replaced by the new request's outcome.
    const answered = run({ status: statusWithTask(TASK), polls: { tk: pollResult({ stopped: true, approved: new Set(['a']), lastMessage: 'fail' }) }, outcome: { ...response({ success: false, message: 'again no' }), pods: ['b', 'c'] } });
    assert.equal(reasons(answered).b, `Webhook check ${KEY} rejected, traceId t1, taskId , msg: again no`);
  });

  test('timed out: Fail asks again; Ignore lets the unapproved pods pass and reports it', () => {
    const timedOut = pollResult({ stopped: true, timedOut: true, approved: new Set(['a']), lastMessage: 'Polling Timeout. working' });
    assert.deepEqual(run({ status: statusWithTask(TASK), polls: { tk: timedOut } }).calls[0]?.pods, ['b', 'c']);
    const ignoring = run({ rule: webhookRule({ failurePolicy: 'Ignore' }), status: statusWithTask(TASK), polls: { tk: timedOut } });
    assert.deepEqual(reasons(ignoring), { a: 'passed', b: 'passed', c: 'passed' });
    assert.deepEqual(ignoring.ignored, [{ stage: 'PreCheck', rule: 'w', pods: ['b', 'c'], error: 'Polling Timeout. working' }]);
    assert.equal(webhookStatus(ignoring)?.history?.[0]?.message, 'ignored by failurePolicy Ignore: Polling Timeout. working');
  });

  test('a failed poll under Ignore lets the pods pass at once', () => {
    const evaluation = run({ rule: webhookRule({ failurePolicy: 'Ignore' }), status: statusWithTask(TASK), polls: { tk: pollResult({ lastError: 'request timed out after 30000ms' }) } });
    assert.deepEqual(reasons(evaluation), { a: 'passed', b: 'passed', c: 'passed' });
    assert.deepEqual(evaluation.ignored[0]?.error, 'request timed out after 30000ms');
  });

  test('restart: a task in status without a result is polled again and its pods wait', () => {
    const evaluation = run({ status: statusWithTask(TASK) });
    const reason = `Task ${KEY} polling result not found, try polling again, tk`;
    assert.deepEqual(reasons(evaluation), { a: reason, b: reason, c: reason });
    assert.deepEqual(evaluation.calls, []);
    assert.deepEqual(evaluation.startPolls.map((s) => [s.taskId, s.url]), [['tk', 'http://rules.test/fetch?task-id=tk']]);
    assert.deepEqual(webhookStatus(evaluation)?.taskStates, [TASK]);
  });

  test('a task whose pods all left the stage goes to history and is forgotten', () => {
    const evaluation = run({ status: statusWithTask({ ...TASK, processing: ['gone'] }), pods: [] });
    assert.deepEqual(webhookStatus(evaluation), { history: [{ ...TASK, processing: ['gone'] }] });
    assert.deepEqual(evaluation.forgetPolls, [{ ruleKey: KEY, taskId: 'tk' }]);
  });

  test('history keeps entries polled within the last 10 minutes', () => {
    const old = (id: string, lastTime?: string): TaskInfo => ({ taskId: id, ...(lastTime ? { lastTime } : {}) });
    const status: PodTransitionRuleStatus = {
      ruleStates: [{ name: 'w', webhookStatus: { history: [old('recent', '2024-06-04T12:48:06Z'), old('expired', '2024-06-04T12:48:05Z'), old('never')] } }],
    };
    const evaluation = run({ status, pods: [] });
    assert.deepEqual(webhookStatus(evaluation)?.history?.map((t) => t.taskId), ['recent']);
  });
});
