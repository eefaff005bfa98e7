// The first handler of every kind the webhooks serve: the reviewed objects must have the shape the handlers
// read, or the review is answered 400 naming the field. A malformed object never reaches the protocol code,
// whose failure would otherwise surface as an internal error. The object written must also keep within the
// bounds its schema declares (a CRD's maxItems, maxLength), or the write is denied naming the field, as the
// API server would deny it: what a handler then asks of the API server is bounded by the schema, whoever sent
// the review. The old object is not held to them (one stored before a bound existed must stay writable).

import { boundsProblem, shapeProblem } from '../api/shape.ts';
import { allowed, denied, errored, type AdmissionRequest, type Verdict } from './admission.ts';
import type { AdmissionHandler } from './dispatch.ts';

type Schema = Record<string, unknown>;

const string: Schema = { type: 'string' };
const stringMap: Schema = { type: 'object', additionalProperties: string };
const list = (items: Schema): Schema => ({ type: 'array', items });
/** Go writes an unset metav1.Time as null. */
const time: Schema = { type: 'string', nullable: true };

/** The fields of a pod that podops reads. */
export const POD_SHAPE: Schema = {
  type: 'object',
  properties: {
    metadata: {
      type: 'object',
      properties: {
        name: string,
        namespace: string,
        uid: string,
        resourceVersion: string,
        labels: stringMap,
        annotations: stringMap,
        finalizers: list(string),
        deletionTimestamp: time,
        ownerReferences: list({ type: 'object', properties: { apiVersion: string, kind: string, name: string, uid: string } }),
      },
    },
    spec: { type: 'object', properties: { readinessGates: list({ type: 'object', properties: { conditionType: string } }) } },
    status: {
      type: 'object',
      properties: {
        conditions: list({ type: 'object', properties: { type: string, status: string, reason: string, message: string, lastTransitionTime: time, lastProbeTime: time } }),
      },
    },
  },
};

/**
 * A handler that denies an `object` beyond the bounds of `schema`, and answers 400 when `object` or
 * `oldObject` does not have its shape.
 */
export function requireShape(schema: Schema): AdmissionHandler {
  return (request: AdmissionRequest): Verdict => {
    const beyond = request.object == null ? undefined : boundsProblem(request.object, schema);
    if (beyond) return denied(beyond);
    for (const field of ['object', 'oldObject'] as const) {
      const value = request[field];
      if (value == null) continue;
      const problem = shapeProblem(value, schema, `request.${field}`);
      if (problem) return errored(400, `malformed ${request.kind.kind}: ${problem}`);
    }
    return allowed();
  };
}
