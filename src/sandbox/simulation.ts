// What runs beside the API server when a sandbox simulates a whole cluster: kube-controller-manager's
// controllers and simulated nodes (a scheduler and a kubelet per node). Off unless asked for, so the API
// server alone behaves as the reference observations describe (a server with no kubelet); `podops sandbox`
// and `podops up` turn it on. Each part registers its controllers in `simulationControllers`.

import type { Controller } from './controllers/controller.ts';

export interface SimulationOptions {
  /** kube-controller-manager's workload and endpoint controllers. Default true. */
  controllers?: boolean;
  /** Number of simulated nodes (scheduler and kubelet); 0 runs none. Default 3. */
  nodes?: number;
}

export function simulationControllers(_options: SimulationOptions): Controller[] {
  const controllers: Controller[] = [];
  return controllers;
}
