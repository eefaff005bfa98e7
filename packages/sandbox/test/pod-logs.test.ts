// pods/log: what the simulated containers print (echo and printf in `sh -c` scripts), served as
// kube-apiserver serves it after asking the node's kubelet: text/plain, the options (container,
// previous, timestamps, tailLines, limitBytes, sinceSeconds, follow), and the real errors; through
// raw HTTP and kubectl (`logs pod/x`, `logs job/x`, `logs -f`).

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { BatchV1Api, CoreV1Api, type V1Container, type V1Job, type V1Pod, type V1PodSpec } from '@kubernetes/client-node';
import { eventually, skipWithoutKubectl, startHarness, type Harness } from './harness.ts';

let h: Harness;
let slow: Harness;
let core: CoreV1Api;
const ns = 'logs';
const sleepScale = 0.05;

before(async () => {
  [h, slow] = await Promise.all([
    startHarness({ simulation: { nodes: 1, kubelet: { startDelayMs: 0, gracePeriodCapMs: 200, sleepScale, restartBackOffMs: 30 } } }),
    // Containers that never get to start: their status stays `ContainerCreating`.
    startHarness({ simulation: { nodes: 1, controllers: false, kubelet: { startDelayMs: 600_000 } } }),
  ]);
  core = h.kc.makeApiClient(CoreV1Api);
  await core.createNamespace({ body: { metadata: { name: ns } } });
  await slow.kc.makeApiClient(CoreV1Api).createNamespace({ body: { metadata: { name: ns } } });
});
after(() => Promise.all([h.stop(), slow.stop()]));

const pod = (name: string, containers: V1Container[], extra: Partial<V1PodSpec> = {}): V1Pod => ({ metadata: { name }, spec: { restartPolicy: 'Never', containers, ...extra } });
const script = (name: string, text: string): V1Container => ({ name, image: 'busybox', command: ['sh', '-c', text] });
const logs = (name: string, query = '') => h.http('GET', `/api/v1/namespaces/${ns}/pods/${name}/log${query}`);
const phase = (name: string, wanted: string) =>
  eventually(async () => ((await core.readNamespacedPod({ name, namespace: ns })).status?.phase === wanted ? true : undefined));

const badRequest = (message: string) => ({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason: 'BadRequest', code: 400 });

describe('pods/log over HTTP', () => {
  before(async () => {
    await core.createNamespacedPod({
      namespace: ns,
      body: pod('done', [script('c', `echo "hello, world"; printf '%s=%d\\n' a 1 b 2; echo -n "no newline"`)]),
    });
    await phase('done', 'Succeeded');
  });

  test('a finished container: what it printed, as text/plain; a last line without newline as it was', async () => {
    const res = await logs('done');
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'text/plain');
    assert.equal(res.text, 'hello, world\na=1\nb=2\nno newline');
  });

  test('timestamps, tailLines, limitBytes, sinceSeconds and sinceTime', async () => {
    const stamped = (await logs('done', '?timestamps=true')).text.split('\n');
    assert.equal(stamped.length, 4);
    for (const line of stamped) assert.match(line, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{9}Z /);
    assert.deepEqual(stamped.map((l) => l.slice(31)), ['hello, world', 'a=1', 'b=2', 'no newline']);
    assert.equal((await logs('done', '?tailLines=2')).text, 'b=2\nno newline');
    assert.equal((await logs('done', '?tailLines=0')).text, '');
    assert.equal((await logs('done', '?limitBytes=8')).text, 'hello, w');
    assert.equal((await logs('done', '?sinceSeconds=3600')).text, 'hello, world\na=1\nb=2\nno newline');
    assert.equal((await logs('done', `?sinceTime=${new Date(Date.now() + 3_600_000).toISOString().replace(/\.\d+Z$/, 'Z')}`)).text, '');
  });

  test('PodLogOptions that do not convert are 400, invalid ones 422 with the real messages', async () => {
    const notNumber = await logs('done', '?tailLines=ten');
    assert.equal(notNumber.status, 400);
    assert.deepEqual(notNumber.json, badRequest('strconv.ParseInt: parsing "ten": invalid syntax'));
    const negative = await logs('done', '?tailLines=-1&limitBytes=0');
    assert.equal(negative.status, 422);
    assert.equal(negative.json.message, 'PodLogOptions "done" is invalid: [tailLines: Invalid value: -1: must be greater than or equal to 0, limitBytes: Invalid value: 0: must be greater than 0]');
    assert.deepEqual(negative.json.details, {
      name: 'done',
      kind: 'PodLogOptions',
      causes: [
        { reason: 'FieldValueInvalid', message: 'Invalid value: -1: must be greater than or equal to 0', field: 'tailLines' },
        { reason: 'FieldValueInvalid', message: 'Invalid value: 0: must be greater than 0', field: 'limitBytes' },
      ],
    });
    const both = await logs('done', '?sinceSeconds=1&sinceTime=2024-01-01T00:00:00Z');
    assert.equal(both.json.message, 'PodLogOptions "done" is invalid: : Forbidden: at most one of `sinceTime` or `sinceSeconds` may be specified');
  });

  test('choosing a container: required among several (init containers listed first), and one that exists', async () => {
    await core.createNamespacedPod({
      namespace: ns,
      body: pod('multi', [script('a', 'echo from-a'), script('b', 'echo from-b')], { initContainers: [script('setup', 'echo init')] }),
    });
    await phase('multi', 'Succeeded');
    const missing = await logs('multi');
    assert.equal(missing.status, 400);
    assert.deepEqual(missing.json, badRequest('a container name must be specified for pod multi, choose one of: [setup a b]'));
    assert.deepEqual((await logs('multi', '?container=nope')).json, badRequest('container nope is not valid for pod multi'));
    assert.equal((await logs('multi', '?container=b')).text, 'from-b\n');
    assert.equal((await logs('multi', '?container=setup')).text, 'init\n');
    assert.deepEqual((await logs('missing')).json.details, { name: 'missing', kind: 'pods' });
  });

  test('previous: the run before the restart, or the kubelet\'s 400 when there is none', async () => {
    await core.createNamespacedPod({ namespace: ns, body: pod('crashing', [script('c', 'echo "run at $HOSTNAME"; sleep 1; exit 1')], { restartPolicy: 'OnFailure' }) });
    await eventually(async () => {
      const status = (await core.readNamespacedPod({ name: 'crashing', namespace: ns })).status?.containerStatuses?.[0];
      return (status?.restartCount ?? 0) >= 1 && status?.lastState?.terminated ? true : undefined;
    });
    assert.equal((await logs('crashing', '?previous=true')).text, 'run at crashing\n');
    assert.deepEqual((await logs('done', '?previous=true')).json, badRequest('previous terminated container "c" in pod "done" not found'));
  });

  test('follow: lines as they are written, until the container ends', async () => {
    await core.createNamespacedPod({ namespace: ns, body: pod('talker', [script('c', 'echo one; sleep 4; echo two; sleep 4; echo three')]) });
    await phase('talker', 'Running');
    const started = Date.now();
    const res = await fetch(`${h.sandbox.url}/api/v1/namespaces/${ns}/pods/talker/log?follow=true`);
    assert.equal(res.headers.get('transfer-encoding'), 'chunked');
    const chunks: { at: number; text: string }[] = [];
    const decoder = new TextDecoder();
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) chunks.push({ at: Date.now() - started, text: decoder.decode(chunk) });
    assert.equal(chunks.map((c) => c.text).join(''), 'one\ntwo\nthree\n');
    // `three` comes about 4 s × sleepScale after `two`, so after the first chunk, not at once (measured from the first
    // chunk: on a loaded machine the follow may begin after `two` was written).
    const three = chunks.find((c) => c.text.includes('three'));
    assert.ok(three && three.at - chunks[0]!.at >= 4000 * sleepScale * 0.5, `three arrived ${three ? three.at - chunks[0]!.at : '?'} ms after the first chunk`);
  });

  test('a pod on no node has no log location (204); a waiting container is the kubelet\'s 400', async () => {
    await core.createNamespacedPod({ namespace: ns, body: pod('nowhere', [script('c', 'echo x')], { nodeSelector: { absent: 'label' } }) });
    const unscheduled = await logs('nowhere');
    assert.equal(unscheduled.status, 204);
    assert.equal(unscheduled.text, '');
    await slow.kc.makeApiClient(CoreV1Api).createNamespacedPod({ namespace: ns, body: pod('waiting', [script('c', 'echo x')]) });
    const waiting = await eventually(async () => {
      const res = await slow.http('GET', `/api/v1/namespaces/${ns}/pods/waiting/log`);
      return res.status === 400 ? res : undefined;
    });
    assert.deepEqual(waiting.json, badRequest('container "c" in pod "waiting" is waiting to start: ContainerCreating'));
  });

  test('Accept: a route that produces text/plain takes it; text/html is the route\'s 406', async () => {
    assert.equal((await h.http('GET', `/api/v1/namespaces/${ns}/pods/done/log`, undefined, { Accept: 'text/plain' })).status, 200);
    assert.equal((await h.http('GET', `/api/v1/namespaces/${ns}/pods/done/log`, undefined, { Accept: 'text/html' })).status, 406);
    assert.equal((await h.http('POST', `/api/v1/namespaces/${ns}/pods/done/log`, {})).status, 405);
  });
});

describe('kubectl logs', { skip: skipWithoutKubectl }, () => {
  test('logs pod/x, logs job/x (the Job\'s pod) and logs -f', async () => {
    const pods = await h.kubectl(['logs', '-n', ns, 'pod/done']);
    assert.equal(pods.code, 0, pods.stderr);
    assert.equal(pods.stdout, 'hello, world\na=1\nb=2\nno newline');
    const hook = { ...script('hook', 'echo "hook ran for $JOB"; exit 0'), env: [{ name: 'JOB', value: 'rollout' }] };
    const job: V1Job = { metadata: { name: 'hook' }, spec: { template: { spec: { restartPolicy: 'Never', containers: [hook] } } } };
    await h.kc.makeApiClient(BatchV1Api).createNamespacedJob({ namespace: ns, body: job });
    const fromJob = await eventually(async () => {
      const res = await h.kubectl(['logs', '-n', ns, 'job/hook']);
      return res.code === 0 && res.stdout ? res : undefined;
    }, 15_000);
    assert.equal(fromJob.stdout, 'hook ran for rollout\n');
    await core.createNamespacedPod({ namespace: ns, body: pod('follow', [script('c', 'echo start; sleep 2; echo end')]) });
    await phase('follow', 'Running');
    const followed = await h.kubectl(['logs', '-f', '-n', ns, 'follow']);
    assert.equal(followed.code, 0, followed.stderr);
    assert.equal(followed.stdout, 'start\nend\n');
    const several = await h.kubectl(['logs', '-n', ns, 'multi', '--timestamps', '--tail=1']);
    assert.match(several.stderr, /Defaulted container "a" out of: a, b, setup \(init\)/);
    assert.match(several.stdout, /^\d{4}-\d\d-\d\dT[\d:.]{18}Z from-a\n$/);
  });
});
