// The PodOpsLifecycle admission handlers: thin drivers of src/lifecycle.

import type { Pod } from '../api/kube.ts';
import { LIFECYCLE_WEBHOOK_NAME } from '../api/protocol.ts';
import { mutatePod } from '../lifecycle/mutate.ts';
import { InvalidLabelError } from '../lifecycle/parse.ts';
import { InvalidAnnotationError } from '../lifecycle/pod.ts';
import type { Nanos } from '../lifecycle/time.ts';
import { validatePod } from '../lifecycle/validate.ts';
import { allowed, denied, errored, type AdmissionRequest, type Verdict } from './admission.ts';

/**
 * Mutation of pods and pods/status on CREATE and UPDATE. A dry run is mutated as the real write would be (the
 * mutation has no side effects), so `kubectl apply --dry-run=server` shows what would be stored.
 */
export function mutatePodLifecycle(request: AdmissionRequest, now: () => Nanos): Verdict {
  if (request.operation !== 'CREATE' && request.operation !== 'UPDATE') return allowed();
  const pod = request.object as Pod | undefined;
  if (!pod?.metadata) return errored(400, `${request.operation} of a pod without an object`);
  try {
    const mutation = mutatePod({ operation: request.operation, pod, oldPod: request.oldObject as Pod | undefined, now: now() });
    return allowed(mutation.patch);
  } catch (err) {
    if (err instanceof InvalidLabelError || err instanceof InvalidAnnotationError) return errored(500, err.message);
    throw err;
  }
}

/** Validation of pods on CREATE and UPDATE, denied with upstream's wording. */
export function validatePodLifecycle(request: AdmissionRequest): Verdict {
  if (request.operation !== 'CREATE' && request.operation !== 'UPDATE') return allowed();
  const pod = request.object as Pod | undefined;
  if (!pod?.metadata) return errored(400, `${request.operation} of a pod without an object`);
  const [error] = validatePod(pod);
  return error === undefined ? allowed() : denied(`failed to validate ${LIFECYCLE_WEBHOOK_NAME}, ${error}`);
}
