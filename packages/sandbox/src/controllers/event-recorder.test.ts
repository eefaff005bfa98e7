import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startSandbox, type Sandbox } from '../index.ts';
import { EventRecorder } from './event-recorder.ts';

let sandbox: Sandbox;
let now = Date.parse('2026-01-01T00:00:00Z');
before(async () => {
  sandbox = await startSandbox({ clock: () => now });
});
after(() => sandbox.stop());

const owner = { apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { name: 'db', namespace: 'default', uid: 'u-1', resourceVersion: '7' } };
const events = async (): Promise<Record<string, unknown>[]> =>
  (await sandbox.client().list({ group: '', version: 'v1', resource: 'events' }, { namespace: 'default' })).items as Record<string, unknown>[];
const settle = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 50));

test('an event as the legacy recorder writes it; a repeat raises count and lastTimestamp of the first', async () => {
  const recorder = new EventRecorder(sandbox.client(), 'statefulset-controller', () => now);
  recorder.normal(owner, 'SuccessfulCreate', 'create Pod db-0 in StatefulSet db successful');
  now += 2000;
  recorder.normal(owner, 'SuccessfulCreate', 'create Pod db-0 in StatefulSet db successful');
  await settle();
  const [event, ...rest] = await events();
  assert.equal(rest.length, 0);
  assert.match(String((event?.metadata as { name: string }).name), /^db\.[0-9a-f]+$/);
  assert.deepEqual(
    { ...event, metadata: undefined },
    {
      kind: 'Event',
      apiVersion: 'v1',
      metadata: undefined,
      involvedObject: { kind: 'StatefulSet', namespace: 'default', name: 'db', uid: 'u-1', apiVersion: 'apps/v1', resourceVersion: '7' },
      reason: 'SuccessfulCreate',
      message: 'create Pod db-0 in StatefulSet db successful',
      source: { component: 'statefulset-controller' },
      firstTimestamp: '2026-01-01T00:00:00Z',
      lastTimestamp: '2026-01-01T00:00:02Z',
      count: 2,
      type: 'Normal',
      eventTime: null,
      reportingComponent: 'statefulset-controller',
      reportingInstance: '',
    },
  );
});

test('from the 10th distinct message of one reason the messages combine; past 25 events an object is throttled', async () => {
  const recorder = new EventRecorder(sandbox.client(), 'job-controller', () => now);
  const job = { apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'many', namespace: 'default', uid: 'u-2' } };
  for (let i = 0; i < 40; i++) recorder.normal(job, 'SuccessfulCreate', `Created pod: many-${i}`);
  await settle();
  const mine = (await events()).filter((e) => (e.involvedObject as { name: string }).name === 'many');
  assert.equal(mine.length, 10, '9 single events and one combined event');
  const combined = mine.find((e) => String(e.message).startsWith('(combined from similar events): '));
  assert.equal(combined?.count, 25 - 9, 'the 26th and later events were dropped by the spam filter');
  assert.equal(combined?.message, '(combined from similar events): Created pod: many-24');
});
