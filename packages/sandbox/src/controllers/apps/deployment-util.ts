// The arithmetic of k8s.io/kubernetes/pkg/controller/deployment/util as the Deployment controller uses
// it: revisions and the annotations a Deployment shares with its ReplicaSets, maxSurge/maxUnavailable
// resolution (percentages: surge rounded up, unavailable down), the new ReplicaSet's next size, the
// proportions of a scale during a rollout, conditions, and the orderings of ReplicaSets.

import { isJsonObject, jsonEqual, type JsonObject, type KubeObject } from '../../meta/object.ts';
import { formatTimestamp, parseTimestamp } from '../../meta/time.ts';
import { conditionsOf, specReplicas, statusCount } from './workload-fields.ts';

export const revisionAnnotation = 'deployment.kubernetes.io/revision';
export const revisionHistoryAnnotation = 'deployment.kubernetes.io/revision-history';
export const desiredReplicasAnnotation = 'deployment.kubernetes.io/desired-replicas';
export const maxReplicasAnnotation = 'deployment.kubernetes.io/max-replicas';
export const podTemplateHashLabel = 'pod-template-hash';
const lastAppliedConfigAnnotation = 'kubectl.kubernetes.io/last-applied-configuration';
const rollbackToAnnotation = 'deprecated.deployment.rollback.to';
/** The longest revision-history annotation the controller writes. */
export const maxRevisionHistoryLength = 2000;
const maxInt32 = 2 ** 31 - 1;

/** Annotations a Deployment does not pass on to its ReplicaSets (and a rollback does not take back). */
const annotationsToSkip = new Set([lastAppliedConfigAnnotation, revisionAnnotation, revisionHistoryAnnotation, desiredReplicasAnnotation, maxReplicasAnnotation, rollbackToAnnotation]);

// Condition reasons (deploymentutil).
export const reasons = {
  replicaSetUpdated: 'ReplicaSetUpdated',
  failedRSCreate: 'ReplicaSetCreateError',
  newRSCreated: 'NewReplicaSetCreated',
  foundNewRS: 'FoundNewReplicaSet',
  newRSAvailable: 'NewReplicaSetAvailable',
  timedOut: 'ProgressDeadlineExceeded',
  paused: 'DeploymentPaused',
  resumed: 'DeploymentResumed',
  minimumReplicasAvailable: 'MinimumReplicasAvailable',
  minimumReplicasUnavailable: 'MinimumReplicasUnavailable',
} as const;

export interface DeploymentCondition {
  type: string;
  status: string;
  lastUpdateTime?: string;
  lastTransitionTime?: string;
  reason?: string;
  message?: string;
}

/** The Deployment status as the controller computes it (apps/v1 DeploymentStatus). */
export interface DeploymentStatus {
  observedGeneration: number;
  replicas: number;
  updatedReplicas: number;
  readyReplicas: number;
  availableReplicas: number;
  unavailableReplicas: number;
  conditions: DeploymentCondition[];
  collisionCount: number | undefined;
}

const spec = (object: KubeObject): JsonObject => (isJsonObject(object.spec) ? object.spec : {});

export const annotationsOf = (object: KubeObject): Record<string, string> => object.metadata.annotations ?? {};

/** The Deployment status read from an object (zero counters are omitted when stored). */
export function readDeploymentStatus(d: KubeObject): DeploymentStatus {
  const collision = isJsonObject(d.status) ? d.status.collisionCount : undefined;
  return {
    observedGeneration: statusCount(d, 'observedGeneration'),
    replicas: statusCount(d, 'replicas'),
    updatedReplicas: statusCount(d, 'updatedReplicas'),
    readyReplicas: statusCount(d, 'readyReplicas'),
    availableReplicas: statusCount(d, 'availableReplicas'),
    unavailableReplicas: statusCount(d, 'unavailableReplicas'),
    conditions: conditionsOf<DeploymentCondition>(d).map((c) => ({ ...c })),
    collisionCount: typeof collision === 'number' ? collision : undefined,
  };
}

/** The status as JSON in the apps/v1 field order, zero counters omitted (collisionCount is a pointer). */
export function renderDeploymentStatus(status: DeploymentStatus): JsonObject {
  const out: JsonObject = {};
  for (const field of ['observedGeneration', 'replicas', 'updatedReplicas', 'readyReplicas', 'availableReplicas', 'unavailableReplicas'] as const) {
    if (status[field]) out[field] = status[field];
  }
  if (status.conditions.length) out.conditions = status.conditions;
  if (status.collisionCount !== undefined) out.collisionCount = status.collisionCount;
  return out;
}

export const deploymentStatusEqual = (a: DeploymentStatus, b: DeploymentStatus): boolean => jsonEqual(renderDeploymentStatus(a), renderDeploymentStatus(b));

export const isPaused = (d: KubeObject): boolean => spec(d).paused === true;
export const strategyType = (d: KubeObject): string => {
  const strategy = spec(d).strategy;
  return isJsonObject(strategy) && typeof strategy.type === 'string' ? strategy.type : '';
};
export const isRollingUpdate = (d: KubeObject): boolean => strategyType(d) === 'RollingUpdate';

/** HasProgressDeadline: set and not MaxInt32. */
export function progressDeadlineSeconds(d: KubeObject): number | undefined {
  const seconds = spec(d).progressDeadlineSeconds;
  return typeof seconds === 'number' && seconds !== maxInt32 ? seconds : undefined;
}

/** HasRevisionHistoryLimit: set and not MaxInt32. */
export function revisionHistoryLimit(d: KubeObject): number | undefined {
  const limit = spec(d).revisionHistoryLimit;
  return typeof limit === 'number' && limit !== maxInt32 ? limit : undefined;
}

/** intstr.GetScaledValueFromIntOrPercent. */
export function scaledValue(value: unknown, total: number, roundUp: boolean): number {
  if (typeof value === 'number') return value;
  if (typeof value === 'string') {
    if (!value.endsWith('%')) throw new Error('invalid value for IntOrString: invalid type: string is not a percentage');
    const percent = Number.parseInt(value.slice(0, -1), 10);
    if (Number.isNaN(percent)) throw new Error(`invalid value "${value}": strconv.Atoi: parsing "${value.slice(0, -1)}": invalid syntax`);
    const scaled = (percent * total) / 100;
    return roundUp ? Math.ceil(scaled) : Math.floor(scaled);
  }
  return 0;
}

const rollingUpdate = (d: KubeObject): JsonObject => {
  const strategy = spec(d).strategy;
  return isJsonObject(strategy) && isJsonObject(strategy.rollingUpdate) ? strategy.rollingUpdate : {};
};

/** ResolveFenceposts: maxSurge and maxUnavailable as pod counts; never both zero. */
export function resolveFenceposts(maxSurge: unknown, maxUnavailable: unknown, desired: number): { surge: number; unavailable: number } {
  const surge = scaledValue(maxSurge ?? 0, desired, true);
  let unavailable = scaledValue(maxUnavailable ?? 0, desired, false);
  if (surge === 0 && unavailable === 0) unavailable = 1;
  return { surge, unavailable };
}

export function maxSurge(d: KubeObject): number {
  if (!isRollingUpdate(d)) return 0;
  const ru = rollingUpdate(d);
  return resolveFenceposts(ru.maxSurge, ru.maxUnavailable, specReplicas(d)).surge;
}

export function maxUnavailable(d: KubeObject): number {
  const replicas = specReplicas(d);
  if (!isRollingUpdate(d) || replicas === 0) return 0;
  const ru = rollingUpdate(d);
  return Math.min(resolveFenceposts(ru.maxSurge, ru.maxUnavailable, replicas).unavailable, replicas);
}

/** Revision: the revision annotation as an integer (0 when absent); undefined when it does not parse. */
export function revisionOf(object: KubeObject): number | undefined {
  const text = annotationsOf(object)[revisionAnnotation];
  if (text === undefined) return 0;
  return /^[+-]?\d+$/.test(text) ? Number(text) : undefined;
}

export function maxRevision(replicaSets: readonly KubeObject[]): number {
  return replicaSets.reduce((max, rs) => Math.max(max, revisionOf(rs) ?? 0), 0);
}

const creationTime = (o: KubeObject): number => parseTimestamp(o.metadata.creationTimestamp) ?? 0;

/** ReplicaSetsByCreationTimestamp: older first, then by name. */
export function byCreation(a: KubeObject, b: KubeObject): number {
  const diff = creationTime(a) - creationTime(b);
  if (diff !== 0) return diff;
  const na = a.metadata.name ?? '';
  const nb = b.metadata.name ?? '';
  return na < nb ? -1 : na > nb ? 1 : 0;
}

/** ReplicaSetsByRevision: lower revision first; ties and unparsable ones by creation. */
export function byRevision(a: KubeObject, b: KubeObject): number {
  const ra = revisionOf(a);
  const rb = revisionOf(b);
  if (ra === undefined || rb === undefined || ra === rb) return byCreation(a, b);
  return ra - rb;
}

/** ReplicaSetsBySizeNewer (larger first, newer first among equals), for scaling up. */
export const bySizeNewer = (a: KubeObject, b: KubeObject): number => specReplicas(b) - specReplicas(a) || byCreation(b, a);
/** ReplicaSetsBySizeOlder (larger first, older first among equals), for scaling down. */
export const bySizeOlder = (a: KubeObject, b: KubeObject): number => specReplicas(b) - specReplicas(a) || byCreation(a, b);

export const replicaCount = (sets: readonly (KubeObject | undefined)[]): number => sets.reduce((n, rs) => n + (rs ? specReplicas(rs) : 0), 0);
export const statusSum = (sets: readonly (KubeObject | undefined)[], field: string): number => sets.reduce((n, rs) => n + (rs ? statusCount(rs, field) : 0), 0);
export const activeReplicaSets = (sets: readonly (KubeObject | undefined)[]): KubeObject[] => sets.filter((rs): rs is KubeObject => !!rs && specReplicas(rs) > 0);

/** A template without the pod-template-hash label, nulls and empty lists and maps dropped (semantic equality). */
function normalizedTemplate(template: unknown): unknown {
  const normalize = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(normalize);
    if (!isJsonObject(value)) return value;
    const out: JsonObject = {};
    for (const [k, v] of Object.entries(value)) {
      if (v === null || v === undefined || (Array.isArray(v) && v.length === 0)) continue;
      if ((k === 'labels' || k === 'annotations' || k === 'nodeSelector') && isJsonObject(v) && Object.keys(v).length === 0) continue;
      out[k] = normalize(v);
    }
    return out;
  };
  const copy = normalize(template);
  if (isJsonObject(copy) && isJsonObject(copy.metadata) && isJsonObject(copy.metadata.labels)) {
    const labels = { ...copy.metadata.labels };
    delete labels[podTemplateHashLabel];
    copy.metadata = { ...copy.metadata };
    if (Object.keys(labels).length) (copy.metadata as JsonObject).labels = labels;
    else delete (copy.metadata as JsonObject).labels;
  }
  return copy;
}

export const templateOf = (object: KubeObject): unknown => spec(object).template;

/** EqualIgnoreHash: two pod templates equal but for the pod-template-hash label. */
export const equalIgnoreHash = (a: unknown, b: unknown): boolean => jsonEqual(normalizedTemplate(a), normalizedTemplate(b));

/** FindNewReplicaSet: the oldest ReplicaSet whose template is the Deployment's. */
export function findNewReplicaSet(d: KubeObject, replicaSets: readonly KubeObject[]): KubeObject | undefined {
  return [...replicaSets].sort(byCreation).find((rs) => equalIgnoreHash(templateOf(rs), templateOf(d)));
}

/** FindOldReplicaSets: every other ReplicaSet. */
export function findOldReplicaSets(d: KubeObject, replicaSets: readonly KubeObject[]): KubeObject[] {
  const newRS = findNewReplicaSet(d, replicaSets);
  return replicaSets.filter((rs) => rs.metadata.uid !== newRS?.metadata.uid);
}

/** copyDeploymentAnnotationsToReplicaSet; answers whether anything changed. */
function copyDeploymentAnnotations(d: KubeObject, rs: KubeObject): boolean {
  const annotations = (rs.metadata.annotations ??= {});
  let changed = false;
  for (const [k, v] of Object.entries(annotationsOf(d))) {
    if (annotationsToSkip.has(k) || annotations[k] === v) continue;
    annotations[k] = v;
    changed = true;
  }
  return changed;
}

/** SetReplicasAnnotations; answers whether anything changed. */
export function setReplicasAnnotations(rs: KubeObject, desired: number, max: number): boolean {
  const annotations = (rs.metadata.annotations ??= {});
  let changed = false;
  if (annotations[desiredReplicasAnnotation] !== String(desired)) {
    annotations[desiredReplicasAnnotation] = String(desired);
    changed = true;
  }
  if (annotations[maxReplicasAnnotation] !== String(max)) {
    annotations[maxReplicasAnnotation] = String(max);
    changed = true;
  }
  return changed;
}

export function replicasAnnotationsNeedUpdate(rs: KubeObject, desired: number, max: number): boolean {
  const annotations = annotationsOf(rs);
  return annotations[desiredReplicasAnnotation] !== String(desired) || annotations[maxReplicasAnnotation] !== String(max);
}

/**
 * SetNewReplicaSetAnnotations: the Deployment's annotations, the new revision (an older revision moves
 * into revision-history, bounded to 2000 characters), and for a ReplicaSet about to be created the
 * desired and max replicas. Edits `rs`; answers whether anything changed.
 */
export function setNewReplicaSetAnnotations(d: KubeObject, rs: KubeObject, newRevision: number, exists: boolean): boolean {
  let changed = copyDeploymentAnnotations(d, rs);
  const annotations = (rs.metadata.annotations ??= {});
  const oldRevisionText = annotations[revisionAnnotation];
  const had = oldRevisionText !== undefined;
  let oldRevision = 0;
  if (had && oldRevisionText !== '') {
    if (!/^[+-]?\d+$/.test(oldRevisionText)) return false;
    oldRevision = Number(oldRevisionText);
  }
  if (oldRevision < newRevision) {
    annotations[revisionAnnotation] = String(newRevision);
    changed = true;
  }
  if (had && oldRevision < newRevision) {
    const history = annotations[revisionHistoryAnnotation] ?? '';
    const oldRevisions = history.split(',');
    if ((oldRevisions[0] ?? '').length === 0) {
      annotations[revisionHistoryAnnotation] = oldRevisionText;
    } else {
      let totalLength = history.length + oldRevisionText.length + 1;
      let start = 0;
      while (totalLength > maxRevisionHistoryLength && start < oldRevisions.length) {
        totalLength -= (oldRevisions[start] ?? '').length + 1;
        start++;
      }
      if (totalLength <= maxRevisionHistoryLength) annotations[revisionHistoryAnnotation] = [...oldRevisions.slice(start), oldRevisionText].join(',');
    }
  }
  if (!exists && setReplicasAnnotations(rs, specReplicas(d), specReplicas(d) + maxSurge(d))) changed = true;
  return changed;
}

/** SetDeploymentRevision; answers whether it changed. */
export function setDeploymentRevision(d: KubeObject, revision: string): boolean {
  const annotations = (d.metadata.annotations ??= {});
  if (annotations[revisionAnnotation] === revision) return false;
  annotations[revisionAnnotation] = revision;
  return true;
}

/** NewRSNewReplicas: how far the new ReplicaSet may grow now. */
export function newReplicaSetReplicas(d: KubeObject, allReplicaSets: readonly (KubeObject | undefined)[], newRS: KubeObject): number {
  const type = strategyType(d);
  if (type === 'Recreate') return specReplicas(d);
  if (type !== 'RollingUpdate') throw new Error(`deployment type ${type} isn't supported`);
  const surge = scaledValue(rollingUpdate(d).maxSurge, specReplicas(d), true);
  const current = replicaCount(allReplicaSets);
  const maxTotal = specReplicas(d) + surge;
  if (current >= maxTotal) return specReplicas(newRS);
  const scaleUp = Math.min(maxTotal - current, specReplicas(d) - specReplicas(newRS));
  return specReplicas(newRS) + scaleUp;
}

/** IsSaturated: the new ReplicaSet runs every desired replica, available. */
export function isSaturated(d: KubeObject, rs: KubeObject | undefined): boolean {
  if (!rs) return false;
  const desiredText = annotationsOf(rs)[desiredReplicasAnnotation] ?? '';
  if (!/^[+-]?\d+$/.test(desiredText)) return false;
  const replicas = specReplicas(d);
  return specReplicas(rs) === replicas && Number(desiredText) === replicas && statusCount(rs, 'availableReplicas') === replicas;
}

/** FindActiveOrLatest: the only active ReplicaSet, or the newest when none is active. */
export function findActiveOrLatest(newRS: KubeObject | undefined, oldRSs: readonly KubeObject[]): KubeObject | undefined {
  if (!newRS && oldRSs.length === 0) return undefined;
  const newestFirst = [...oldRSs].sort((a, b) => byCreation(b, a));
  const active = activeReplicaSets([...newestFirst, newRS]);
  if (active.length === 0) return newRS ?? newestFirst[0];
  return active.length === 1 ? active[0] : undefined;
}

/** RoundToInt32: half away from zero. */
const roundHalfAway = (x: number): number => (x < 0 ? Math.ceil(x - 0.5) : Math.floor(x + 0.5));

/** getReplicaSetFraction: this ReplicaSet's share of a Deployment scale. */
function replicaSetFraction(rs: KubeObject, d: KubeObject): number {
  if (specReplicas(d) === 0) return -specReplicas(rs);
  const maxReplicas = specReplicas(d) + maxSurge(d);
  const annotated = annotationsOf(rs)[maxReplicasAnnotation];
  let before = annotated !== undefined && /^[+-]?\d+$/.test(annotated) ? Number(annotated) : 0;
  // Scaled by hand at some point: the Deployment's current size is the best estimate.
  if (before === 0) before = statusCount(d, 'replicas');
  if (before === 0) return 0;
  return roundHalfAway((specReplicas(rs) * maxReplicas) / before) - specReplicas(rs);
}

/** GetProportion: how many replicas this ReplicaSet gains (or loses) in a proportional scale. */
export function proportion(rs: KubeObject, d: KubeObject, toAdd: number, added: number): number {
  if (specReplicas(rs) === 0 || toAdd === 0 || toAdd === added) return 0;
  const fraction = replicaSetFraction(rs, d);
  const allowed = toAdd - added;
  return toAdd > 0 ? Math.min(fraction, allowed) : Math.max(fraction, allowed);
}

export const conditionOf = (status: DeploymentStatus, type: string): DeploymentCondition | undefined => status.conditions.find((c) => c.type === type);

export function newCondition(type: string, status: string, reason: string, message: string, now: number): DeploymentCondition {
  const time = formatTimestamp(now);
  return { type, status, lastUpdateTime: time, lastTransitionTime: time, reason, message };
}

/** SetDeploymentCondition: replaces the condition of that type unless status and reason are the same. */
export function setCondition(status: DeploymentStatus, condition: DeploymentCondition): void {
  const current = conditionOf(status, condition.type);
  if (current && current.status === condition.status && current.reason === condition.reason) return;
  if (current && current.status === condition.status) condition.lastTransitionTime = current.lastTransitionTime;
  status.conditions = [...status.conditions.filter((c) => c.type !== condition.type), condition];
}

export function removeCondition(status: DeploymentStatus, type: string): void {
  status.conditions = status.conditions.filter((c) => c.type !== type);
}

/** DeploymentComplete: every replica updated and available, the latest generation observed. */
export function deploymentComplete(d: KubeObject, status: DeploymentStatus): boolean {
  const replicas = specReplicas(d);
  return status.updatedReplicas === replicas && status.replicas === replicas && status.availableReplicas === replicas && status.observedGeneration >= (d.metadata.generation ?? 0);
}

/** DeploymentProgressing: more updated, fewer old, more ready or more available replicas than before. */
export function deploymentProgressing(d: KubeObject, status: DeploymentStatus): boolean {
  const old = readDeploymentStatus(d);
  return (
    status.updatedReplicas > old.updatedReplicas ||
    status.replicas - status.updatedReplicas < old.replicas - old.updatedReplicas ||
    status.readyReplicas > old.readyReplicas ||
    status.availableReplicas > old.availableReplicas
  );
}

/** DeploymentTimedOut: no progress reported within progressDeadlineSeconds. */
export function deploymentTimedOut(d: KubeObject, status: DeploymentStatus, now: number): boolean {
  const deadline = progressDeadlineSeconds(d);
  if (deadline === undefined) return false;
  const condition = conditionOf(status, 'Progressing');
  if (!condition || condition.reason === reasons.newRSAvailable) return false;
  if (condition.reason === reasons.timedOut) return true;
  const from = parseTimestamp(condition.lastUpdateTime) ?? 0;
  return from + deadline * 1000 < now;
}
