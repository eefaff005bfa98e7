// podops' own lifecycle metrics, next to controller-runtime's: how many lifecycles move from phase to phase
// and how long they spend in each, read off the pods' labels as the leader's informer sees them change. The
// operation type is whatever a pod's writer put in its label: the built-in types and the first few others
// seen get a series each, later ones count as `other`.

import { BoundedLabelValues } from '../kube/bounded-label.ts';
import { Counter, Histogram, type Registry } from '../kube/prometheus.ts';
import { OPERATION_TYPE_DELETE, OPERATION_TYPE_EVICT, OPERATION_TYPE_SCALE_IN, OPERATION_TYPE_UPDATE } from '../api/protocol.ts';
import type { Pod } from '../api/kube.ts';
import { phaseTransitions } from '../lifecycle/transitions.ts';
import type { Nanos } from '../lifecycle/time.ts';

// From a quick pre-check to an operation of an hour.
const PHASE_BUCKETS = [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800, 3600];

/** Operation types besides the built-in ones that get series of their own (each costs about 40 series). */
export const OTHER_OPERATION_TYPES = 16;

export class LifecycleMetrics {
  readonly transitions: Counter<'type' | 'from' | 'to'>;
  readonly phaseDuration: Histogram<'type' | 'phase'>;
  /** '' is a lifecycle whose labels no longer name its type. */
  readonly #types = new BoundedLabelValues(['', OPERATION_TYPE_UPDATE, OPERATION_TYPE_SCALE_IN, OPERATION_TYPE_DELETE, OPERATION_TYPE_EVICT], OTHER_OPERATION_TYPES);

  constructor(registry: Registry) {
    const registers = [registry];
    this.transitions = new Counter({
      name: 'podops_lifecycle_transitions_total',
      help: `Lifecycle phase changes, by operation type (the built-in ones and the first ${OTHER_OPERATION_TYPES} others seen; later ones are other); from is "" for a lifecycle that begins, to is Done or Undone when its labels leave the pod`,
      labelNames: ['type', 'from', 'to'],
      registers,
    });
    this.phaseDuration = new Histogram({
      name: 'podops_lifecycle_phase_duration_seconds',
      help: 'Time a lifecycle spent in a phase (PreCheck, Preparing, Operating, PostCheck, Completing), by operation type, from the timestamps on its labels',
      labelNames: ['type', 'phase'],
      buckets: PHASE_BUCKETS,
      registers,
    });
  }

  /** Records what changed between two versions of a pod (previous undefined: first seen). */
  observe(previous: Pod | undefined, current: Pod, now: Nanos): void {
    for (const t of phaseTransitions(previous?.metadata.labels, current.metadata.labels, now)) {
      const type = this.#types.value(t.type ?? '');
      this.transitions.inc({ type, from: t.from ?? '', to: t.to });
      if (t.from !== undefined && t.seconds !== undefined) this.phaseDuration.observe({ type, phase: t.from }, t.seconds);
    }
  }
}
