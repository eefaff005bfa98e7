// A real control plane for the scale benchmark, in a process of its own: etcd, kube-apiserver and
// kube-controller-manager from the assets directory, and simulated nodes (scheduler and kubelets) as a client of
// it. Reports its kubeconfig and directory once the nodes are up; stops everything when asked.

import { startControlPlane, startSimulatedNodes } from '@podops/sandbox';

const { assets, nodes, maxPods } = JSON.parse(process.argv[2] ?? '{}') as { assets: string; nodes: number; maxPods: number };
const plane = await startControlPlane({ assets, controllerManager: true });
let simulated: Awaited<ReturnType<typeof startSimulatedNodes>> | undefined;
try {
  simulated = await startSimulatedNodes({ kubeconfig: plane.kubeconfig, nodes, kubelet: { maxPods } });
  process.on('message', (message: unknown) => {
    if (message !== 'stop') return;
    void (async () => {
      await simulated?.stop();
      await plane.stop();
      process.exit(0);
    })();
  });
  process.send?.({ kubeconfig: plane.kubeconfig, directory: plane.directory });
} catch (err) {
  await simulated?.stop();
  await plane.stop();
  throw err;
}
