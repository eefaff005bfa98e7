// The pod-deletion controller: a controlled pod labelled `collaset.kusionstack.io/to-delete` goes through a
// `pod-delete` lifecycle of type `delete` (traffic off, checks), and is deleted once that lifecycle allows it.
// GraceDelete turns `kubectl delete pod` into exactly this label.

import type { Pod } from '../api/kube.ts';
import { TO_DELETE_LABEL } from '../api/protocol.ts';
import type { KubeClient } from '../kube/client.ts';
import { nowNanos } from '../kube/clock.ts';
import { Controller, forObjects, type Reconciler, type Request, type Result, type Trigger } from '../kube/controller.ts';
import type { EventRecorder } from '../kube/events.ts';
import type { Informer } from '../kube/informer.ts';
import type { Logger } from '../kube/log.ts';
import type { RuntimeMetrics } from '../kube/metrics.ts';
import { PODS } from '../kube/resources.ts';
import { isControlled, isDeleting } from '../lifecycle/pod.ts';
import type { Nanos } from '../lifecycle/time.ts';
import { writePod } from '../sdk/write-pod.ts';
import { allowOps, begin, isDuringOps, podDeleteAdapter } from '../sdk/operation.ts';

export const POD_DELETION_CONTROLLER_NAME = 'poddeletion-controller';

export const wantsDeletion = (pod: Pod): boolean => isControlled(pod) && pod.metadata.labels?.[TO_DELETE_LABEL] !== undefined;

export interface PodDeletionOptions {
  client: KubeClient;
  pods: Informer<Pod>;
  events?: EventRecorder;
  now?: () => Nanos;
}

export class PodDeletionReconciler implements Reconciler {
  readonly #options: PodDeletionOptions;

  constructor(options: PodDeletionOptions) {
    this.#options = options;
  }

  async reconcile({ namespace, name }: Request): Promise<Result | void> {
    const pod = this.#options.pods.get(namespace, name);
    if (!pod || isDeleting(pod) || !wantsDeletion(pod)) return;
    const now = (this.#options.now ?? nowNanos)();
    if (!isDuringOps(podDeleteAdapter, pod)) {
      const { pod: begun, changed } = begin(podDeleteAdapter, pod, now);
      if (changed) await writePod(this.#options.client, pod, begun);
      return;
    }
    const { allowed, requeueAfterMs } = allowOps(podDeleteAdapter, 0, pod, now);
    if (!allowed) return requeueAfterMs ? { requeueAfterMs } : undefined;
    await this.#options.client.delete(PODS, namespace, name, { preconditions: { uid: pod.metadata.uid as string } });
    this.#options.events?.event(pod, 'Normal', 'PodDeletion', 'Deleted pod');
    return;
  }
}

/** The controlled pods marked for deletion. */
export const podDeletionTriggers = (pods: Informer<Pod>): Trigger[] => [forObjects(pods, wantsDeletion)];

export function podDeletionController(options: PodDeletionOptions & { workers?: number; metrics?: RuntimeMetrics; logger?: Logger }): Controller {
  return new Controller({
    name: POD_DELETION_CONTROLLER_NAME,
    workers: options.workers ?? 5,
    reconciler: new PodDeletionReconciler(options),
    triggers: podDeletionTriggers(options.pods),
    ...(options.metrics && { metrics: options.metrics }),
    ...(options.logger && { logger: options.logger }),
  });
}
