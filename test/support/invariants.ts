// The protocol invariants every stored state of a pod must satisfy, given the state before it. Shared by the
// property tests (an in-memory server) and the end-to-end tests (the sandbox's write log).

import assert from 'node:assert/strict';
import type { Pod } from '../../src/api/kube.ts';
import { SERVICE_AVAILABLE_LABEL } from '../../src/api/protocol.ts';
import { mutatePod } from '../../src/lifecycle/mutate.ts';
import { parseLifecycles } from '../../src/lifecycle/parse.ts';
import { protectionFinalizers, serviceReadyCondition } from '../../src/lifecycle/pod.ts';
import { validatePod } from '../../src/lifecycle/validate.ts';

export function checkStoredState(before: Pod | undefined, after: Pod): void {
  assert.deepEqual(validatePod(after), [], 'validation accepts every state the mutation produces');

  const again = mutatePod({ operation: before ? 'UPDATE' : 'CREATE', pod: after, oldPod: before, now: 1n });
  assert.deepEqual(again.changes, [], 'the mutation is idempotent');
  assert.equal(again.readinessGateAdded, false);

  const lifecycles = parseLifecycles(after.metadata.labels);
  const previous = before ? parseLifecycles(before.metadata.labels) : undefined;
  for (const { id, labels } of lifecycles.byId.values()) {
    const newlyOperate = labels.operate !== undefined && previous?.byId.get(id)?.labels.operate === undefined;
    if (newlyOperate && serviceReadyCondition(after)) {
      assert.deepEqual(protectionFinalizers(after), [], `operate/${id} appeared while a protection finalizer was on the pod`);
    }
    if (after.metadata.labels?.[SERVICE_AVAILABLE_LABEL] !== undefined) {
      assert.ok(
        labels.preparing === undefined && labels.operate === undefined && labels.operated === undefined,
        `service-available coexists with ${id} in preparing/operate/operated`,
      );
    }
  }
}
