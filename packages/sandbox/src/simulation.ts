// What runs beside the API server when a sandbox simulates a whole cluster: kube-controller-manager's
// controllers and simulated nodes (a scheduler and a kubelet per node). Off unless asked for, so the API
// server alone behaves as the reference observations describe (a server with no kubelet); `podops sandbox`
// and `podops up` turn it on. Each part registers its controllers in `simulationControllers`.

import { deploymentController } from './controllers/apps/deployment-controller.ts';
import { replicaSetController } from './controllers/apps/replica-set-controller.ts';
import { daemonSetController } from './controllers/apps/daemonset-controller.ts';
import { statefulSetController } from './controllers/apps/statefulset-controller.ts';
import { jobController, type JobControllerOptions } from './controllers/batch/job-controller.ts';
import { ttlAfterFinishedController } from './controllers/batch/ttl-after-finished-controller.ts';
import type { KubeletConnections } from './apiserver/kubelet-connections.ts';
import type { Controller } from './controllers/in-process-controller.ts';
import { disruptionController } from './controllers/disruption/disruption-controller.ts';
import { endpointsController } from './controllers/endpoints-controller.ts';
import { endpointSliceController } from './controllers/endpointslice-controller.ts';
import type { ApiServerFeatureGates } from './feature-gates.ts';
import { nodeControllers, type KubeletOptions } from './nodes/index.ts';


export interface SimulationOptions {
  /** kube-controller-manager's workload, endpoint and disruption controllers. Default true. */
  controllers?: boolean;
  /** Number of simulated nodes (scheduler and kubelet); 0 runs none. Default 3. */
  nodes?: number;
  /** The simulated kubelets' delays and limits (docs/sandbox-nodes.md). */
  kubelet?: KubeletOptions;
  /**
   * The Endpoints and EndpointSlice controllers' batch period for pod changes, as kcm's
   * --endpoint-updates-batch-period and --endpointslice-updates-batch-period. Default 250: kcm's default
   * is 0, but its controllers have cores of their own; here they share the API server's thread, and
   * recomputing a large Service on every pod change would starve the API during a mass rollout.
   */
  endpointUpdatesBatchPeriodMs?: number;
  /** The Job controller's batching and pod-failure back-off (docs/sandbox-statefulsets.md); tests shorten them. */
  jobs?: JobControllerOptions;
}

/** The simulation's controllers; its kubelets register in `kubelets`, where the API server reaches them. */
export function simulationControllers(options: SimulationOptions, featureGates: ApiServerFeatureGates, kubelets: KubeletConnections): Controller[] {
  const controllers: Controller[] = [];
  controllers.push(...nodeControllers(options.nodes ?? 3, options.kubelet, kubelets));
  if (options.controllers ?? true) {
    const batchPeriodMs = options.endpointUpdatesBatchPeriodMs ?? 250;
    controllers.push(statefulSetController(featureGates), daemonSetController, jobController(options.jobs), ttlAfterFinishedController);
    controllers.push(replicaSetController, deploymentController, disruptionController);
    controllers.push(endpointsController(batchPeriodMs), endpointSliceController(batchPeriodMs));
  }
  return controllers;
}
