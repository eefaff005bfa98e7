// The webhook-rule wire format: request bodies, poll URLs, response parsing.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Pod } from '../api/kube.ts';
import type { TransitionRule } from '../api/podtransitionrule.ts';
import { effectivePoll } from './defaults.ts';
import { stagePod } from './fixtures.test-support.ts';
import { ParameterError } from './parameters.ts';
import { buildWebhookRequest, parsePollResponse, parseWebhookResponse, pollUrl, ResponseError, responseTaskId } from './wire.ts';

const pods = new Map<string, Pod>([
  ['web-a', stagePod('web-a', { podIP: '1.1.1.58', annotations: { 'test.io/context': 'ctx-a' } })],
  ['web-b', stagePod('web-b', { podIP: '1.1.1.59' })],
]);

describe('buildWebhookRequest', () => {
  test('exact body: traceId, ruleName, explicit stage, core/v1 Pod resources with sorted parameters', () => {
    const rule: TransitionRule = {
      name: 'webhookCheck',
      stage: 'PostCheck',
      webhook: {
        clientConfig: { url: 'http://x' },
        parameters: [
          { key: 'podIP', valueFrom: { fieldRef: { fieldPath: 'status.podIP' } } },
          { key: 'context', valueFrom: { fieldRef: { fieldPath: "metadata.annotations['test.io/context']" } } },
        ],
      },
    };
    const request = buildWebhookRequest(rule, 'default/ptr/webhookCheck', ['web-a', 'web-b'], pods, 'trace-1');
    assert.equal(
      JSON.stringify(request),
      '{"traceId":"trace-1","ruleName":"webhookCheck","stage":"PostCheck","resources":[' +
        '{"apiVersion":"core/v1","kind":"Pod","name":"web-a","parameters":{"context":"ctx-a","podIP":"1.1.1.58"}},' +
        '{"apiVersion":"core/v1","kind":"Pod","name":"web-b","parameters":{"context":"","podIP":"1.1.1.59"}}]}',
    );
  });

  test('a parameter named __proto__ is sent like any other', () => {
    const rule: TransitionRule = { name: 'w', webhook: { clientConfig: { url: 'http://x' }, parameters: [{ key: '__proto__', valueFrom: { fieldRef: { fieldPath: 'status.podIP' } } }] } };
    const request = buildWebhookRequest(rule, 'default/ptr/w', ['web-a'], pods, 't');
    assert.equal(JSON.stringify(request.resources[0]?.parameters), '{"__proto__":"1.1.1.58"}');
  });

  test('no explicit stage and no parameters: both omitted', () => {
    const request = buildWebhookRequest({ name: 'w', webhook: {} }, 'default/ptr/w', ['web-a'], pods, 't');
    assert.equal(JSON.stringify(request), '{"traceId":"t","ruleName":"w","resources":[{"apiVersion":"core/v1","kind":"Pod","name":"web-a"}]}');
  });

  test('a parameter that cannot be read fails the whole request, naming the rule', () => {
    const rule: TransitionRule = { name: 'w', webhook: { parameters: [{ key: 'ip' }] } };
    assert.throws(
      () => buildWebhookRequest(rule, 'default/ptr/w', ['web-a'], pods, 't'),
      (err: unknown) => err instanceof ParameterError && err.message === 'default/ptr/w failed to parse parameter, unexpected empty parameter ip',
    );
  });
});

describe('pollUrl', () => {
  const poll = (url: string, rawQueryKey = '') => effectivePoll({ url, rawQueryKey })!;
  test('task-id by default, rawQueryKey when set', () => {
    assert.equal(pollUrl(poll('http://h:1/fetch'), 'abc'), 'http://h:1/fetch?task-id=abc');
    assert.equal(pollUrl(poll('http://h:1/fetch', 'trace-id'), 'abc'), 'http://h:1/fetch?trace-id=abc');
  });
  test('an existing query is kept; the task ID is URL-encoded', () => {
    assert.equal(pollUrl(poll('http://h/fetch?tenant=a'), 'a b&c'), 'http://h/fetch?tenant=a&task-id=a%20b%26c');
  });
});

describe('response parsing', () => {
  test('missing fields take Go zero values; unknown fields are ignored', () => {
    assert.deepEqual(parseWebhookResponse({ success: true, extra: 1 }), { success: true, message: '', poll: false, async: false, traceId: '', taskId: '' });
    assert.deepEqual(parsePollResponse({ finished: true, finishedNames: ['a'], message: null }), { success: false, message: '', finished: true, finishedNames: ['a'], stop: false });
  });

  test('wrong shapes are clear errors', () => {
    const refuses = (parse: () => unknown, message: string) => assert.throws(parse, (err: unknown) => err instanceof ResponseError && err.message === message);
    refuses(() => parseWebhookResponse([]), 'the response must be a JSON object');
    refuses(() => parseWebhookResponse({ success: 'true' }), '"success" must be a boolean');
    refuses(() => parseWebhookResponse({ finishedNames: ['a', 1] }), '"finishedNames" must be a list of strings');
    refuses(() => parsePollResponse({ stop: 1 }), '"stop" must be a boolean');
  });

  test('the task ID: taskId, else traceId (async servers), only when polling', () => {
    const base = parseWebhookResponse({ success: true, traceId: 'tr', taskId: '' });
    assert.equal(responseTaskId(base), '');
    assert.equal(responseTaskId({ ...base, async: true }), 'tr');
    assert.equal(responseTaskId({ ...base, poll: true, taskId: 'tk' }), 'tk');
  });
});
