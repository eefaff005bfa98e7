// The example operation controller (examples/operation) on the sandbox: a restart requested by annotation runs
// as a PodOpsLifecycle of type `restart`, and the "restart" happens only while the pod is out of the load
// balancer (examples/load-balancer).

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Pod } from '../../src/api/kube.ts';
import { PODS } from '../../src/kube/resources.ts';
import { parseLifecycles } from '../../src/lifecycle/parse.ts';
import { RESTARTED_ANNOTATION, RESTART_ANNOTATION } from '../../examples/operation/restart-controller.ts';
import { controlledPod, getPod, isServiceAvailable, serviceNamespace, startCluster, type SandboxCluster } from './harness.ts';
import { until } from '../support/wait.ts';

describe('the example operation controller', () => {
  let cluster: SandboxCluster;
  before(async () => {
    cluster = await startCluster();
    await serviceNamespace(cluster, 'examples');
  });
  after(() => cluster.stop());

  test('a requested restart runs as a restart lifecycle, with the pod out of traffic while it happens', async () => {
    const { client } = cluster;
    await client.create(PODS, controlledPod('examples', 'web-0'));
    await until(() => getPod(cluster, 'examples', 'web-0'), isServiceAvailable, 'web-0 service-available');
    await until(() => cluster.loadBalancer.isRegistered('examples/web', 'web-0'), Boolean, 'web-0 in the load balancer');

    await client.patch(PODS, 'examples', 'web-0', 'merge', { metadata: { annotations: { [RESTART_ANNOTATION]: 'r1' } } });
    const done = await until(
      () => getPod(cluster, 'examples', 'web-0'),
      (p) => p.metadata.annotations?.[RESTARTED_ANNOTATION] === 'r1' && isServiceAvailable(p),
      'the restart to be done and the pod back in service',
    );
    assert.equal(done.metadata.annotations?.[RESTARTED_ANNOTATION], 'r1');

    const records = cluster.sandbox.history!.records('pods').filter((r) => r.name === 'web-0');
    const types = new Set(records.flatMap((r) => [...parseLifecycles((r.object as unknown as Pod).metadata.labels).byId.values()].map((l) => l.type)));
    assert.ok(types.has('restart'), `a restart lifecycle ran (saw ${[...types].join(', ')})`);
    const restart = records.find((r) => (r.object as unknown as Pod).metadata.annotations?.[RESTARTED_ANNOTATION] === 'r1');
    assert.ok(restart, 'the restart was written');
    // Out of the load balancer before the restart, back in only after it.
    const changes = cluster.loadBalancer.history.filter((h) => h.pod === 'web-0');
    const out = changes.filter((h) => h.change === 'deregister').at(-1);
    const back = changes.filter((h) => h.change === 'register').at(-1);
    assert.ok(out && out.at <= restart.time, 'deregistered before the restart');
    assert.ok(back && back.at >= restart.time, 're-registered after the restart');
    assert.ok(cluster.loadBalancer.isRegistered('examples/web', 'web-0'));
  });
});
