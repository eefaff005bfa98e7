// The lifecycle validation rules for CREATE and UPDATE of controlled pods (Kuperator's behaviour, docs/protocol.md),
// with upstream's error strings. Upstream walks Go maps, so which error it reports first is random;
// here every error is returned in the order of the label keys, the first one being the one the webhook
// reports.

import type { Pod } from '../api/kube.ts';
import { InvalidLabelError, OPERATION_PERMISSION_PREFIX, idLabelPrefix, isOperationPermissionKey, parseIdLabelKey, type IdLabelWord } from '../api/protocol.ts';
import { lifecycleKeys } from './parse.ts';
import { expectedFinalizers, InvalidAnnotationError, isControlled } from './pod.ts';

/** Families that must appear together for the same ID. `operating` without `operation-type` is allowed. */
const PAIRS: Partial<Record<IdLabelWord, IdLabelWord>> = {
  operated: 'done-operation-type',
  'done-operation-type': 'operated',
};

/** Go's `%v` of a `map[string]struct{}` with one key. */
const goSetString = (key: string): string => `map[${key}:{}]`;

/** Returns the validation errors of a pod's lifecycle labels; empty when valid or not controlled. */
export function validatePod(pod: Pod): string[] {
  if (!isControlled(pod)) return [];
  const errors: string[] = [];

  try {
    expectedFinalizers(pod);
  } catch (err) {
    if (!(err instanceof InvalidAnnotationError)) throw err;
    errors.push(err.message);
  }

  const labels = pod.metadata.labels ?? {};
  let hasPreChecked = false;
  let hasPermission = false;
  const labelErrors: [key: string, error: string][] = [];
  for (const key in labels) {
    if (isOperationPermissionKey(key)) {
      hasPermission = true;
      continue;
    }
    let parsed;
    try {
      parsed = parseIdLabelKey(key);
    } catch (err) {
      if (!(err instanceof InvalidLabelError)) throw err;
      labelErrors.push([key, err.message]);
      continue;
    }
    if (!parsed) continue;
    if (parsed.word === 'pre-checked') hasPreChecked = true;
    const partner = PAIRS[parsed.word];
    const partnerKey = partner && lifecycleKeys(parsed.id)[partner];
    if (partnerKey && labels[partnerKey] === undefined) labelErrors.push([key, `not found label ${partnerKey}`]);
  }
  labelErrors.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  errors.push(...labelErrors.map(([, error]) => error));

  if (hasPreChecked && !hasPermission) {
    errors.push(`not found the expected label prefixes: ${goSetString(OPERATION_PERMISSION_PREFIX)}`);
  } else if (hasPermission && !hasPreChecked) {
    errors.push(`not found the expected label prefixes: ${goSetString(idLabelPrefix('pre-checked'))}`);
  }
  return errors;
}
