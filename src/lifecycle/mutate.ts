// The admission mutation of PodOpsLifecycle for CREATE and UPDATE of pods and pods/status
// (Kuperator's behaviour, docs/protocol.md). `lifecyclePass` is upstream's algorithm: every decision reads one snapshot
// of the labels, so labels added during the pass do not feed back (except that IDs turned operated in
// step 7 count towards step 8). `mutatePod` repeats the pass until nothing changes.
//
// Divergence from upstream: upstream runs one pass per request, so its mutation is not idempotent: a pass
// that adds `completing` leaves the cleanup to the next write of the pod, and an undo leaves the other IDs
// waiting for the next write. Repeating to a fixpoint makes the mutation idempotent and folds those
// transitions into the request that enables them. Cooperation controllers see the same labels: cleanup
// still waits for every expected finalizer, so `completing` stays visible to any controller that declared one.

import type { JsonPatchOperation, Pod } from '../api/kube.ts';
import { CLEANUP_WORDS, ID_LABEL_WORDS, SERVICE_AVAILABLE_LABEL, SERVICE_READY_GATE } from '../api/protocol.ts';
import { LabelDraft, diffLabels, labelMap, labelPatch, type LabelChange, type LabelSource } from './labels.ts';
import { lifecycleKeys, parseLifecycles, permissionKey, type PodLifecycles } from './parse.ts';
import { hasServiceReadyGate, isControlled, missingExpectedFinalizers, readyToOperate } from './pod.ts';
import { SERVICE_AVAILABLE_REPLACES, becomesServiceAvailable } from './service-available.ts';
import type { Nanos } from './time.ts';

export type PodWriteOperation = 'CREATE' | 'UPDATE';

export interface MutationInput {
  operation: PodWriteOperation;
  /** The incoming object (for `pods/status` too: its conditions and finalizers decide readyToOperate). */
  pod: Pod;
  /** The stored object; undefined on CREATE. `done-operation-type` is copied from its `operation-type`. */
  oldPod: Pod | undefined;
  now: Nanos;
}

export interface Mutation {
  /** The resulting labels (a new object). */
  labels: Record<string, string>;
  changes: LabelChange[];
  /** The service-ready readiness gate is injected (CREATE of a controlled pod without it). */
  readinessGateAdded: boolean;
  /** RFC 6902 operations to send back in the AdmissionResponse. */
  patch: JsonPatchOperation[];
}

/** A lifecycle moves at most pre-check -> preparing/operate -> operated -> completing -> cleanup per request. */
const MAX_PASSES = 8;

/**
 * Computes the mutation. Pods without `kusionstack.io/control=true` are untouched. Throws InvalidLabelError
 * for a malformed lifecycle key and InvalidAnnotationError for a malformed available-conditions annotation
 * when it has to be read (the webhook answers both with an error, as upstream does).
 */
export function mutatePod(input: MutationInput): Mutation {
  const { pod, operation } = input;
  if (!isControlled(pod)) return { labels: { ...pod.metadata.labels }, changes: [], readinessGateAdded: false, patch: [] };

  const readinessGateAdded = operation === 'CREATE' && !hasServiceReadyGate(pod);
  const request = new RequestFacts(input);
  let labels: LabelSource = pod.metadata.labels ?? {};
  for (let pass = 1; ; pass++) {
    const draft: LabelDraft = new LabelDraft(labels);
    runPass(draft, labels, request);
    if (!draft.dirty) break;
    if (pass === MAX_PASSES) throw new Error(`lifecycle mutation found no fixpoint after ${MAX_PASSES} passes: ${JSON.stringify(Object.fromEntries(labelMap(labels)))}`);
    labels = draft.view();
  }
  labels = withServiceAvailable(pod, labels, request.stamp);

  const changes = diffLabels(pod.metadata.labels, labels);
  const patch = labelPatch(pod.metadata.labels, changes);
  if (readinessGateAdded) patch.push(readinessGatePatch(pod));
  return { labels: Object.fromEntries(labelMap(labels)), changes, readinessGateAdded, patch };
}

/**
 * Divergence from upstream (folded write): when this request cleans up the pod's last lifecycle (so every expected
 * finalizer is back) and the pod is Ready, it also gets `service-available`, which the lifecycle controller
 * would otherwise add in a write of its own right after, under the same rule (service-available.ts). An undone
 * lifecycle whose cooperation controllers have not yet put their finalizers back is left to the controller.
 */
function withServiceAvailable(pod: Pod, labels: LabelSource, stamp: string): LabelSource {
  const incoming = pod.metadata.labels ?? {};
  if (labels === incoming || parseLifecycles(incoming).byId.size === 0 || !becomesServiceAvailable(pod, parseLifecycles(labels))) return labels;
  const draft = new LabelDraft(labels);
  draft.set(SERVICE_AVAILABLE_LABEL, stamp);
  for (const key of SERVICE_AVAILABLE_REPLACES) draft.delete(key);
  return draft.view();
}

/**
 * One pass of upstream's algorithm over `labels` (the incoming pod's conditions and finalizers decide
 * readyToOperate and cleanup). Returns the resulting labels; exactly what Kuperator's webhook does in one
 * request.
 */
export function lifecyclePass(labels: LabelSource, input: MutationInput): Record<string, string> {
  const draft = new LabelDraft(labels);
  runPass(draft, labels, new RequestFacts(input));
  return draft.result();
}

/** What a pass reads besides the labels: fixed for the whole request, so computed at most once. */
class RequestFacts {
  readonly stamp: string;
  readonly #input: MutationInput;
  #ready: boolean | undefined;
  #satisfied: boolean | undefined;
  #oldLifecycles: PodLifecycles['byId'] | undefined;

  constructor(input: MutationInput) {
    this.#input = input;
    this.stamp = input.now.toString();
  }

  /** readyToOperate of the incoming object. */
  get readyToOperate(): boolean {
    return (this.#ready ??= readyToOperate(this.#input.pod));
  }

  /** Every expected finalizer of the incoming object is present. */
  get expectedFinalizersPresent(): boolean {
    return (this.#satisfied ??= missingExpectedFinalizers(this.#input.pod).length === 0);
  }

  /** The stored object's lifecycles (empty on CREATE). */
  get oldLifecycles(): PodLifecycles['byId'] {
    return (this.#oldLifecycles ??= this.#input.oldPod ? parseLifecycles(this.#input.oldPod.metadata.labels).byId : new Map());
  }
}

function readinessGatePatch(pod: Pod): JsonPatchOperation {
  const gate = { conditionType: SERVICE_READY_GATE };
  if (pod.spec === undefined) return { op: 'add', path: '/spec', value: { readinessGates: [gate] } };
  if (pod.spec.readinessGates === undefined) return { op: 'add', path: '/spec/readinessGates', value: [gate] };
  return { op: 'add', path: '/spec/readinessGates/-', value: gate };
}

function runPass(draft: LabelDraft, labels: LabelSource, request: RequestFacts): void {
  const { stamp } = request;
  const snapshot = parseLifecycles(labels);
  const numIds = snapshot.byId.size;
  let operatingCount = 0;
  let reachedOperateCount = 0;
  let operatedCount = 0;
  let completingCount = 0;
  const undoneTypes = new Set<string>();

  for (const { id, labels } of snapshot.byId.values()) {
    const keys = lifecycleKeys(id);
    const undoType = labels['undo-operation-type'];
    if (undoType !== undefined) {
      undoneTypes.add(undoType);
      for (const word of ID_LABEL_WORDS) draft.delete(keys[word]);
      continue;
    }

    if (labels.operating !== undefined) {
      operatingCount++;
      if (labels['pre-checked'] !== undefined) {
        draft.delete(keys['pre-check']);
        if (labels.preparing === undefined && labels.operate === undefined) {
          draft.delete(SERVICE_AVAILABLE_LABEL);
          draft.set(keys.preparing, stamp);
        }
        if (labels.operate === undefined && request.readyToOperate) {
          draft.delete(keys.preparing);
          draft.set(keys.operate, stamp);
        }
      } else if (labels['pre-check'] === undefined) {
        draft.set(keys['pre-check'], stamp);
      }
    }

    if (labels['post-checked'] !== undefined) {
      draft.delete(keys['post-check']);
      draft.setIfAbsent(keys.completing, stamp);
    }

    // Divergence from upstream: an ID already operated also counts as having reached operate. Upstream
    // counts only `operate`, so an ID that begins after another is operated never becomes operated itself.
    if (labels.operate !== undefined || labels.operated !== undefined) reachedOperateCount++;
    if (labels.operated !== undefined) operatedCount++;
    if (labels.completing !== undefined) completingCount++;
  }

  // Divergence from upstream, which drops the permission only when every ID of the type is undone: an
  // undo that leaves only IDs of that type not yet pre-checked (or already operated) would then keep a
  // permission without any pre-checked, which validation denies, so the undo could never be written.
  for (const type of undoneTypes) {
    const held = [...snapshot.byId.values()].some(
      ({ labels }) => labels['undo-operation-type'] === undefined && labels['operation-type'] === type && labels['pre-checked'] !== undefined,
    );
    if (!held) draft.delete(permissionKey(type));
  }

  // Lifecycles that have finished operating wait here until every ID on the pod has released `operating`.
  if (operatingCount > 0) return;

  if (completingCount === numIds) {
    if (!request.expectedFinalizersPresent) return;
    for (const id of snapshot.byId.keys()) {
      const keys = lifecycleKeys(id);
      for (const word of CLEANUP_WORDS) draft.delete(keys[word]);
    }
    return;
  }

  if (reachedOperateCount === numIds) {
    for (const { id, labels } of snapshot.byId.values()) {
      const keys = lifecycleKeys(id);
      draft.delete(keys['pre-checked']);
      if (labels.operated === undefined) {
        draft.delete(keys.operate);
        draft.set(keys.operated, stamp);
        operatedCount++;
      }
      // The type comes from the stored object, as upstream; the incoming one is the fallback (e.g. a pod
      // created with operate and operation-type), where upstream leaves operated without its pair.
      const type = request.oldLifecycles.get(id)?.labels['operation-type'] ?? labels['operation-type'];
      if (type === undefined) continue;
      draft.delete(permissionKey(type));
      draft.delete(keys['operation-type']);
      draft.set(keys['done-operation-type'], type);
    }
  }

  if (operatedCount === numIds) {
    for (const { id, labels } of snapshot.byId.values()) {
      if (labels['post-check'] === undefined && labels['post-checked'] === undefined) {
        draft.set(lifecycleKeys(id)['post-check'], stamp);
      }
    }
  }
}
