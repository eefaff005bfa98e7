// The operation-controller API (Kuperator's controllers/utils/podopslifecycle): an operation controller
// begins a lifecycle, waits for AllowOps, operates, then finishes (or undoes). These are pure transforms;
// `OperationClient` writes them.

import type { Pod } from '../api/kube.ts';
import {
  OPERATION_TYPE_DELETE,
  OPERATION_TYPE_EVICT,
  POD_DELETE_LIFECYCLE_ID,
  POD_EVICTION_LIFECYCLE_ID,
  PREPARING_TO_DELETE_LABEL,
  TO_DELETE_LABEL,
  TO_EVICT_LABEL,
  idLabelKey,
  idLabelPrefix,
} from '../api/protocol.ts';
import { parseLifecycles } from '../lifecycle/parse.ts';
import { parseNanos, NANOS_PER_SECOND, NANOS_PER_MILLI, type Nanos } from '../lifecycle/time.ts';
import { draftOf, labelsOf, type PodChange } from './pod-change.ts';

/** Mutates the pod draft (labels, annotations, ...) and says whether it changed anything. */
export type PodUpdateFunc = (pod: Pod, now: Nanos) => boolean;

export interface LifecycleAdapter {
  /** The lifecycle ID: the name part of every per-ID label key, so a valid label name of at most 63 characters. */
  id: string;
  /** The operation type, e.g. `update`, `scale-in`, `delete`. */
  type: string;
  /** Whether another ID of the same type may already be on the pod when this one begins. */
  allowMultiType: boolean;
  /** Runs on every begin; returning true forces a write. */
  whenBegin?: PodUpdateFunc;
  /** Runs on every finish; returning true forces a write. */
  whenFinish?: PodUpdateFunc;
}

export class OperationTypeConflictError extends Error {
  readonly type: string;
  readonly keys: string[];
  constructor(type: string, keys: string[]) {
    // Go's %v of a []string: `[a b]`.
    super(`operationType ${type} exists: [${keys.join(' ')}]`);
    this.name = 'OperationTypeConflictError';
    this.type = type;
    this.keys = keys;
  }
}

const typeKey = (adapter: LifecycleAdapter): string => idLabelKey('operation-type', adapter.id);

/** True from begin until finish: `operating/<id>` is present and `operation-type/<id>` is the adapter's type. */
export function isDuringOps(adapter: LifecycleAdapter, pod: Pod): boolean {
  const labels = pod.metadata.labels ?? {};
  return labels[idLabelKey('operating', adapter.id)] !== undefined && labels[typeKey(adapter)] === adapter.type;
}

/** The ID has a lifecycle on the pod (it shows up in operating, operate or operated). */
export function hasLifecycle(id: string, pod: Pod): boolean {
  const labels = pod.metadata.labels ?? {};
  return (['operating', 'operate', 'operated'] as const).some((word) => labels[idLabelKey(word, id)] !== undefined);
}

/**
 * How many lifecycles the pod carries, of any ID (upstream NumOfLifecycleOnPod), e.g. to begin only on a
 * pod no other operation holds. Throws InvalidLabelError for a malformed lifecycle key.
 */
export function lifecycleCount(pod: Pod): number {
  return parseLifecycles(pod.metadata.labels).byId.size;
}

function runHooks(pod: Pod, now: Nanos, funcs: readonly (PodUpdateFunc | undefined)[]): boolean {
  let changed = false;
  for (const fn of funcs) if (fn && fn(pod, now)) changed = true;
  return changed;
}

/**
 * Begin: sets `operating/<id>` and `operation-type/<id>` (a different type on the same ID is overwritten),
 * then runs `updates` and `whenBegin`. Throws OperationTypeConflictError when another ID already has this
 * type and the adapter does not allow several. Calling it again after a successful begin changes nothing
 * unless a hook says so.
 */
export function begin(adapter: LifecycleAdapter, pod: Pod, now: Nanos, ...updates: PodUpdateFunc[]): PodChange {
  const draft = draftOf(pod);
  const labels = labelsOf(draft);
  let changed = false;
  if (!isDuringOps(adapter, draft)) {
    const typePrefix = `${idLabelPrefix('operation-type')}/`;
    const sameType = Object.keys(labels)
      .filter((k) => k.startsWith(typePrefix) && k !== typeKey(adapter) && labels[k] === adapter.type)
      .sort();
    if (sameType.length > 0 && !adapter.allowMultiType) throw new OperationTypeConflictError(adapter.type, sameType);
    const operatingKey = idLabelKey('operating', adapter.id);
    if (labels[operatingKey] === undefined) {
      labels[operatingKey] = now.toString();
      changed = true;
    }
    if (labels[typeKey(adapter)] !== adapter.type) {
      labels[typeKey(adapter)] = adapter.type;
      changed = true;
    }
  }
  if (runHooks(draft, now, [...updates, adapter.whenBegin])) changed = true;
  return { pod: draft, changed };
}

/**
 * Finish: removes only `operating/<id>` (the webhook turns the type into done-operation-type), then runs
 * `updates` and `whenFinish`.
 */
export function finish(adapter: LifecycleAdapter, pod: Pod, now: Nanos, ...updates: PodUpdateFunc[]): PodChange {
  const draft = draftOf(pod);
  const labels = labelsOf(draft);
  const operatingKey = idLabelKey('operating', adapter.id);
  let changed = false;
  if (labels[operatingKey] !== undefined) {
    delete labels[operatingKey];
    changed = true;
  }
  if (runHooks(draft, now, [...updates, adapter.whenFinish])) changed = true;
  return { pod: draft, changed };
}

/** Undo: sets `undo-operation-type/<id>=<type>`; the webhook then removes every label of the ID. Always written. */
export function undo(adapter: LifecycleAdapter, pod: Pod): PodChange {
  const draft = draftOf(pod);
  labelsOf(draft)[idLabelKey('undo-operation-type', adapter.id)] = adapter.type;
  return { pod: draft, changed: true };
}

/** The labels that ask for a pod's deletion; `preparing-to-delete` stays while one of them does. */
const DELETION_MARKS = [TO_DELETE_LABEL, TO_EVICT_LABEL];

/**
 * Withdraws a deletion that is no longer wanted: the adapter's lifecycle is undone (if it began), and the mark
 * that asked for it (a label and its annotations) removed, with `preparing-to-delete` once no mark is left.
 */
export function withdraw(adapter: LifecycleAdapter, pod: Pod, mark: { label: string; annotations: readonly string[] }): PodChange {
  const draft = hasLifecycle(adapter.id, pod) ? undo(adapter, pod).pod : draftOf(pod);
  const labels = labelsOf(draft);
  delete labels[mark.label];
  if (!DELETION_MARKS.some((key) => labels[key] !== undefined)) delete labels[PREPARING_TO_DELETE_LABEL];
  for (const key of mark.annotations) delete draft.metadata.annotations?.[key];
  return { pod: draft, changed: true };
}

export interface AllowOpsResult {
  allowed: boolean;
  /** Set while `operationDelaySeconds` has not yet passed since `operate/<id>`: ask again after this long. */
  requeueAfterMs?: number;
}

/**
 * Whether the operation controller may operate now: during ops, `operate/<id>` present, and at least
 * `operationDelaySeconds` passed since its timestamp. During the delay the answer is "not yet" with the
 * remaining time (kube-xset's semantics; Kuperator answers allowed=true with a requeue, which callers must
 * treat as "not yet" anyway). An unparsable timestamp allows, as upstream.
 */
export function allowOps(adapter: LifecycleAdapter, operationDelaySeconds: number, pod: Pod, now: Nanos): AllowOpsResult {
  if (!isDuringOps(adapter, pod)) return { allowed: false };
  const operate = pod.metadata.labels?.[idLabelKey('operate', adapter.id)];
  if (operate === undefined) return { allowed: false };
  if (operationDelaySeconds <= 0) return { allowed: true };
  const startedAt = parseNanos(operate);
  if (startedAt === undefined) return { allowed: true };
  const remaining = startedAt + BigInt(Math.trunc(operationDelaySeconds)) * NANOS_PER_SECOND - now;
  if (remaining > 0n) return { allowed: false, requeueAfterMs: Number((remaining + NANOS_PER_MILLI - 1n) / NANOS_PER_MILLI) };
  return { allowed: true };
}

/** The ready-made begin hook of lifecycles that end in deletion: `preparing-to-delete=<now>` if absent. */
export const whenBeginDelete: PodUpdateFunc = (pod, now) => {
  const labels = labelsOf(pod);
  if (labels[PREPARING_TO_DELETE_LABEL] !== undefined) return false;
  labels[PREPARING_TO_DELETE_LABEL] = now.toString();
  return true;
};

/**
 * The `pod-delete` lifecycle of type `delete`: what GraceDelete and the pod-deletion controller run before a
 * pod marked `collaset.kusionstack.io/to-delete` is deleted.
 */
export const podDeleteAdapter: LifecycleAdapter = {
  id: POD_DELETE_LIFECYCLE_ID,
  type: OPERATION_TYPE_DELETE,
  allowMultiType: true,
  whenBegin: whenBeginDelete,
};

/**
 * The `pod-eviction` lifecycle of type `evict` (podops' addition): what an eviction of a controlled pod waits for.
 * It ends in a deletion too (the API server's, on the eviction's retry), so cooperation controllers see
 * `preparing-to-delete` as for any deletion.
 */
export const podEvictionAdapter: LifecycleAdapter = {
  id: POD_EVICTION_LIFECYCLE_ID,
  type: OPERATION_TYPE_EVICT,
  allowMultiType: true,
  whenBegin: whenBeginDelete,
};

/**
 * A lifecycle ID from a name: the name itself when it fits a label name (63 characters), else `0x` and the
 * unpadded hex of its 32-bit FNV-1a hash, as Kuperator's OperationJob derives IDs.
 */
export function lifecycleIdFor(name: string): string {
  if (name.length <= 63) return name;
  let hash = 0x811c9dc5;
  for (const byte of Buffer.from(name, 'utf8')) {
    hash ^= byte;
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return `0x${hash.toString(16)}`;
}
