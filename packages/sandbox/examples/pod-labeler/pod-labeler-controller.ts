// An example controller written only with @kubernetes/client-node, as its users write them: it labels every
// pod of a Deployment with the Deployment's name (`example.com/deployment`), found by following the pod's
// controlling ReplicaSet to its controlling Deployment. Two informers cache the namespace's pods and
// ReplicaSets; a pod is patched (a JSON merge patch, sent with its content type) only when its label is
// missing or wrong. Its test, beside it, runs it against the sandbox.

import { ApiException, AppsV1Api, CoreV1Api, makeInformer, PatchStrategy, setHeaderOptions, type KubeConfig, type V1OwnerReference, type V1Pod, type V1ReplicaSet } from '@kubernetes/client-node';

export const deploymentLabel = 'example.com/deployment';

export interface PodLabeler {
  stop(): Promise<void>;
}

const controllerOf = (owners: V1OwnerReference[] | undefined, kind: string): string | undefined => owners?.find((o) => o.controller && o.kind === kind)?.name;

/** Starts labelling the pods of `namespace`; resolves once both caches are filled. */
export async function startPodLabeler(kc: KubeConfig, namespace: string): Promise<PodLabeler> {
  const core = kc.makeApiClient(CoreV1Api);
  const apps = kc.makeApiClient(AppsV1Api);
  const mergePatch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);
  const replicaSets = makeInformer<V1ReplicaSet>(kc, `/apis/apps/v1/namespaces/${namespace}/replicasets`, () => apps.listNamespacedReplicaSet({ namespace }));
  const pods = makeInformer<V1Pod>(kc, `/api/v1/namespaces/${namespace}/pods`, () => core.listNamespacedPod({ namespace }));
  let stopped = false;

  const reconcile = async (pod: V1Pod): Promise<void> => {
    const { name, labels, ownerReferences, deletionTimestamp } = pod.metadata ?? {};
    const replicaSet = controllerOf(ownerReferences, 'ReplicaSet');
    const deployment = replicaSet && controllerOf(replicaSets.get(replicaSet, namespace)?.metadata?.ownerReferences, 'Deployment');
    if (!name || !deployment || deletionTimestamp || labels?.[deploymentLabel] === deployment) return;
    try {
      await core.patchNamespacedPod({ namespace, name, body: { metadata: { labels: { [deploymentLabel]: deployment } } } }, mergePatch);
    } catch (err) {
      // A pod deleted meanwhile needs no label.
      if (!(err instanceof ApiException && err.code === 404)) console.error(`pod-labeler: labelling pod ${namespace}/${name}:`, err);
    }
  };
  const onPod = (pod: V1Pod): void => void reconcile(pod);
  // A ReplicaSet seen after its pods: they are labelled now.
  const onReplicaSet = (rs: V1ReplicaSet): void => {
    for (const pod of pods.list(namespace)) if (controllerOf(pod.metadata?.ownerReferences, 'ReplicaSet') === rs.metadata?.name) void reconcile(pod);
  };
  // An informer stops on an error other than a watch timeout: start it again after a second.
  const restarts = new Set<NodeJS.Timeout>();
  const restartOnError = (informer: typeof pods | typeof replicaSets, what: string): void =>
    informer.on('error', (err: unknown) => {
      if (stopped) return;
      console.error(`pod-labeler: the ${what} informer failed, restarting:`, err);
      const timer = setTimeout(() => {
        restarts.delete(timer);
        void informer.start();
      }, 1000);
      restarts.add(timer);
    });

  replicaSets.on('add', onReplicaSet);
  replicaSets.on('update', onReplicaSet);
  pods.on('add', onPod);
  pods.on('update', onPod);
  restartOnError(replicaSets, 'ReplicaSet');
  restartOnError(pods, 'pod');
  await replicaSets.start();
  await pods.start();
  return {
    async stop() {
      stopped = true;
      for (const timer of restarts) clearTimeout(timer);
      await Promise.all([pods.stop(), replicaSets.stop()]);
    },
  };
}
