// One pod as a row of the dashboard's timeline: its phase and waits from `explainPod` (the words of `podops status`),
// its workload (the group it is drawn in), and its lifecycles' bars and traffic moments from its history.

import type { Pod } from '../api/kube.ts';
import { podWaits, type PodReport } from '../lifecycle/explain.ts';
import { InvalidLabelError, parseLifecycles } from '../lifecycle/parse.ts';
import { LIFECYCLE_PHASES } from '../lifecycle/phase.ts';
import { holdsTrafficOff } from '../lifecycle/readiness.ts';
import { millisFromNanos, type Nanos } from '../lifecycle/time.ts';
import { POD_TEMPLATE_HASH_LABEL } from '../rollout/workload.ts';
import type { LifecycleTrack, PodHistory } from './pod-history.ts';
import type { Bar, PodRow, TrafficMoment } from './views.ts';

const ms = (n: Nanos | undefined): number | undefined => (n === undefined ? undefined : millisFromNanos(n));

export const podKey = (namespace: string | undefined, name: string | undefined): string => `${namespace ?? ''}/${name ?? ''}`;

/**
 * The workload a pod belongs to, by its controller owner: a ReplicaSet made by a Deployment (its name is the
 * Deployment's plus the pod's `pod-template-hash`) counts as that Deployment, so a rolling update stays one group.
 */
export function workloadOf(pod: Pod): string {
  const owner = pod.metadata.ownerReferences?.find((o) => o.controller) ?? pod.metadata.ownerReferences?.[0];
  if (!owner) return 'Pod';
  const hash = pod.metadata.labels?.[POD_TEMPLATE_HASH_LABEL];
  if (owner.kind === 'ReplicaSet' && hash && owner.name.endsWith(`-${hash}`)) return `Deployment ${owner.name.slice(0, -hash.length - 1)}`;
  return `${owner.kind} ${owner.name}`;
}

/** A lifecycle's phases in protocol order, each from its start to the next known start (the last one to its end). */
export function barOf(track: LifecycleTrack): Bar {
  const starts = LIFECYCLE_PHASES.flatMap((phase) => (track.starts[phase] === undefined ? [] : [{ phase, from: track.starts[phase] }]));
  const segments = starts.map(({ phase, from }, i) => ({ phase, from, to: starts[i + 1]?.from ?? track.end }));
  return { id: track.id, type: track.type, segments };
}

/** Out of traffic when a lifecycle entered Preparing, back when the pod was labelled service-available after it. */
export function trafficOf(tracks: readonly LifecycleTrack[]): TrafficMoment[] {
  const moments = new Map<string, TrafficMoment>();
  for (const track of tracks) {
    const left = track.starts.Preparing;
    if (left !== undefined) moments.set(`left ${left}`, { at: left, kind: 'left' });
    if (track.servedAt !== undefined) moments.set(`entered ${track.servedAt}`, { at: track.servedAt, kind: 'entered' });
  }
  return [...moments.values()].sort((a, b) => a.at - b.at);
}

/** Whether a lifecycle holds the pod out of traffic, by the protocol's rule; labels that do not parse hold nothing. */
function outOfTraffic(pod: Pod): boolean {
  try {
    return [...parseLifecycles(pod.metadata.labels).byId.values()].some(holdsTrafficOff);
  } catch (err) {
    if (err instanceof InvalidLabelError) return false;
    throw err;
  }
}

export function podRow(pod: Pod, report: PodReport, history: PodHistory): PodRow {
  const lifecycles = report.lifecycles.map((l) => ({ id: l.id, type: l.type, phase: l.phase, since: ms(l.since) }));
  const inPhase = lifecycles.filter((l) => l.phase === report.phase && l.since !== undefined).map((l) => l.since as number);
  const since = report.phase === 'ServiceAvailable' ? ms(report.serviceAvailableSince) : inPhase.length > 0 ? Math.min(...inPhase) : undefined;
  return {
    key: podKey(pod.metadata.namespace, pod.metadata.name),
    namespace: pod.metadata.namespace ?? '',
    name: pod.metadata.name ?? '',
    workload: workloadOf(pod),
    node: pod.spec?.nodeName,
    phase: report.phase ?? 'Unknown',
    since,
    lifecycles,
    outOfTraffic: outOfTraffic(pod),
    waitingFor: podWaits(report),
    bars: history.tracks.map(barOf).filter((bar) => bar.segments.length > 0),
    traffic: trafficOf(history.tracks),
    deleting: pod.metadata.deletionTimestamp != null,
  };
}
