import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../meta/object.ts';
import { maxSurge, maxUnavailable, newReplicaSetReplicas } from './deployment-util.ts';

const deployment = (replicas: number, rollingUpdate: Record<string, unknown>): KubeObject => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'd' },
  spec: { replicas, strategy: { type: 'RollingUpdate', rollingUpdate } },
});
const replicaSet = (replicas: number): KubeObject => ({ apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: { name: `rs-${replicas}` }, spec: { replicas } });

test('ResolveFenceposts: percentages of replicas, maxSurge rounded up and maxUnavailable down; never both zero; capped at replicas', () => {
  const cases: [number, unknown, unknown, number, number][] = [
    // replicas, maxSurge, maxUnavailable → surge, unavailable
    [10, '25%', '25%', 3, 2],
    [4, '25%', '25%', 1, 1],
    [3, '25%', '25%', 1, 0],
    [1, 0, '25%', 0, 1],
    [5, 2, 0, 2, 0],
    [3, 0, 5, 0, 3],
    [0, '25%', '25%', 0, 0],
  ];
  for (const [replicas, surge, unavailable, wantSurge, wantUnavailable] of cases) {
    const d = deployment(replicas, { maxSurge: surge, maxUnavailable: unavailable });
    assert.deepEqual([maxSurge(d), maxUnavailable(d)], [wantSurge, wantUnavailable], `${replicas} replicas, ${String(surge)} / ${String(unavailable)}`);
  }
});

test('NewRSNewReplicas: the new ReplicaSet grows by what maxSurge leaves, up to replicas', () => {
  const d = deployment(4, { maxSurge: 1, maxUnavailable: 0 });
  const grow = (oldSize: number, newSize: number): number => newReplicaSetReplicas(d, [replicaSet(oldSize), replicaSet(newSize)], replicaSet(newSize));
  assert.equal(grow(4, 0), 1);
  assert.equal(grow(4, 1), 1, 'at 4 + 1 pods nothing more');
  assert.equal(grow(3, 1), 2);
  assert.equal(grow(0, 3), 4, 'never past replicas');
  assert.equal(newReplicaSetReplicas(deployment(10, { maxSurge: '25%' }), [replicaSet(10), replicaSet(0)], replicaSet(0)), 3, '25% of 10 rounded up');
});
