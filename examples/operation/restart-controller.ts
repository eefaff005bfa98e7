// An example operation controller, written with podops' SDK: a controlled pod annotated
// `podops.example/restart=<token>` gets a PodOpsLifecycle of type `restart`; once podops allows the operation
// (the pod is out of traffic and its checks passed), the controller "restarts" it (here it records the token
// in `podops.example/restarted`, where a real one would restart containers) and finishes the lifecycle.

import { CONTROL_LABEL, CONTROL_LABEL_VALUE, type Pod } from '../../src/api/index.ts';
import { Controller, Informer, isNotFound, keyOf, type KubeClient, type Logger, nowNanos, PODS, type Reconciler, type Request, type Result, silentLogger } from '../../src/kube/index.ts';
import { allowOps, begin, finish, hasLifecycle, isDuringOps, type LifecycleAdapter, writePod } from '../../src/sdk/index.ts';

export const RESTART_ANNOTATION = 'podops.example/restart';
export const RESTARTED_ANNOTATION = 'podops.example/restarted';

export const restartAdapter: LifecycleAdapter = { id: 'example-restart', type: 'restart', allowMultiType: true };

export class RestartReconciler implements Reconciler {
  readonly #client: KubeClient;
  readonly #pods: Informer<Pod>;
  readonly #delaySeconds: number;

  constructor(client: KubeClient, pods: Informer<Pod>, operationDelaySeconds = 0) {
    this.#client = client;
    this.#pods = pods;
    this.#delaySeconds = operationDelaySeconds;
  }

  /** `signal` aborts when the controller stops: passed to every request, so a stop cancels those in flight. */
  async reconcile({ namespace, name }: Request, signal: AbortSignal): Promise<Result | void> {
    const pod = this.#pods.get(namespace, name);
    const token = pod?.metadata.annotations?.[RESTART_ANNOTATION];
    if (!pod || token === undefined || pod.metadata.annotations?.[RESTARTED_ANNOTATION] === token) return;
    const now = nowNanos();
    try {
      if (!isDuringOps(restartAdapter, pod)) {
        // A lifecycle of ours that is still completing: wait for it to end before starting the next one.
        if (hasLifecycle(restartAdapter.id, pod)) return;
        const { pod: begun, changed } = begin(restartAdapter, pod, now);
        if (changed) await writePod(this.#client, pod, begun, signal);
        return;
      }
      const { allowed, requeueAfterMs } = allowOps(restartAdapter, this.#delaySeconds, pod, now);
      if (!allowed) return requeueAfterMs ? { requeueAfterMs } : undefined;
      const record = (p: Pod): boolean => {
        p.metadata.annotations = { ...p.metadata.annotations, [RESTARTED_ANNOTATION]: token };
        return true;
      };
      const { pod: finished } = finish(restartAdapter, pod, now, record);
      await writePod(this.#client, pod, finished, signal);
    } catch (err) {
      // The pod is gone: nothing to restart. (A Conflict is the harness's: the newer version's event brings the pod back.)
      if (isNotFound(err)) return;
      throw err;
    }
    return;
  }
}

export function startRestartController(client: KubeClient, signal: AbortSignal, logger: Logger = silentLogger()): Promise<void> {
  const pods = new Informer<Pod>({ client, type: PODS, labelSelector: `${CONTROL_LABEL}=${CONTROL_LABEL_VALUE}`, logger });
  const controller = new Controller({ name: 'example-restart', workers: 2, logger, reconciler: new RestartReconciler(client, pods) });
  const enqueue = (pod: Pod): void => {
    if (pod.metadata.annotations?.[RESTART_ANNOTATION] !== undefined) controller.enqueue(keyOf(pod.metadata.namespace, pod.metadata.name ?? ''));
  };
  pods.addHandler({ onAdd: enqueue, onUpdate: (_p, pod) => enqueue(pod) });
  return (async () => {
    const informer = pods.run(signal);
    await pods.waitForSync(signal);
    await controller.run(signal);
    await informer;
  })();
}
