// podops' recent events as the dashboard lists them: newest first, at most a hundred.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { RECENT_EVENTS, recentEvents, type KubeEvent } from './events.ts';

const event = (name: string, last: string | undefined, reason = 'ServiceReady'): KubeEvent => ({
  metadata: { name, namespace: 'demo' },
  involvedObject: { kind: 'Pod', name: 'web-a', namespace: 'demo' },
  type: 'Normal',
  reason,
  message: 'the service-ready gate is True',
  count: 2,
  ...(last !== undefined && { lastTimestamp: last }),
});

test('newest first, with the object, reason, message and count; events without a time last', () => {
  const views = recentEvents([event('a', '2026-01-01T10:00:00Z'), event('b', undefined), event('c', '2026-01-01T10:05:00Z', 'TransitionRejected')]);
  assert.deepEqual(
    views.map((v) => [v.key, v.reason, v.last]),
    [
      ['demo/c', 'TransitionRejected', Date.parse('2026-01-01T10:05:00Z')],
      ['demo/a', 'ServiceReady', Date.parse('2026-01-01T10:00:00Z')],
      ['demo/b', 'ServiceReady', undefined],
    ],
  );
  assert.deepEqual([views[0]?.object, views[0]?.count, views[0]?.message], ['Pod/web-a', 2, 'the service-ready gate is True']);
});

test(`at most ${RECENT_EVENTS}`, () => {
  const many = Array.from({ length: RECENT_EVENTS + 20 }, (_, i) => event(`e${i}`, new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString()));
  const views = recentEvents(many);
  assert.equal(views.length, RECENT_EVENTS);
  assert.equal(views[0]?.key, `demo/e${RECENT_EVENTS + 19}`);
});
