// The operator's shared caches over a test's sandbox client, running for the tests of one describe block:
// started (and synced) before them, after the sandbox; stopped after them.

import { after, before } from 'node:test';
import { clusterCaches, type ClusterCaches } from '../../src/cache/cluster-cache.ts';
import { WorkloadReads } from '../../src/cache/workloads.ts';
import type { SandboxClient } from './sandbox-client.ts';

export interface RunningCaches {
  readonly caches: ClusterCaches;
  readonly workloads: WorkloadReads;
}

export function useClusterCaches(env: SandboxClient): RunningCaches {
  const abort = new AbortController();
  const state: { caches?: ClusterCaches; workloads?: WorkloadReads } = {};
  before(async () => {
    state.caches = clusterCaches(env.client);
    state.workloads = new WorkloadReads(state.caches, env.client);
    const informers = Object.values(state.caches);
    for (const informer of informers) void informer.run(abort.signal);
    await Promise.all(informers.map((informer) => informer.waitForSync(abort.signal)));
  });
  after(() => abort.abort());
  return {
    get caches() {
      if (!state.caches) throw new Error('the caches start in before()');
      return state.caches;
    },
    get workloads() {
      if (!state.workloads) throw new Error('the caches start in before()');
      return state.workloads;
    },
  };
}
