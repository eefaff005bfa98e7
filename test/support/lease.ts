// A Lease taken over behind a leader's back, as a partitioned peer would after the lease expired.

import { isConflict, type KubeClient } from '../../src/kube/client.ts';
import { LEASES } from '../../src/kube/resources.ts';

/**
 * Makes `holder` the holder of the Lease `default/name` for `seconds`. The leader may renew between our read
 * and our write: then read again and write again.
 */
export async function takeOverLease(client: KubeClient, name: string, holder: string, seconds: number): Promise<void> {
  for (;;) {
    const lease = await client.get<{ metadata: { resourceVersion: string }; spec: object }>(LEASES, 'default', name);
    try {
      await client.replace(LEASES, {
        ...lease,
        apiVersion: 'coordination.k8s.io/v1',
        kind: 'Lease',
        metadata: { ...lease.metadata, name, namespace: 'default' },
        spec: { ...lease.spec, holderIdentity: holder, leaseDurationSeconds: seconds },
      });
      return;
    } catch (err) {
      if (!isConflict(err)) throw err;
    }
  }
}
