// The pod status a v1.32 kubelet reports for a pod's runtime state (generateAPIPodStatus): container
// statuses, the phase (getPhase), and the conditions PodReadyToStartContainers, Initialized, Ready
// (containers ready AND every readiness gate True), ContainersReady and PodScheduled, with the
// kubelet's reasons and messages. Conditions other kubelet-owned ones (readiness gates) are kept.

import { isJsonObject, type JsonObject, type KubeObject } from '../meta/object.ts';
import { formatTimestamp } from '../meta/time.ts';
import type { ContainerInstance, ContainerSlot, PodRuntime } from './pod-runtime.ts';

/** Condition types the kubelet owns (kubetypes.PodConditionByKubelet). */
const kubeletConditionTypes = ['PodReadyToStartContainers', 'Initialized', 'Ready', 'ContainersReady', 'PodScheduled'];

interface Condition {
  type: string;
  status: 'True' | 'False';
  reason?: string;
  message?: string;
}

const specOf = (pod: KubeObject): JsonObject => (isJsonObject(pod.spec) ? pod.spec : {});
const statusOf = (pod: KubeObject): JsonObject => (isJsonObject(pod.status) ? pod.status : {});
const objects = (value: unknown): JsonObject[] => (Array.isArray(value) ? value.filter(isJsonObject) : []);
/** Go's %s of a []string: `[a b]`. */
const goList = (names: readonly string[]): string => `[${names.join(' ')}]`;

function terminatedState(instance: ContainerInstance): JsonObject {
  const finished = instance.finished;
  return {
    terminated: {
      exitCode: finished?.exitCode ?? 0,
      reason: finished?.reason ?? 'Completed',
      startedAt: formatTimestamp(instance.startedAt),
      finishedAt: formatTimestamp(finished?.at ?? instance.startedAt),
      containerID: `containerd://${instance.id}`,
    },
  };
}

const neverRanState = {
  terminated: { exitCode: 137, reason: 'ContainerStatusUnknown', message: 'The container could not be located when the pod was terminated' },
};

/** Go's time.Duration.String() for whole milliseconds. */
function goDuration(ms: number): string {
  if (ms === 0) return '0s';
  if (ms < 1000) return `${ms}ms`;
  const hours = Math.floor(ms / 3_600_000);
  const minutes = Math.floor((ms % 3_600_000) / 60_000);
  const seconds = `${((ms % 60_000) / 1000).toFixed(3).replace(/\.?0+$/, '')}s`;
  if (hours) return `${hours}h${minutes}m${seconds}`;
  return minutes ? `${minutes}m${seconds}` : seconds;
}

function volumeMountStatuses(container: JsonObject): JsonObject[] | undefined {
  const mounts = objects(container.volumeMounts);
  if (!mounts.length) return undefined;
  return mounts.map((m) =>
    m.readOnly === true
      ? { name: m.name, mountPath: m.mountPath, readOnly: true, recursiveReadOnly: m.recursiveReadOnly === 'Enabled' ? 'Enabled' : 'Disabled' }
      : { name: m.name, mountPath: m.mountPath },
  );
}

function containerStatus(pod: KubeObject, runtime: PodRuntime, slot: ContainerSlot, container: JsonObject, hasInit: boolean): JsonObject {
  const instance = slot.current;
  if (!instance) {
    const state = slot.neverRan ? neverRanState : { waiting: { reason: hasInit ? 'PodInitializing' : 'ContainerCreating' } };
    return { name: slot.name, state, lastState: {}, ready: false, restartCount: 0, image: container.image, imageID: '', started: false };
  }
  const running = !instance.finished;
  let state: JsonObject;
  let lastState: JsonObject = slot.previous ? terminatedState(slot.previous) : {};
  if (running) state = { running: { startedAt: formatTimestamp(instance.startedAt) } };
  else if (slot.restartAt !== undefined) {
    lastState = terminatedState(instance);
    state =
      slot.restartBackOffMs === undefined
        ? { waiting: { reason: 'ContainerCreating' } }
        : {
            waiting: {
              reason: 'CrashLoopBackOff',
              message: `back-off ${goDuration(slot.restartBackOffMs)} restarting failed container=${slot.name} pod=${pod.metadata.name}_${pod.metadata.namespace}(${runtime.uid})`,
            },
          };
  } else state = terminatedState(instance);
  const ready = slot.kind === 'init' ? instance.finished?.exitCode === 0 && slot.restartAt === undefined : running && runtime.readyOverride !== false;
  const status: JsonObject = {
    name: slot.name,
    state,
    lastState,
    ready,
    restartCount: slot.instances - 1,
    image: instance.image,
    imageID: instance.imageID,
    containerID: `containerd://${instance.id}`,
    started: running,
  };
  const mounts = volumeMountStatuses(container);
  if (mounts) status.volumeMounts = mounts;
  return status;
}

const terminatedOf = (s: JsonObject): JsonObject | undefined => {
  const state = isJsonObject(s.state) ? s.state : {};
  return isJsonObject(state.terminated) ? state.terminated : undefined;
};
const lastTerminatedOf = (s: JsonObject): JsonObject | undefined => {
  const last = isJsonObject(s.lastState) ? s.lastState : {};
  return isJsonObject(last.terminated) ? last.terminated : undefined;
};
const isRunning = (s: JsonObject): boolean => isJsonObject(s.state) && isJsonObject(s.state.running);

/** getPhase of the kubelet, over the statuses just built. */
function podPhase(spec: JsonObject, init: JsonObject[], sidecars: Set<string>, regular: JsonObject[], podIsTerminal: boolean): string {
  let pendingInitialization = 0;
  let failedInitialization = 0;
  for (const s of init) {
    if (sidecars.has(String(s.name))) {
      if (s.started !== true) pendingInitialization++;
      continue;
    }
    const terminated = terminatedOf(s);
    if (terminated) {
      if (terminated.exitCode !== 0) failedInitialization++;
    } else if (isRunning(s)) pendingInitialization++;
    else if (lastTerminatedOf(s)) {
      if (lastTerminatedOf(s)?.exitCode !== 0) failedInitialization++;
    } else pendingInitialization++;
  }
  let running = 0;
  let waiting = 0;
  let stopped = 0;
  let succeeded = 0;
  for (const s of regular) {
    const ended = terminatedOf(s) ?? (isRunning(s) ? undefined : lastTerminatedOf(s));
    if (isRunning(s)) running++;
    else if (ended) {
      stopped++;
      if (ended.exitCode === 0) succeeded++;
    } else waiting++;
  }
  if (failedInitialization > 0 && spec.restartPolicy === 'Never') return 'Failed';
  const anyRegularStarted = regular.some((s) => isRunning(s) || terminatedOf(s) !== undefined || lastTerminatedOf(s) !== undefined);
  if ((pendingInitialization > 0 && !anyRegularStarted) || waiting > 0) return 'Pending';
  if (running > 0) return 'Running';
  if (stopped > 0) {
    if (podIsTerminal) return stopped === succeeded ? 'Succeeded' : 'Failed';
    if (spec.restartPolicy === 'Always') return 'Running';
    if (stopped === succeeded) return 'Succeeded';
    return spec.restartPolicy === 'Never' ? 'Failed' : 'Running';
  }
  return 'Pending';
}

function initializedCondition(initSpecs: JsonObject[], statuses: Map<string, JsonObject>, phase: string, anyRegularStarted: boolean): Condition {
  const incomplete: string[] = [];
  for (const c of initSpecs) {
    const s = statuses.get(String(c.name));
    if (c.restartPolicy === 'Always') {
      if (s?.started !== true) incomplete.push(String(c.name));
    } else if (terminatedOf(s ?? {})?.exitCode !== 0) incomplete.push(String(c.name));
  }
  if (phase === 'Succeeded') return { type: 'Initialized', status: 'True', reason: 'PodCompleted' };
  if (anyRegularStarted || incomplete.length === 0) return { type: 'Initialized', status: 'True' };
  return { type: 'Initialized', status: 'False', reason: 'ContainersNotInitialized', message: `containers with incomplete status: ${goList(incomplete)}` };
}

function containersReadyCondition(initSpecs: JsonObject[], regularSpecs: JsonObject[], statuses: Map<string, JsonObject>, phase: string): Condition {
  if (phase === 'Succeeded') return { type: 'ContainersReady', status: 'False', reason: 'PodCompleted' };
  if (phase === 'Failed') return { type: 'ContainersReady', status: 'False', reason: 'PodFailed' };
  const unready = [...initSpecs.filter((c) => c.restartPolicy === 'Always'), ...regularSpecs]
    .map((c) => String(c.name))
    .filter((name) => statuses.get(name)?.ready !== true);
  if (unready.length) return { type: 'ContainersReady', status: 'False', reason: 'ContainersNotReady', message: `containers with unready status: ${goList(unready)}` };
  return { type: 'ContainersReady', status: 'True' };
}

/** The Ready rule: ContainersReady, then every readiness gate's condition True. */
function readyCondition(spec: JsonObject, conditions: JsonObject[], containersReady: Condition): Condition {
  if (containersReady.status !== 'True') return { ...containersReady, type: 'Ready' };
  const unready: string[] = [];
  for (const gate of objects(spec.readinessGates)) {
    const type = String(gate.conditionType);
    const condition = conditions.find((c) => c.type === type);
    if (!condition) unready.push(`corresponding condition of pod readiness gate "${type}" does not exist.`);
    else if (condition.status !== 'True') unready.push(`the status of pod readiness gate "${type}" is not "True", but ${String(condition.status)}`);
  }
  if (unready.length) return { type: 'Ready', status: 'False', reason: 'ReadinessGatesNotReady', message: unready.join(', ') };
  return { type: 'Ready', status: 'True' };
}

/** The full status the kubelet wants the pod to have now (fields it does not own are kept). */
export function desiredPodStatus(pod: KubeObject, runtime: PodRuntime, hostIP: string, now: number): JsonObject {
  const spec = specOf(pod);
  const current = statusOf(pod);
  const initSpecs = objects(spec.initContainers);
  const regularSpecs = objects(spec.containers);
  const hasInit = initSpecs.length > 0;
  const specFor = new Map([...initSpecs, ...regularSpecs].map((c) => [String(c.name), c]));
  const build = (kind: 'init' | 'regular'): JsonObject[] =>
    runtime.slots
      .filter((s) => (kind === 'regular' ? s.kind === 'regular' : s.kind !== 'regular'))
      .map((s) => containerStatus(pod, runtime, s, specFor.get(s.name) ?? {}, hasInit));
  const initStatuses = build('init');
  const regularStatuses = build('regular');
  const byName = new Map([...initStatuses, ...regularStatuses].map((s) => [String(s.name), s]));
  const sidecars = new Set(initSpecs.filter((c) => c.restartPolicy === 'Always').map((c) => String(c.name)));
  const phase = podPhase(spec, initStatuses, sidecars, regularStatuses, runtime.terminal);

  const others = objects(current.conditions).filter((c) => !kubeletConditionTypes.includes(String(c.type)));
  const containersReady = containersReadyCondition(initSpecs, regularSpecs, byName, phase);
  const generated: Condition[] = [
    { type: 'PodReadyToStartContainers', status: runtime.sandboxReady && !runtime.terminal ? 'True' : 'False' },
    initializedCondition(initSpecs, byName, phase, runtime.initialized),
    readyCondition(spec, others, containersReady),
    containersReady,
    { type: 'PodScheduled', status: 'True' },
  ];
  const previous = objects(current.conditions);
  const stamp = formatTimestamp(now);
  const conditions = [
    ...others,
    ...generated.map((c) => {
      const before = previous.find((p) => p.type === c.type);
      const lastTransitionTime = before && before.status === c.status && before.lastTransitionTime ? before.lastTransitionTime : stamp;
      const out: JsonObject = { type: c.type, status: c.status, lastProbeTime: null, lastTransitionTime };
      if (c.reason) out.reason = c.reason;
      if (c.message) out.message = c.message;
      return out;
    }),
  ];

  const status: JsonObject = { ...current, phase, conditions, hostIP, hostIPs: [{ ip: hostIP }] };
  if (runtime.podIP !== undefined) {
    status.podIP = runtime.podIP;
    status.podIPs = [{ ip: runtime.podIP }];
  }
  status.startTime = current.startTime ?? formatTimestamp(runtime.admittedAt);
  if (hasInit) status.initContainerStatuses = initStatuses;
  status.containerStatuses = regularStatuses;
  return status;
}
