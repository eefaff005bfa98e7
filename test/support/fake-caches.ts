// The operator's shared caches (src/cache/cluster-cache.ts) as fake informers the test fills, with the same indexes.

import type { Deployment, Node, Pod, ReplicaSet, Service, StatefulSet } from '../../src/api/kube.ts';
import { CONTROLLER_INDEX, controlledBy, type ClusterCaches, type NamedPodDisruptionBudget } from '../../src/cache/cluster-cache.ts';
import { FakeInformer } from './fake-informer.ts';

export interface FakeCaches {
  pods: FakeInformer<Pod>;
  replicaSets: FakeInformer<ReplicaSet>;
  deployments: FakeInformer<Deployment>;
  statefulSets: FakeInformer<StatefulSet>;
  nodes: FakeInformer<Node>;
  podDisruptionBudgets: FakeInformer<NamedPodDisruptionBudget>;
  services: FakeInformer<Service>;
  /** The same, typed as the real caches for the code under test. */
  caches: ClusterCaches;
}

export function fakeCaches(): FakeCaches {
  const fakes = {
    pods: new FakeInformer<Pod>(),
    replicaSets: new FakeInformer<ReplicaSet>(),
    deployments: new FakeInformer<Deployment>(),
    statefulSets: new FakeInformer<StatefulSet>(),
    nodes: new FakeInformer<Node>(),
    podDisruptionBudgets: new FakeInformer<NamedPodDisruptionBudget>(),
    services: new FakeInformer<Service>(),
  };
  fakes.pods.addIndexer(CONTROLLER_INDEX, controlledBy);
  fakes.replicaSets.addIndexer(CONTROLLER_INDEX, controlledBy);
  const caches = Object.fromEntries(Object.entries(fakes).map(([kind, fake]) => [kind, fake.informer])) as unknown as ClusterCaches;
  return { ...fakes, caches };
}

/** A PodDisruptionBudget over the pods labelled `app`, which the disruption controller found without room. */
export const budgetWithoutRoom = (app: string, namespace = 'default'): NamedPodDisruptionBudget => ({
  metadata: { name: app, namespace, generation: 1 },
  spec: { selector: { matchLabels: { app } } },
  status: { observedGeneration: 1, desiredHealthy: 2, currentHealthy: 1 },
});
