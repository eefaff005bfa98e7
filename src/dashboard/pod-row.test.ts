// A pod's row on the dashboard's timeline: bars from the label timestamps seen version after version, traffic
// moments, the workload it is grouped under, and the phase and waits of `podops status`.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Pod } from '../api/kube.ts';
import { SERVICE_AVAILABLE_LABEL } from '../api/protocol.ts';
import { explainPod, podWaits } from '../lifecycle/explain.ts';
import { L, PERM, pod } from '../../test/support/pods.ts';
import { HISTORY_RETENTION_MS, MAX_ENDED_TRACKS, observePod, type PodHistory } from './pod-history.ts';
import { podRow, workloadOf } from './pod-row.ts';

const BASE_MS = 1_700_000_000_000;
/** Second `s` of the test as the protocol writes time (Unix nanoseconds), and as the dashboard sends it (ms). */
const stamp = (s: number): string => (BigInt(BASE_MS + s * 1000) * 1_000_000n).toString();
const at = (s: number): number => BASE_MS + s * 1000;

/** One lifecycle `upgrade` of type update, version by version, as the webhook and the controller leave the labels. */
const versions: Record<string, Record<string, string>> = {
  PreCheck: { [L('operating', 'upgrade')]: stamp(0), [L('operation-type', 'upgrade')]: 'update', [L('pre-check', 'upgrade')]: stamp(0) },
  Preparing: { [L('operating', 'upgrade')]: stamp(0), [L('operation-type', 'upgrade')]: 'update', [L('pre-checked', 'upgrade')]: stamp(2), [PERM('update')]: stamp(2), [L('preparing', 'upgrade')]: stamp(2) },
  Operating: { [L('operating', 'upgrade')]: stamp(0), [L('operation-type', 'upgrade')]: 'update', [L('pre-checked', 'upgrade')]: stamp(2), [PERM('update')]: stamp(2), [L('operate', 'upgrade')]: stamp(3) },
  PostCheck: { [L('operated', 'upgrade')]: stamp(5), [L('done-operation-type', 'upgrade')]: 'update', [L('post-check', 'upgrade')]: stamp(5) },
  Completing: { [L('operated', 'upgrade')]: stamp(5), [L('done-operation-type', 'upgrade')]: 'update', [L('post-checked', 'upgrade')]: stamp(6), [L('completing', 'upgrade')]: stamp(6) },
  ServiceAvailable: { [SERVICE_AVAILABLE_LABEL]: stamp(7) },
};

/** Observes the pods in turn, each at the second given; the history and the last row. */
function replay(steps: [Pod, number][], start?: PodHistory) {
  let history = start;
  for (const [each, s] of steps) history = observePod(history, explainPod(each), at(s));
  const last = steps.at(-1)![0];
  return { history: history!, row: podRow(last, explainPod(last), history!) };
}

describe('the timeline of a pod', () => {
  test('a lifecycle seen in every phase is one bar, a segment per phase from its label, ended by service-available', () => {
    const steps = Object.entries(versions).map(([, labels], i): [Pod, number] => [pod({ labels, ready: true, serviceReady: 'True' }), i + 0.5]);
    const { row } = replay(steps);
    assert.deepEqual(row.bars, [
      {
        id: 'upgrade',
        type: 'update',
        segments: [
          { phase: 'PreCheck', from: at(0), to: at(2) },
          { phase: 'Preparing', from: at(2), to: at(3) },
          { phase: 'Operating', from: at(3), to: at(5) },
          { phase: 'PostCheck', from: at(5), to: at(6) },
          { phase: 'Completing', from: at(6), to: at(7) },
        ],
      },
    ]);
    assert.deepEqual(row.traffic, [
      { at: at(2), kind: 'left' },
      { at: at(7), kind: 'entered' },
    ]);
    assert.equal(row.phase, 'ServiceAvailable');
    assert.equal(row.since, at(7));
  });

  test('a lifecycle under way has an open last segment; one first seen late starts where its labels do', () => {
    const { row } = replay([[pod({ labels: versions.PostCheck }), 10]]);
    assert.deepEqual(row.bars, [{ id: 'upgrade', type: 'update', segments: [{ phase: 'PostCheck', from: at(5), to: undefined }] }]);
    assert.deepEqual(row.traffic, [], 'the moment it left traffic was never seen');
    assert.equal(row.phase, 'PostCheck');
    assert.equal(row.since, at(5));
  });

  test('a lifecycle gone without the pod coming back into service (undone) ends when it was seen gone', () => {
    const { row, history } = replay([
      [pod({ labels: versions.Preparing }), 2.5],
      [pod({ labels: {} }), 4],
    ]);
    assert.deepEqual(row.bars[0]?.segments.at(-1), { phase: 'Preparing', from: at(2), to: at(4) });
    assert.deepEqual(row.traffic, [{ at: at(2), kind: 'left' }]);
    assert.equal(history.tracks[0]?.servedAt, undefined);
    assert.equal(row.phase, 'Completing', 'no lifecycle and not service-available yet');
  });

  test('a lifecycle that begins again under the same ID after the last ended is a second bar', () => {
    const { row } = replay([
      [pod({ labels: versions.Operating }), 3.5],
      [pod({ labels: versions.ServiceAvailable }), 8],
      [pod({ labels: { ...versions.ServiceAvailable, [L('operating', 'upgrade')]: stamp(9), [L('operation-type', 'upgrade')]: 'update', [L('pre-check', 'upgrade')]: stamp(9) } }), 9.5],
    ]);
    assert.deepEqual(
      row.bars.map((bar) => bar.segments.map((s) => [s.phase, s.from, s.to])),
      [
        [
          ['PreCheck', at(0), at(2)],
          ['Preparing', at(2), at(3)],
          ['Operating', at(3), at(7)],
        ],
        [['PreCheck', at(9), undefined]],
      ],
    );
  });

  test('two lifecycles at once are two bars', () => {
    const labels = { ...versions.Operating, [L('operating', 'restart')]: stamp(1), [L('operation-type', 'restart')]: 'restart', [L('pre-check', 'restart')]: stamp(1) };
    const { row } = replay([[pod({ labels }), 4]]);
    assert.deepEqual(
      row.bars.map((bar) => [bar.id, bar.segments.map((s) => s.phase)]),
      [
        ['restart', ['PreCheck']],
        ['upgrade', ['PreCheck', 'Preparing', 'Operating']],
      ],
    );
    assert.equal(row.phase, 'PreCheck', 'the least advanced lifecycle');
    assert.equal(row.since, at(1));
  });

  test('ended lifecycles are forgotten after an hour, and beyond the last few', () => {
    let history: PodHistory | undefined;
    for (let i = 0; i < MAX_ENDED_TRACKS + 3; i++) {
      history = observePod(history, explainPod(pod({ labels: { [L('operating', `op${i}`)]: stamp(i * 10), [L('operation-type', `op${i}`)]: 'update' } })), at(i * 10));
      history = observePod(history, explainPod(pod({ labels: {} })), at(i * 10 + 5));
    }
    assert.equal(history!.tracks.length, MAX_ENDED_TRACKS);
    assert.equal(history!.tracks.at(-1)?.id, `op${MAX_ENDED_TRACKS + 2}`);
    const later = observePod(history, explainPod(pod({ labels: {} })), at(MAX_ENDED_TRACKS * 10 + 30) + HISTORY_RETENTION_MS);
    assert.deepEqual(later.tracks, []);
  });
});

describe('a pod row', () => {
  test('phase, time in phase and waits are those of podops status (explainPod), word for word', () => {
    const waiting = pod({ labels: versions.Preparing, serviceReady: 'False', ready: true, finalizers: ['prot.podopslifecycle.kusionstack.io/lb'] });
    const report = explainPod(waiting);
    const row = podRow(waiting, report, observePod(undefined, report, at(3)));
    assert.equal(row.phase, 'Preparing');
    assert.equal(row.since, at(2));
    assert.deepEqual(row.waitingFor, podWaits(report));
    assert.deepEqual(row.waitingFor, ['waiting for protection finalizers: prot.podopslifecycle.kusionstack.io/lb']);
    assert.deepEqual(row.lifecycles, [{ id: 'upgrade', type: 'update', phase: 'Preparing', since: at(2) }]);
    assert.equal(row.key, 'default/pod-a');
  });

  test('out of traffic while a lifecycle holds it off: preparing, operating, post-checking', () => {
    const out = (labels: Record<string, string>) => {
      const p = pod({ labels });
      const report = explainPod(p);
      return podRow(p, report, observePod(undefined, report, at(8))).outOfTraffic;
    };
    assert.deepEqual(
      (['PreCheck', 'Preparing', 'Operating', 'PostCheck', 'Completing'] as const).map((phase) => [phase, out(versions[phase]!)]),
      [
        ['PreCheck', false],
        ['Preparing', true],
        ['Operating', true],
        ['PostCheck', true],
        ['Completing', false],
      ],
    );
  });

  test('a pod with a malformed label shows the problem as podops status does', () => {
    const broken = pod({ labels: { [L('operated', 'upgrade')]: stamp(1) } });
    const report = explainPod(broken);
    const row = podRow(broken, report, observePod(undefined, report, at(2)));
    assert.ok(row.waitingFor.some((w) => w.startsWith('problem: not found label')), row.waitingFor.join('; '));
  });
});

describe('workloadOf', () => {
  const owned = (kind: string, name: string, labels: Record<string, string> = {}): Pod => ({
    ...pod({ labels }),
    metadata: { name: 'p', labels, ownerReferences: [{ apiVersion: 'apps/v1', kind, name, uid: 'u', controller: true }] },
  });

  test("a Deployment's ReplicaSet counts as the Deployment, so a rolling update stays one group", () => {
    assert.equal(workloadOf(owned('ReplicaSet', 'web-6d4f9c', { 'pod-template-hash': '6d4f9c' })), 'Deployment web');
  });

  test('other owners are themselves, a pod of its own is Pod', () => {
    assert.equal(workloadOf(owned('ReplicaSet', 'plain')), 'ReplicaSet plain');
    assert.equal(workloadOf(owned('StatefulSet', 'db')), 'StatefulSet db');
    assert.equal(workloadOf(pod()), 'Pod');
  });
});
