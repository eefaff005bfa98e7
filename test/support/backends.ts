// The API servers the end-to-end suites run on: the sandbox (an embedded API server with simulated nodes and
// workload controllers), and a real control plane (etcd, kube-apiserver and kube-controller-manager from
// KUBEBUILDER_ASSETS, with the sandbox's simulated nodes as its clients). A suite runs the same tests on each,
// naming the backend in its title; the real control plane's variants skip, saying why, where it cannot start.
// A test process keeps one control plane for the clusters it starts one after the other (each with simulated
// nodes of its own), since its start costs seconds where a sandbox's costs milliseconds.

import { writeFile } from 'node:fs/promises';
import type { ControlPlane, Sandbox } from '@podops/sandbox';
import { controlPlaneUnavailable, startControlPlane, startSandbox, startSimulatedNodes } from '@podops/sandbox';
import { KubeClient, unlessNotFound } from '../../src/kube/client.ts';
import { NODES } from '../../src/kube/resources.ts';

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
  /** Whether a cluster's API server outlives it, so the cluster must clear what its tests made before it goes. */
  readonly shared: boolean;
  start(options: ApiServerOptions): Promise<Server>;
}

export const sandboxBackend: Backend<ApiServer & { sandbox: Sandbox }> = {
  name: 'sandbox',
  skip: false,
  shared: false,
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

/**
 * The process's control plane, kept until the process ends (its processes' guardian then stops them and removes
 * its directory: nothing of it keeps the process alive), so that the real clusters of a test file share it
 * whatever runs between them.
 */
let shared: { plane: Promise<ControlPlane>; inUse: boolean } | undefined;

/** The shared control plane, or a plane of its own for a cluster that needs other flags or starts beside another. */
async function acquirePlane(options: ApiServerOptions): Promise<{ plane: ControlPlane; release(): Promise<void> }> {
  const flags = options.admissionControlConfigFile === undefined ? [] : [`--admission-control-config-file=${options.admissionControlConfigFile}`];
  if (flags.length || shared?.inUse) {
    const plane = await startControlPlane({ controllerManager: true, apiServerFlags: flags });
    return { plane, release: () => plane.stop() };
  }
  const mine = (shared ??= { plane: startControlPlane({ controllerManager: true }), inUse: false });
  mine.inUse = true;
  let plane: ControlPlane;
  try {
    plane = await mine.plane;
  } catch (err) {
    shared = undefined;
    throw err;
  }
  return {
    async release() {
      mine.inUse = false;
    },
    plane,
  };
}

/**
 * What a cluster leaves behind for the next one on the same control plane: no nodes (their Node objects go too:
 * the next cluster registers its own, and a node without a kubelet must not be scheduled to).
 */
async function removeNodes(plane: ControlPlane): Promise<void> {
  const client = KubeClient.fromKubeconfigText(plane.kubeconfig);
  try {
    for (const node of (await client.list<{ metadata: { name?: string } }>(NODES)).items) await unlessNotFound(client.delete(NODES, undefined, node.metadata.name!));
  } finally {
    client.close();
  }
}

export const realControlPlaneBackend: Backend = {
  name: 'real control plane',
  skip: unavailable ? `no real control plane: ${unavailable}` : false,
  shared: true,
  async start(options) {
    const { plane, release } = await acquirePlane(options);
    let nodes;
    try {
      await writeFile(options.kubeconfigPath, plane.kubeconfig, { mode: 0o600 });
      nodes = await startSimulatedNodes({ kubeconfig: plane.kubeconfig, nodes: options.nodes, kubelet: { startDelayMs: options.startDelayMs, gracePeriodCapMs: options.gracePeriodCapMs } });
    } catch (err) {
      await release();
      throw err;
    }
    return {
      kubeconfig: plane.kubeconfig,
      async stop() {
        await nodes.stop();
        await removeNodes(plane).catch(() => {});
        await release();
      },
    };
  },
};

/** Every backend, the sandbox first. */
export const backends: readonly Backend[] = [sandboxBackend, realControlPlaneBackend];
