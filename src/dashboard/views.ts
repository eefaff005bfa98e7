// What the dashboard server sends the page: plain JSON, times in Unix milliseconds. The page only draws these;
// every decision (phases, waits, bars, reasons) is made on the server by the pure functions beside this file.

import type { LifecyclePhase, PodPhase } from '../lifecycle/phase.ts';

/** One phase of a lifecycle on the timeline: from when its label says it began to the next phase (open: now). */
export interface BarSegment {
  phase: LifecyclePhase;
  from: number;
  to: number | undefined;
}

export interface Bar {
  id: string;
  type: string | undefined;
  segments: BarSegment[];
}

/** The pod left traffic (its lifecycle entered Preparing) or came back (labelled service-available). */
export interface TrafficMoment {
  at: number;
  kind: 'left' | 'entered';
}

export interface PodRow {
  /** `namespace/name`. */
  key: string;
  namespace: string;
  name: string;
  /** The workload that owns the pod, e.g. `Deployment web`; `Pod` for a pod of its own. */
  workload: string;
  node: string | undefined;
  phase: PodPhase | 'Unknown';
  /** When the pod entered its phase, when a label says so. */
  since: number | undefined;
  lifecycles: { id: string; type: string | undefined; phase: LifecyclePhase; since: number | undefined }[];
  /** A lifecycle holds the pod out of traffic (preparing, operating or post-checking). */
  outOfTraffic: boolean;
  /** What `podops status` prints in its WAITING FOR column, one entry per wait. */
  waitingFor: string[];
  bars: Bar[];
  traffic: TrafficMoment[];
  deleting: boolean;
  /** When the pod left the watch (deleted, or its control label removed): it stays on the timeline a while, greyed. */
  gone?: number;
}

export interface RuleView {
  key: string;
  namespace: string;
  name: string;
  rules: { name: string; kind: string; stage: string; disabled: boolean }[];
  targets: string[];
  summary: { targets: number; checking: number; passed: number; blocked: number };
  passed: { pod: string; stage: string }[];
  blocked: { pod: string; stage: string; reasons: string[] }[];
}

export interface RolloutView {
  key: string;
  namespace: string;
  name: string;
  target: string;
  rollout:
    | {
        type: string;
        phase: string;
        pointReached: string;
        message: string | undefined;
        fromRevision: string | undefined;
        toRevision: string | undefined;
        replicas: number;
        newAvailable: number;
        startTime: number | undefined;
        points: { progressPoint: string; count: number; hooks: string[]; reached: boolean; reachedTime: number | undefined }[];
      }
    | undefined;
  hooks: { name: string; point: number; phase: string; job: string; attempt: number; message: string | undefined; startTime: number | undefined; completionTime: number | undefined }[];
  /** The message of the Failed condition, while it holds. */
  failed: string | undefined;
}

export interface EventView {
  key: string;
  namespace: string;
  object: string;
  type: string;
  reason: string;
  message: string;
  count: number;
  last: number | undefined;
}

/** Why the dashboard cannot show something: the API server is unreachable, or a permission is missing. */
export interface Problem {
  /** `pods`, `podtransitionrules.apps.kusionstack.io`, ... */
  resource: string;
  verb: 'list' | 'watch';
  kind: 'forbidden' | 'unauthorized' | 'unreachable' | 'not-served' | 'failed';
  message: string;
}

export interface Snapshot {
  now: number;
  /** The namespace watched, or undefined for all. */
  namespace: string | undefined;
  server: string;
  /** Whether the first list of pods has arrived. */
  synced: boolean;
  pods: PodRow[];
  rules: RuleView[];
  rollouts: RolloutView[];
  events: EventView[];
  problems: Problem[];
}

/** A change: rows to add or replace, keys to drop, and whichever whole lists changed. */
export interface Update {
  now: number;
  synced?: boolean;
  upsert: PodRow[];
  remove: string[];
  rules?: RuleView[];
  rollouts?: RolloutView[];
  events?: EventView[];
  problems?: Problem[];
}
