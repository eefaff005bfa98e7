import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../meta/object.ts';
import { eventPrinter, podPrinter, servicePrinter } from './core-printers.ts';

const now = Date.parse('2026-01-01T00:10:00Z');
const pod = (extra: Partial<KubeObject>): KubeObject => ({
  metadata: { name: 'p', creationTimestamp: '2026-01-01T00:00:00Z', ...(extra.metadata ?? {}) },
  spec: { containers: [{ name: 'a' }, { name: 'b' }], ...((extra.spec as object) ?? {}) },
  status: extra.status ?? { phase: 'Pending' },
});

test('pod rows: ready count, status reasons, restarts with the last restart, wide cells', () => {
  assert.deepEqual(podPrinter.cells(pod({}), now), ['p', '0/2', 'Pending', '0', '10m', '<none>', '<none>', '<none>', '<none>']);
  const running = pod({
    spec: { nodeName: 'n1', readinessGates: [{ conditionType: 'x/ready' }] },
    status: {
      phase: 'Running',
      podIP: '10.0.0.1',
      conditions: [{ type: 'x/ready', status: 'True' }],
      containerStatuses: [
        { name: 'a', ready: true, restartCount: 2, state: { running: {} }, lastState: { terminated: { finishedAt: '2026-01-01T00:09:00Z' } } },
        { name: 'b', ready: false, restartCount: 0, state: { waiting: { reason: 'CrashLoopBackOff' } } },
      ],
    },
  });
  assert.deepEqual(podPrinter.cells(running, now), ['p', '1/2', 'CrashLoopBackOff', '2 (60s ago)', '10m', '10.0.0.1', 'n1', '<none>', '1/1']);
  const terminating = pod({ metadata: { name: 'p', creationTimestamp: '2026-01-01T00:00:00Z', deletionTimestamp: '2026-01-01T00:10:30Z' } });
  assert.equal(podPrinter.cells(terminating, now)[2], 'Terminating');
  const init = pod({ spec: { initContainers: [{ name: 'i' }] }, status: { phase: 'Pending', initContainerStatuses: [{ name: 'i', state: { waiting: { reason: 'PodInitializing' } } }] } });
  assert.equal(podPrinter.cells(init, now)[2], 'Init:0/1');
});

test('service rows: ports with node ports, external IPs per type', () => {
  const svc: KubeObject = {
    metadata: { name: 's', creationTimestamp: '2026-01-01T00:09:00Z' },
    spec: { type: 'NodePort', clusterIP: '10.96.0.5', ports: [{ port: 80, nodePort: 30080, protocol: 'TCP' }], selector: { b: '2', a: '1' } },
  };
  assert.deepEqual(servicePrinter.cells(svc, now), ['s', 'NodePort', '10.96.0.5', '<none>', '80:30080/TCP', '60s', 'a=1,b=2']);
});

test('event rows: object as kind/name, count defaulting to 1', () => {
  const ev: KubeObject = {
    metadata: { name: 'e' },
    involvedObject: { kind: 'Pod', name: 'p' },
    reason: 'Started',
    message: ' hi ',
    type: 'Normal',
    firstTimestamp: '2026-01-01T00:09:00Z',
    source: { component: 'kubelet', host: 'n1' },
  };
  assert.deepEqual(eventPrinter.cells(ev, now), ['60s', 'Normal', 'Started', 'pod/p', '', 'kubelet, n1', 'hi', '60s', 1, 'e']);
});
