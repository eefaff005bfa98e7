// podops' own lifecycle metrics, next to controller-runtime's: how many lifecycles move from phase to phase
// and how long they spend in each, read off the pods' labels as the leader's informer sees them change.

import { Counter, Histogram, type Registry } from '../kube/prometheus.ts';
import type { Pod } from '../api/kube.ts';
import { phaseTransitions } from '../lifecycle/transitions.ts';
import type { Nanos } from '../lifecycle/time.ts';

// From a quick pre-check to an operation of an hour.
const PHASE_BUCKETS = [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800, 3600];

export class LifecycleMetrics {
  readonly transitions: Counter<'type' | 'from' | 'to'>;
  readonly phaseDuration: Histogram<'type' | 'phase'>;

  constructor(registry: Registry) {
    const registers = [registry];
    this.transitions = new Counter({
      name: 'podops_lifecycle_transitions_total',
      help: 'Lifecycle phase changes, by operation type; from is "" for a lifecycle that begins, to is Done or Undone when its labels leave the pod',
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
      const type = t.type ?? '';
      this.transitions.inc({ type, from: t.from ?? '', to: t.to });
      if (t.from !== undefined && t.seconds !== undefined) this.phaseDuration.observe({ type, phase: t.from }, t.seconds);
    }
  }
}
