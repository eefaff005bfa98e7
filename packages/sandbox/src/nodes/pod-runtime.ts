// What a container runtime would know about one pod on a simulated node: its sandbox (pod IP), and per
// container the instances it ran (running or exited), pending restarts with the kubelet's back-off,
// requested stops (deletion, in-place restart after an image change) and the test controls' crashes.
// `advance` moves the state to a moment; `nextWake` says when something is due next. Times are
// monotonic milliseconds (`mono`) for deadlines and wall-clock milliseconds (`wall`) for timestamps.

import { randomBytes } from 'node:crypto';
import { isJsonObject, type JsonObject, type KubeObject } from '../meta/object.ts';
import { containerProgram, type ProgramWrite } from './container-program.ts';
import { imageID, normalizeImage } from './images.ts';
import type { ResolvedKubeletOptions } from './options.ts';
import { crashRequests, readinessOverride } from './test-controls.ts';

export interface Moment {
  mono: number;
  wall: number;
}

export interface Termination {
  at: number;
  /** The same moment, monotonic: what was written after it never was. */
  mono: number;
  exitCode: number;
  reason: string;
}

export interface ContainerInstance {
  readonly id: string;
  /** The image as the spec named it when the instance was created (an in-place update changes the spec's). */
  readonly specImage: string;
  readonly image: string;
  readonly imageID: string;
  readonly startedAt: number;
  readonly startedMono: number;
  /** When it exits by itself (mono); undefined: it runs until stopped. */
  readonly exitsAt: number | undefined;
  readonly exitCode: number;
  readonly ignoresTerm: boolean;
  /** What the process writes, and when: its log (./container-log.ts). */
  readonly output: readonly ProgramWrite[];
  finished?: Termination;
}

export type ContainerKind = 'init' | 'sidecar' | 'regular';

export interface ContainerSlot {
  readonly name: string;
  readonly kind: ContainerKind;
  /** Instances created so far; restartCount is one less. */
  instances: number;
  current?: ContainerInstance;
  previous?: ContainerInstance;
  /** A restart is due at this mono time; `backOff` tells the wait was a crash-loop back-off. */
  restartAt?: number;
  restartBackOffMs?: number;
  backOff?: { ms: number; lastUpdate: number };
  /** A requested stop (mono) and whether the container comes back after it (in-place restart). */
  stopAt?: number;
  restartAfterStop: boolean;
  /** Crashes caused by the crash annotation. */
  crashes: number;
  /** The pod ended before this container ever ran. */
  neverRan: boolean;
}

export interface PodRuntimeServices {
  options: ResolvedKubeletOptions;
  /** A pod IP from the node's range, or undefined when it is exhausted. */
  allocateIP(): string | undefined;
  releaseIP(ip: string): void;
}

const specOf = (pod: KubeObject): JsonObject => (isJsonObject(pod.spec) ? pod.spec : {});
const containersOf = (spec: JsonObject, field: 'containers' | 'initContainers'): JsonObject[] =>
  Array.isArray(spec[field]) ? spec[field].filter(isJsonObject) : [];

const isSidecar = (container: JsonObject): boolean => container.restartPolicy === 'Always';

const ended = (at: Moment, exitCode: number): Termination => ({ at: at.wall, mono: at.mono, exitCode, reason: exitCode === 0 ? 'Completed' : 'Error' });

/** The hostname the kubelet gives the pod's containers: spec.hostname, else the name cut to a DNS label. */
function podHostname(pod: KubeObject): string {
  const hostname = specOf(pod).hostname;
  if (typeof hostname === 'string' && hostname) return hostname;
  return (pod.metadata.name ?? '').slice(0, 63).replace(/[-.]+$/, '');
}

/** A stopped container's exit code: a process that handles SIGTERM exits 0, PID 1 ignoring it is killed. */
const stopCode = (instance: ContainerInstance): number => (instance.ignoresTerm ? 137 : 0);

export class PodRuntime {
  readonly uid: string;
  readonly admittedAt: number;
  readonly slots: ContainerSlot[];
  podIP: string | undefined;
  /** The sandbox is up (PodReadyToStartContainers) once the start delay is over and an IP was free. */
  sandboxReady = false;
  /** All containers finished for good, or stopped for the pod's deletion: the sandbox is gone. */
  terminal = false;
  terminating = false;
  /** The kubelet already asked the API server to remove the pod. */
  deletionRequested = false;
  readyOverride: boolean | undefined;
  /** The node's pod range is exhausted: the sandbox waits for an address to free (no timer). */
  awaitingAddress = false;
  #pod: KubeObject;
  readonly #sandboxAt: number;
  readonly #services: PodRuntimeServices;
  #crashes = new Map<string, number>();

  constructor(pod: KubeObject, at: Moment, services: PodRuntimeServices) {
    this.uid = pod.metadata.uid ?? '';
    this.#pod = pod;
    this.#services = services;
    this.admittedAt = at.wall;
    this.#sandboxAt = at.mono + services.options.startDelayMs;
    const spec = specOf(pod);
    const slot = (name: string, kind: ContainerKind): ContainerSlot => ({ name, kind, instances: 0, restartAfterStop: false, crashes: 0, neverRan: false });
    this.slots = [
      ...containersOf(spec, 'initContainers').map((c) => slot(String(c.name), isSidecar(c) ? 'sidecar' : 'init')),
      ...containersOf(spec, 'containers').map((c) => slot(String(c.name), 'regular')),
    ];
    this.observe(pod, at);
  }

  get pod(): KubeObject {
    return this.#pod;
  }

  /** Takes in the pod's latest state: deletion, image changes, test controls. */
  observe(pod: KubeObject, at: Moment): void {
    this.#pod = pod;
    this.readyOverride = readinessOverride(pod);
    this.#crashes = crashRequests(pod, this.slots.filter((s) => s.kind !== 'init').map((s) => s.name));
    if (this.terminal) return;
    if (pod.metadata.deletionTimestamp) {
      this.#terminate(at, (pod.metadata.deletionGracePeriodSeconds ?? 0) * 1000);
      return;
    }
    const grace = this.#graceMs(pod);
    for (const slot of this.slots) {
      const running = slot.current && !slot.current.finished;
      if (slot.kind === 'init' || !running || slot.stopAt !== undefined) continue;
      if (this.#specContainer(slot)?.image !== slot.current?.specImage) {
        slot.stopAt = at.mono + grace;
        slot.restartAfterStop = true;
      }
    }
  }

  /** Moves the pod's containers to `at`: exits, stops, restarts, init order, termination. */
  advance(at: Moment): void {
    if (this.terminal) return;
    if (!this.sandboxReady) {
      if (this.terminating) return this.#finish(at);
      if (at.mono < this.#sandboxAt) return;
      this.podIP = this.#services.allocateIP();
      this.awaitingAddress = this.podIP === undefined;
      if (this.awaitingAddress) return;
      this.sandboxReady = true;
    }
    for (let changed = true; changed && !this.terminal; ) {
      changed = this.#endContainers(at) || this.#startContainers(at);
      if (this.#finished()) this.#finish(at);
    }
  }

  /** The next mono time something is due, if any. */
  nextWake(): number | undefined {
    if (this.terminal) return undefined;
    const times: number[] = [];
    if (!this.sandboxReady && !this.awaitingAddress) times.push(this.#sandboxAt);
    for (const slot of this.slots) {
      if (slot.stopAt !== undefined) times.push(slot.stopAt);
      if (slot.restartAt !== undefined) times.push(slot.restartAt);
      const exitsAt = slot.current && !slot.current.finished ? slot.current.exitsAt : undefined;
      if (exitsAt !== undefined) times.push(exitsAt);
    }
    return times.length ? Math.min(...times) : undefined;
  }

  /** Whether a regular container has ever started (the pod was initialized). */
  get initialized(): boolean {
    return this.slots.some((s) => s.kind === 'regular' && s.instances > 0);
  }

  #graceMs(pod: KubeObject): number {
    const seconds = specOf(pod).terminationGracePeriodSeconds;
    return Math.min((typeof seconds === 'number' ? seconds : 30) * 1000, this.#services.options.gracePeriodCapMs);
  }

  #specContainer(slot: ContainerSlot): JsonObject | undefined {
    const spec = specOf(this.#pod);
    return containersOf(spec, slot.kind === 'regular' ? 'containers' : 'initContainers').find((c) => c.name === slot.name);
  }

  #terminate(at: Moment, graceMs: number): void {
    this.terminating = true;
    const stopAt = at.mono + Math.min(graceMs, this.#services.options.gracePeriodCapMs);
    for (const slot of this.slots) {
      slot.restartAt = undefined;
      slot.restartAfterStop = false;
      if (slot.current && !slot.current.finished) slot.stopAt = Math.min(slot.stopAt ?? Infinity, stopAt);
    }
  }

  /** The current instance exits; unless the pod is being deleted, a restart is planned as the policy says. */
  #exit(slot: ContainerSlot, at: Moment, exitCode: number): void {
    const instance = slot.current;
    if (!instance) return;
    instance.finished = ended(at, exitCode);
    slot.stopAt = undefined;
    if (this.terminating) return;
    if (slot.restartAfterStop) {
      slot.restartAfterStop = false;
      slot.restartAt = at.mono + this.#services.options.startDelayMs;
      slot.restartBackOffMs = undefined;
      return;
    }
    if (!this.#restartsAfter(slot, exitCode)) return;
    // The kubelet's back-off: the first restart is immediate, then it waits, doubling up to a maximum;
    // a container that ran long enough starts over.
    if (!slot.backOff || at.mono - slot.backOff.lastUpdate > 2 * this.#maxBackOffMs) {
      slot.backOff = { ms: this.#services.options.restartBackOffMs, lastUpdate: at.mono };
      slot.restartAt = at.mono;
      slot.restartBackOffMs = undefined;
    } else {
      slot.restartAt = at.mono + slot.backOff.ms;
      slot.restartBackOffMs = slot.backOff.ms;
    }
  }

  /** The kubelet's back-off tops out at 30 times its start (10 s … 5 min). */
  get #maxBackOffMs(): number {
    return this.#services.options.restartBackOffMs * 30;
  }

  #restartsAfter(slot: ContainerSlot, exitCode: number): boolean {
    if (slot.kind === 'sidecar') return true;
    const policy = specOf(this.#pod).restartPolicy;
    if (slot.kind === 'init') return exitCode !== 0 && policy !== 'Never';
    return policy === 'Always' || (policy === 'OnFailure' && exitCode !== 0);
  }

  /** Exits and stops that are due; true if any happened. */
  #endContainers(at: Moment): boolean {
    let changed = false;
    for (const slot of this.slots) {
      const instance = slot.current;
      if (!instance || instance.finished) continue;
      if (slot.stopAt !== undefined && slot.stopAt <= at.mono) {
        this.#exit(slot, at, stopCode(instance));
        changed = true;
      } else if (!this.terminating && (this.#crashes.get(slot.name) ?? 0) > slot.crashes) {
        slot.crashes++;
        this.#exit(slot, at, 1);
        changed = true;
      } else if (instance.exitsAt !== undefined && instance.exitsAt <= at.mono) {
        this.#exit(slot, at, instance.exitCode);
        changed = true;
      }
    }
    return changed;
  }

  #start(slot: ContainerSlot, at: Moment): void {
    const container = this.#specContainer(slot) ?? {};
    const program = containerProgram(container, this.#services.options.sleepScale, slot.kind === 'init', podHostname(this.#pod));
    const specImage = String(container.image ?? '');
    const image = normalizeImage(specImage);
    if (slot.restartBackOffMs !== undefined && slot.backOff) {
      slot.backOff = { ms: Math.min(slot.backOff.ms * 2, this.#maxBackOffMs), lastUpdate: at.mono };
    }
    if (slot.current) slot.previous = slot.current;
    slot.current = {
      id: randomBytes(32).toString('hex'),
      specImage,
      image,
      imageID: imageID(image),
      startedAt: at.wall,
      startedMono: at.mono,
      exitsAt: program.runsForMs === undefined ? undefined : at.mono + program.runsForMs,
      exitCode: program.exitCode,
      ignoresTerm: program.ignoresTerm,
      output: program.output,
    };
    slot.instances++;
    slot.restartAt = undefined;
    slot.restartBackOffMs = undefined;
  }

  /** Starts what may start now, init containers in order first; true if any started. */
  #startContainers(at: Moment): boolean {
    if (this.terminating) return false;
    const due = (slot: ContainerSlot): boolean => !slot.current || (slot.restartAt !== undefined && slot.restartAt <= at.mono);
    let changed = false;
    if (!this.initialized) {
      for (const slot of this.slots) {
        if (slot.kind === 'regular') break;
        if (slot.kind === 'sidecar') {
          if (due(slot)) {
            this.#start(slot, at);
            changed = true;
          }
          if (slot.current?.finished) return changed;
          continue;
        }
        if (slot.current?.finished?.exitCode === 0) continue;
        if (due(slot)) {
          this.#start(slot, at);
          changed = true;
        }
        return changed;
      }
    }
    for (const slot of this.slots) {
      if (slot.kind === 'init' || !due(slot)) continue;
      this.#start(slot, at);
      changed = true;
    }
    return changed;
  }

  /** Nothing runs and nothing will: the main work ended for good, or the pod is being deleted and all stopped. */
  #finished(): boolean {
    const running = (s: ContainerSlot): boolean => s.current !== undefined && !s.current.finished;
    if (this.terminating) return !this.slots.some(running);
    if (!this.initialized) {
      return this.slots.some((s) => s.kind === 'init' && s.current?.finished && s.current.finished.exitCode !== 0 && s.restartAt === undefined);
    }
    const regular = this.slots.filter((s) => s.kind === 'regular');
    return !regular.some((s) => running(s) || s.restartAt !== undefined || !s.current);
  }

  /** The sandbox goes: sidecars still running are stopped, containers that never ran are marked. */
  #finish(at: Moment): void {
    this.terminal = true;
    for (const slot of this.slots) {
      slot.restartAt = undefined;
      slot.stopAt = undefined;
      const instance = slot.current;
      if (instance && !instance.finished) instance.finished = ended(at, stopCode(instance));
      if (!instance) slot.neverRan = true;
    }
    if (this.podIP !== undefined) this.#services.releaseIP(this.podIP);
  }
}
