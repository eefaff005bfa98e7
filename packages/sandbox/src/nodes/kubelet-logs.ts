// The kubelet's GET /containerLogs/NAMESPACE/POD/CONTAINER (server.getContainerLogs and
// Kubelet.GetContainerLogs): the pod must be one of the node's, the container one of its spec's, and
// the container status must name a container to read (validateContainerLogStatus, in the kubelet's
// words); the log is then that container instance's.

import { KubeletError, type ContainerLogOptions, type ContainerLogStream } from '../apiserver/kubelet-connections.ts';
import { isJsonObject, type JsonObject, type KubeObject } from '../meta/object.ts';
import { containerLogStream } from './container-log.ts';
import type { ContainerInstance, Moment, PodRuntime } from './pod-runtime.ts';

/** What one node's kubelet knows of its pods. */
export interface KubeletPods {
  /** The node's pod under `namespace/name` (the kubelet's pod manager). */
  pod(key: string): KubeObject | undefined;
  runtime(key: string): PodRuntime | undefined;
  now(): Moment;
  /** Calls back after each sync of the pod; returns an unsubscribe. */
  onChange(key: string, listener: () => void): () => void;
}

const objects = (value: unknown): JsonObject[] => (Array.isArray(value) ? value.filter(isJsonObject) : []);
const objectAt = (value: unknown, key: string): JsonObject | undefined => (isJsonObject(value) && isJsonObject(value[key]) ? value[key] : undefined);

/** validateContainerLogStatus: the id of the container to read, or the kubelet's 400. */
function containerToRead(podName: string, status: JsonObject, name: string, previous: boolean): string {
  const fail = (why: string): never => {
    throw new KubeletError(400, `container ${JSON.stringify(name)} in pod ${JSON.stringify(podName)} ${why}`);
  };
  const containerStatus = [status.containerStatuses, status.initContainerStatuses, status.ephemeralContainerStatuses]
    .flatMap(objects)
    .find((s) => s.name === name);
  if (!containerStatus) return fail('is not available');
  const lastTerminated = objectAt(containerStatus.lastState, 'terminated');
  const { running, terminated, waiting } = isJsonObject(containerStatus.state) ? containerStatus.state : {};
  const id = (value: unknown): string => (typeof value === 'string' ? value : '');
  if (previous) {
    if (!lastTerminated || !id(lastTerminated.containerID)) {
      throw new KubeletError(400, `previous terminated container ${JSON.stringify(name)} in pod ${JSON.stringify(podName)} not found`);
    }
    return id(lastTerminated.containerID);
  }
  if (isJsonObject(running)) return id(containerStatus.containerID);
  if (isJsonObject(terminated)) {
    if (id(terminated.containerID)) return id(terminated.containerID);
    if (lastTerminated && id(lastTerminated.containerID)) return id(lastTerminated.containerID);
    return fail('is terminated');
  }
  if (lastTerminated) return id(lastTerminated.containerID) || fail('is terminated');
  if (isJsonObject(waiting)) {
    const reason = typeof waiting.reason === 'string' ? waiting.reason : '';
    if (reason === 'ErrImagePull') return fail('is waiting to start: image can\'t be pulled');
    if (reason === 'ImagePullBackOff') return fail('is waiting to start: trying and failing to pull image');
    return fail(`is waiting to start: ${reason}`);
  }
  return fail('is waiting to start - no logs yet');
}

function instanceOf(runtime: PodRuntime | undefined, name: string, containerID: string): ContainerInstance | undefined {
  const slot = runtime?.slots.find((s) => s.name === name);
  return [slot?.current, slot?.previous].find((i) => i && `containerd://${i.id}` === containerID);
}

export function serveContainerLogs(pods: KubeletPods, namespace: string, podName: string, container: string, options: ContainerLogOptions): ContainerLogStream {
  const key = `${namespace}/${podName}`;
  const pod = pods.pod(key);
  if (!pod) throw new KubeletError(404, `pod ${JSON.stringify(podName)} does not exist`);
  const spec = isJsonObject(pod.spec) ? pod.spec : {};
  const specs = [spec.initContainers, spec.containers, spec.ephemeralContainers].flatMap(objects);
  if (!specs.some((c) => c.name === container)) throw new KubeletError(404, `container ${JSON.stringify(container)} not found in pod ${JSON.stringify(podName)}`);
  const containerID = containerToRead(podName, isJsonObject(pod.status) ? pod.status : {}, container, options.previous);
  const runtime = pods.runtime(key);
  const instance = instanceOf(runtime, container, containerID);
  // A container the runtime no longer has (its pod's sandbox was removed) has no log left to read.
  if (!instance) return { start: (sink) => (sink.end(), () => undefined) };
  return containerLogStream(
    { instance, now: pods.now, onChange: (listener) => pods.onChange(key, listener), alive: () => pods.runtime(key) === runtime },
    options,
  );
}
