// coordination.k8s.io/v1 Lease: generic metadata and non-negative durations.

import { fieldInvalid, type FieldError } from '../errors.ts';
import { asNumber, asObject } from './json.ts';
import { validateObjectMetaCreate, validateObjectMetaUpdate } from './meta.ts';

type Obj = Record<string, unknown>;

function validateLeaseSpec(spec: unknown): FieldError[] {
  const s = asObject(spec);
  const errs: FieldError[] = [];
  const duration = asNumber(s.leaseDurationSeconds);
  if (duration !== undefined && duration <= 0) errs.push(fieldInvalid('spec.leaseDurationSeconds', duration, 'must be greater than 0'));
  const transitions = asNumber(s.leaseTransitions);
  if (transitions !== undefined && transitions < 0) errs.push(fieldInvalid('spec.leaseTransitions', transitions, 'must be greater than or equal to 0'));
  return errs;
}

export const validateLease = (lease: Obj): FieldError[] => [...validateObjectMetaCreate(lease.metadata, { namespaced: true }), ...validateLeaseSpec(lease.spec)];

export const validateLeaseUpdate = (lease: Obj, old: Obj): FieldError[] => [
  ...validateObjectMetaUpdate(lease.metadata, old.metadata),
  ...validateLeaseSpec(lease.spec),
];
