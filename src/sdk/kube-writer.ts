// The SDK's PodWriter over podops' KubeClient: reads are fresh GETs, writes are PUTs of the object just
// read (with its resourceVersion), so a concurrent change fails with 409 and the SDK retries.

import type { Pod } from '../api/kube.ts';
import { isConflict, type KubeClient } from '../kube/client.ts';
import { PODS } from '../kube/resources.ts';
import type { PodWriter } from './writer.ts';

export function podWriterFor(client: KubeClient): PodWriter {
  return {
    get: (namespace, name) => client.get<Pod>(PODS, namespace, name),
    update: (pod) => client.replace<Pod>(PODS, pod),
    isConflict,
  };
}
