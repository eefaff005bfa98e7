// Phases are not stored anywhere: they are read off the labels (Kuperator's behaviour, docs/protocol.md).

import { SERVICE_AVAILABLE_LABEL, operationPermissionKey, type IdLabelWord } from '../api/protocol.ts';
import type { Lifecycle, PodLifecycles } from './parse.ts';
import { parseNanos, type Nanos } from './time.ts';

export const LIFECYCLE_PHASES = ['PreCheck', 'Preparing', 'Operating', 'PostCheck', 'Completing'] as const;
export type LifecyclePhase = (typeof LIFECYCLE_PHASES)[number];
export type PodPhase = LifecyclePhase | 'ServiceAvailable';

/** The phase of one lifecycle: the most advanced family present wins. */
export function lifecyclePhase({ labels }: Lifecycle): LifecyclePhase {
  if (labels.completing !== undefined) return 'Completing';
  if (labels.operated !== undefined || labels['post-check'] !== undefined || labels['post-checked'] !== undefined) return 'PostCheck';
  if (labels.operate !== undefined) return 'Operating';
  if (labels.preparing !== undefined) return 'Preparing';
  return 'PreCheck';
}

/**
 * The pod's phase: its least advanced lifecycle (the pod serves again only when all are done); with no
 * lifecycle, ServiceAvailable when labelled so, otherwise Completing (not yet back in service).
 */
export function podPhase(lifecycles: PodLifecycles, labels: Readonly<Record<string, string>> | undefined): PodPhase {
  let least: LifecyclePhase | undefined;
  for (const lifecycle of lifecycles.byId.values()) {
    const phase = lifecyclePhase(lifecycle);
    if (least === undefined || LIFECYCLE_PHASES.indexOf(phase) < LIFECYCLE_PHASES.indexOf(least)) least = phase;
  }
  if (least) return least;
  return labels?.[SERVICE_AVAILABLE_LABEL] !== undefined ? 'ServiceAvailable' : 'Completing';
}

/** Families whose value is a timestamp, in protocol order. */
const TIMED_WORDS: readonly IdLabelWord[] = [
  'operating',
  'pre-check',
  'pre-checked',
  'preparing',
  'operate',
  'operated',
  'post-check',
  'post-checked',
  'completing',
];

const PHASE_START: Record<LifecyclePhase, readonly IdLabelWord[]> = {
  PreCheck: ['pre-check', 'operating'],
  Preparing: ['preparing'],
  Operating: ['operate'],
  PostCheck: ['post-check', 'operated'],
  Completing: ['completing'],
};

/**
 * The phase whose start a family's timestamp marks. `pre-checked` and `post-checked` mark the start of Preparing and
 * Completing too (the webhook adds `preparing` and `completing` in the same write) and, unlike those, stay on the pod
 * until the lifecycle ends: a history of the pod can still read those starts after the phase's own label is gone.
 */
const PHASE_STARTED_BY: Partial<Record<string, LifecyclePhase>> = {
  operating: 'PreCheck',
  'pre-check': 'PreCheck',
  'pre-checked': 'Preparing',
  preparing: 'Preparing',
  operate: 'Operating',
  operated: 'PostCheck',
  'post-check': 'PostCheck',
  'post-checked': 'Completing',
  completing: 'Completing',
};

export const phaseStartedBy = (family: string): LifecyclePhase | undefined => PHASE_STARTED_BY[family];

export interface TimelineEntry {
  /** The label family (or `operation-permission`) that carries the time. */
  event: string;
  at: Nanos;
}

/**
 * The timestamps still on the pod for one lifecycle, oldest first. Families the webhook has already
 * removed (e.g. pre-check once pre-checked) are gone from the pod and so from the timeline.
 */
export function lifecycleTimeline(lifecycle: Lifecycle, labels: Readonly<Record<string, string>> | undefined): TimelineEntry[] {
  const entries: TimelineEntry[] = [];
  for (const word of TIMED_WORDS) {
    const at = parseNanos(lifecycle.labels[word]);
    if (at !== undefined) entries.push({ event: word, at });
  }
  if (lifecycle.type !== undefined) {
    const at = parseNanos(labels?.[operationPermissionKey(lifecycle.type)]);
    if (at !== undefined) entries.push({ event: 'operation-permission', at });
  }
  return entries.sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0));
}

/** When the lifecycle entered its current phase, if the label carrying it holds a timestamp. */
export function phaseSince(lifecycle: Lifecycle): Nanos | undefined {
  for (const word of PHASE_START[lifecyclePhase(lifecycle)]) {
    const at = parseNanos(lifecycle.labels[word]);
    if (at !== undefined) return at;
  }
  return undefined;
}
