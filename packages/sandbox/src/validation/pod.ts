// Pods: create, update (the strict immutability of a pod spec), status and ephemeral container
// updates, as ValidatePodCreate, ValidatePodUpdate, ValidatePodStatusUpdate and
// ValidatePodEphemeralContainersUpdate check them.

import { fieldForbidden, fieldInvalid, fieldRequired, type FieldError } from '../errors.ts';
import { FIELD_IMMUTABLE, validateObjectMetaCreate, validateObjectMetaUpdate } from './meta.ts';
import { podSpecDiff } from './golang.ts';
import { asArray, asNumber, asObject, asString, asStringMap, isPresent, objectList, semanticEqual } from './json.ts';
import { validateImagesTrimmed } from './containers.ts';
import { isValidIP } from './network.ts';
import { inclusiveRangeError, isQualifiedName, nameIsDNSSubdomain } from './names.ts';
import { validatePodSpec, validatePodSpecificAnnotations, validateTolerations } from './pod-spec.ts';

const MAX_INT32 = 2147483647;
const MIRROR_ANNOTATION = 'kubernetes.io/config.mirror';

/** The fields `kubectl edit` users may change, as the Forbidden message lists them. */
const updatablePodSpecFields = [
  '`spec.containers[*].image`',
  '`spec.initContainers[*].image`',
  '`spec.activeDeadlineSeconds`',
  '`spec.tolerations` (only additions to existing tolerations)',
  '`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)',
];
export const POD_UPDATE_FORBIDDEN_PREFIX = `pod updates may not change fields other than ${updatablePodSpecFields.join(',')}`;

/** validatePodMetadataAndSpec, shared by create and update. */
function validatePodMetadataAndSpec(pod: Record<string, unknown>): FieldError[] {
  const meta = asObject(pod.metadata);
  const spec = asObject(pod.spec);
  const errs = validateObjectMetaCreate(meta, { namespaced: true, standardFinalizerNames: true });
  errs.push(...validatePodSpecificAnnotations(meta.annotations, spec, 'metadata.annotations'));
  errs.push(...validatePodSpec(spec, 'spec', { resourceIsPod: true }));
  if (asString(spec.serviceAccountName) === '') {
    objectList(spec.volumes).forEach((vol, vi) => {
      objectList(asObject(vol.projected).sources).forEach((source, si) => {
        if (isPresent(source.serviceAccountToken))
          errs.push(fieldForbidden(`spec.volumes[${vi}].projected.sources[${si}].serviceAccountToken`, 'must not be specified when serviceAccountName is not set'));
      });
    });
  }
  errs.push(...validateImagesTrimmed(spec.containers, 'spec.containers'));
  errs.push(...validateImagesTrimmed(spec.initContainers, 'spec.initContainers'));
  return errs;
}

export function validatePodCreate(pod: unknown): FieldError[] {
  const p = asObject(pod);
  const spec = asObject(p.spec);
  const errs = validatePodMetadataAndSpec(p);
  if (asArray(spec.ephemeralContainers).length > 0) errs.push(fieldForbidden('spec.ephemeralContainers', 'cannot be set on create'));
  if (asString(spec.nodeName) !== '' && asArray(spec.schedulingGates).length > 0)
    errs.push(fieldForbidden('spec.nodeName', 'cannot be set until all schedulingGates have been cleared'));
  return errs;
}

/** ValidatePodSpecificAnnotationUpdates: the mirror-pod annotation can be neither added nor changed. */
function validatePodAnnotationUpdates(pod: Record<string, unknown>, old: Record<string, unknown>): FieldError[] {
  const anns = asStringMap(asObject(pod.metadata).annotations);
  const oldAnns = asStringMap(asObject(old.metadata).annotations);
  const errs: FieldError[] = [];
  const path = 'metadata.annotations';
  if (MIRROR_ANNOTATION in oldAnns && anns[MIRROR_ANNOTATION] !== oldAnns[MIRROR_ANNOTATION])
    errs.push(fieldForbidden(`${path}[${MIRROR_ANNOTATION}]`, 'may not remove or update mirror pod annotation'));
  if (MIRROR_ANNOTATION in anns && !(MIRROR_ANNOTATION in oldAnns))
    errs.push(fieldForbidden(`${path}[${MIRROR_ANNOTATION}]`, 'may not add mirror pod annotation'));
  errs.push(...validatePodSpecificAnnotations(anns, pod.spec, path));
  return errs;
}

/** Only the number of containers and non-empty, trimmed images are checked here; `stop` ends validation. */
function validateContainerUpdates(containers: unknown, oldContainers: unknown, path: string): { errors: FieldError[]; stop: boolean } {
  const list = asArray(containers);
  if (list.length !== asArray(oldContainers).length) return { errors: [fieldForbidden(path, 'pod updates may not add or remove containers')], stop: true };
  const errors: FieldError[] = [];
  list.map(asObject).forEach((c, i) => {
    const image = asString(c.image);
    if (image === '') errors.push(fieldRequired(`${path}[${i}].image`));
    if (image.trim().length !== image.length) errors.push(fieldInvalid(`${path}[${i}].image`, image, 'must not have leading or trailing whitespace'));
  });
  return { errors, stop: false };
}

/** Every old toleration must still be there (tolerationSeconds may change); new ones may be added. */
function validateOnlyAddedTolerations(tolerations: unknown, oldTolerations: unknown, path: string): FieldError[] {
  const next = asArray(tolerations).map(asObject);
  const sameExceptSeconds = (a: Record<string, unknown>, b: Record<string, unknown>): boolean =>
    semanticEqual({ ...a, tolerationSeconds: undefined }, { ...b, tolerationSeconds: undefined });
  for (const old of asArray(oldTolerations).map(asObject)) {
    if (!next.some((t) => sameExceptSeconds(old, t))) return [fieldForbidden(path, 'existing toleration can not be modified except its tolerationSeconds')];
  }
  return validateTolerations(tolerations, path);
}

function validateOnlyDeletedSchedulingGates(gates: unknown, oldGates: unknown, path: string): FieldError[] {
  const old = new Set(asArray(oldGates).map((g) => asString(asObject(g).name)));
  return asArray(gates)
    .map((g, i) => ({ name: asString(asObject(g).name), i }))
    .filter(({ name }) => !old.has(name))
    .map(({ name, i }) => fieldForbidden(`${path}[${i}].name`, `only deletion is allowed, but found new scheduling gate '${name}'`));
}

/** The new spec with the fields a pod update may change set back to their old values. */
function mungedPodSpec(spec: Record<string, unknown>, oldSpec: Record<string, unknown>): Record<string, unknown> {
  const withOldImages = (containers: unknown, oldContainers: unknown): unknown =>
    Array.isArray(containers) ? containers.map((c, i) => ({ ...asObject(c), image: asObject(asArray(oldContainers)[i]).image })) : containers;
  const munged: Record<string, unknown> = {
    ...spec,
    containers: withOldImages(spec.containers, oldSpec.containers),
    initContainers: withOldImages(spec.initContainers, oldSpec.initContainers),
    activeDeadlineSeconds: oldSpec.activeDeadlineSeconds,
    schedulingGates: oldSpec.schedulingGates,
    tolerations: oldSpec.tolerations,
  };
  const oldGrace = asNumber(oldSpec.terminationGracePeriodSeconds);
  if (oldGrace !== undefined && oldGrace < 0 && munged.terminationGracePeriodSeconds === 1) munged.terminationGracePeriodSeconds = oldGrace;
  return munged;
}

/**
 * ValidatePodUpdate. Callers pass the object after defaulting and admission (DefaultTolerationSeconds
 * has re-added its tolerations), as the real server validates it.
 */
export function validatePodUpdate(pod: unknown, oldPod: unknown): FieldError[] {
  const p = asObject(pod);
  const old = asObject(oldPod);
  const spec = asObject(p.spec);
  const oldSpec = asObject(old.spec);
  const errs = validateObjectMetaUpdate(p.metadata, old.metadata, { standardFinalizerNames: true });
  errs.push(...validatePodMetadataAndSpec(p));
  errs.push(...validatePodAnnotationUpdates(p, old));

  for (const key of ['containers', 'initContainers'] as const) {
    const { errors, stop } = validateContainerUpdates(spec[key], oldSpec[key], `spec.${key}`);
    errs.push(...errors);
    if (stop) return errs;
  }

  const deadline = asNumber(spec.activeDeadlineSeconds);
  const oldDeadline = asNumber(oldSpec.activeDeadlineSeconds);
  if (deadline !== undefined) {
    if (deadline < 0 || deadline > MAX_INT32) return [...errs, fieldInvalid('spec.activeDeadlineSeconds', deadline, inclusiveRangeError(0, MAX_INT32))];
    if (oldDeadline !== undefined && oldDeadline < deadline)
      return [...errs, fieldInvalid('spec.activeDeadlineSeconds', deadline, 'must be less than or equal to previous value')];
  } else if (oldDeadline !== undefined) {
    errs.push(fieldInvalid('spec.activeDeadlineSeconds', 'null', 'must not update from a positive integer to nil value'));
  }

  errs.push(...validateOnlyAddedTolerations(spec.tolerations, oldSpec.tolerations, 'spec.tolerations'));
  errs.push(...validateOnlyDeletedSchedulingGates(spec.schedulingGates, oldSpec.schedulingGates, 'spec.schedulingGates'));
  if (semanticEqual(spec, oldSpec)) return errs;

  const munged = mungedPodSpec(spec, oldSpec);
  if (!semanticEqual(munged, oldSpec)) errs.push(fieldForbidden('spec', `${POD_UPDATE_FORBIDDEN_PREFIX}\n${podSpecDiff(oldSpec, munged)}`));
  return errs;
}

/**
 * ValidatePodEphemeralContainersUpdate (the pods/ephemeralcontainers subresource): the pod as a whole,
 * then each existing ephemeral container must still be there, unchanged.
 */
export function validatePodEphemeralContainersUpdate(pod: unknown, oldPod: unknown): FieldError[] {
  const p = asObject(pod);
  const old = asObject(oldPod);
  const errs = validateObjectMetaUpdate(p.metadata, old.metadata, { standardFinalizerNames: true });
  errs.push(...validatePodMetadataAndSpec(p));
  errs.push(...validatePodAnnotationUpdates(p, old));
  if (MIRROR_ANNOTATION in asStringMap(asObject(old.metadata).annotations)) return [fieldForbidden('', 'static pods do not support ephemeral containers')];
  const path = 'spec.ephemeralContainers';
  const current = new Map(objectList(asObject(p.spec).ephemeralContainers).map((c) => [asString(c.name), c]));
  for (const before of objectList(asObject(old.spec).ephemeralContainers)) {
    const name = asString(before.name);
    const now = current.get(name);
    if (!now) errs.push(fieldForbidden(path, `existing ephemeral containers ${JSON.stringify(name)} may not be removed\n`));
    // The real message goes on with cmp.Diff's rendering of the change, which is not reproduced.
    else if (!semanticEqual(before, now)) errs.push(fieldForbidden(`${path}.${name}`, `existing ephemeral containers ${JSON.stringify(name)} may not be changed\n`));
  }
  return errs;
}

const systemConditions = new Set(['PodScheduled', 'Ready', 'Initialized']);

/** Containers that terminated may not come back unless the restart policy lets them. */
function validateContainerStateTransition(statuses: unknown, oldStatuses: unknown, path: string, restartPolicy: string): FieldError[] {
  if (restartPolicy === 'Always') return [];
  const next = asArray(statuses).map(asObject);
  const errs: FieldError[] = [];
  asArray(oldStatuses)
    .map(asObject)
    .forEach((old, i) => {
      const terminated = asObject(old.state).terminated;
      if (!isPresent(terminated)) return;
      if ((asNumber(asObject(terminated).exitCode) ?? 0) !== 0 && restartPolicy === 'OnFailure') return;
      for (const s of next)
        if (asString(s.name) === asString(old.name) && !isPresent(asObject(s.state).terminated))
          errs.push(fieldForbidden(`${path}[${i}].state`, 'may not be transitioned to non-terminated state'));
    });
  return errs;
}

/** ValidatePodStatusUpdate (the pods/status subresource). */
export function validatePodStatusUpdate(pod: unknown, oldPod: unknown): FieldError[] {
  const p = asObject(pod);
  const old = asObject(oldPod);
  const spec = asObject(p.spec);
  const oldSpec = asObject(old.spec);
  const status = asObject(p.status);
  const oldStatus = asObject(old.status);
  const errs = validateObjectMetaUpdate(p.metadata, old.metadata, { standardFinalizerNames: true });
  errs.push(...validatePodAnnotationUpdates(p, old));
  objectList(status.conditions).forEach((c, i) => {
    const type = asString(c.type);
    // The real server names this field metadata.conditions[i].Type (sic).
    if (!systemConditions.has(type)) errs.push(...isQualifiedName(type).map((msg) => fieldInvalid(`metadata.conditions[${i}].Type`, type, msg)));
  });
  if (asString(spec.nodeName) !== asString(oldSpec.nodeName)) errs.push(fieldForbidden('status.nodeName', 'may not be changed directly'));
  const nominated = asString(status.nominatedNodeName);
  if (nominated !== asString(oldStatus.nominatedNodeName) && nominated !== '')
    errs.push(...nameIsDNSSubdomain(nominated, false).map((msg) => fieldInvalid('status.nominatedNodeName', nominated, msg)));
  if (asString(status.qosClass) !== asString(oldStatus.qosClass)) errs.push(fieldInvalid('status.qosClass', asString(status.qosClass), FIELD_IMMUTABLE));
  const restartPolicy = asString(oldSpec.restartPolicy);
  errs.push(...validateContainerStateTransition(status.containerStatuses, oldStatus.containerStatuses, 'status.containerStatuses', restartPolicy));
  errs.push(...validateContainerStateTransition(status.initContainerStatuses, oldStatus.initContainerStatuses, 'status.initContainerStatuses', restartPolicy));
  errs.push(...validateContainerStateTransition(status.ephemeralContainerStatuses, oldStatus.ephemeralContainerStatuses, 'status.ephemeralContainerStatuses', 'Never'));
  const podIPs = asArray(status.podIPs).map((ip) => asString(asObject(ip).ip));
  podIPs.forEach((ip, i) => errs.push(...isValidIP(`status.podIPs[${i}]`, ip)));
  const hostIPs = asArray(status.hostIPs).map((ip) => asString(asObject(ip).ip));
  if (hostIPs.length > 0) {
    if (asString(status.hostIP) !== hostIPs[0]) errs.push(fieldInvalid('status.hostIPs[0].ip', hostIPs[0], 'must be equal to `hostIP`'));
    hostIPs.forEach((ip, i) => errs.push(...isValidIP(`status.hostIPs[${i}]`, ip)));
  }
  return errs;
}
