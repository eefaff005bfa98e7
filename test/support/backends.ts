// The API servers the end-to-end suites run on: the sandbox (an embedded API server with simulated nodes and
// workload controllers), and a real control plane (etcd, kube-apiserver and kube-controller-manager from
// KUBEBUILDER_ASSETS, with the sandbox's simulated nodes as its clients). A suite runs the same tests on each,
// naming the backend in its title; the real control plane's variants skip, saying why, where it cannot start.

import type { Sandbox } from '@podops/sandbox';
import { controlPlaneUnavailable, startControlPlane, startSandbox } from '@podops/sandbox';

export interface ApiServerOptions {
  /** Simulated nodes. */
  nodes: number;
  /** The simulated kubelet's container start delay. */
  startDelayMs: number;
  /** Cap of the simulated containers' termination grace period. */
  gracePeriodCapMs: number;
  /** Where to write the admin kubeconfig. */
  kubeconfigPath: string;
  /** An AdmissionConfiguration (kube-apiserver's --admission-control-config-file). */
  admissionControlConfigFile?: string;
}

export interface ApiServer {
  /** The admin's kubeconfig (YAML). */
  readonly kubeconfig: string;
  stop(): Promise<void>;
}

export interface Backend<Server extends ApiServer = ApiServer> {
  /** As the test titles name it. */
  readonly name: string;
  /** node:test's `skip`: why this backend cannot run here, or false. */
  readonly skip: string | false;
  start(options: ApiServerOptions): Promise<Server>;
}

export const sandboxBackend: Backend<ApiServer & { sandbox: Sandbox }> = {
  name: 'sandbox',
  skip: false,
  async start(options) {
    const sandbox = await startSandbox({
      kubeconfigPath: options.kubeconfigPath,
      // The write log stays on for the suites that read it off the sandbox itself.
      recordWrites: true,
      ...(options.admissionControlConfigFile !== undefined && { admissionControlConfigFile: options.admissionControlConfigFile }),
      simulation: { nodes: options.nodes, kubelet: { startDelayMs: options.startDelayMs, gracePeriodCapMs: options.gracePeriodCapMs } },
    });
    return { kubeconfig: sandbox.kubeconfig, sandbox, stop: () => sandbox.stop() };
  },
};

const unavailable = await controlPlaneUnavailable({ controllerManager: true });

export const realControlPlaneBackend: Backend = {
  name: 'real control plane',
  skip: unavailable ? `no real control plane: ${unavailable}` : false,
  async start(options) {
    return startControlPlane({
      controllerManager: true,
      nodes: options.nodes,
      kubelet: { startDelayMs: options.startDelayMs, gracePeriodCapMs: options.gracePeriodCapMs },
      kubeconfigPath: options.kubeconfigPath,
      ...(options.admissionControlConfigFile !== undefined && { apiServerFlags: [`--admission-control-config-file=${options.admissionControlConfigFile}`] }),
    });
  },
};

/** Every backend, the sandbox first. */
export const backends: readonly Backend[] = [sandboxBackend, realControlPlaneBackend];
