// The past of a pod's lifecycles, for the timeline. The webhook removes a phase's label as the next phase begins and
// every label of a lifecycle at its cleanup, so the pod as it is now no longer says when its earlier phases began:
// the dashboard keeps the timestamps it saw, lifecycle by lifecycle, from one version of the pod to the next.

import type { PodReport } from '../lifecycle/explain.ts';
import { phaseStartedBy, type LifecyclePhase } from '../lifecycle/phase.ts';
import { millisFromNanos } from '../lifecycle/time.ts';

export interface LifecycleTrack {
  id: string;
  type: string | undefined;
  /** When each phase began (Unix ms), for the phases whose label was seen. */
  starts: Partial<Record<LifecyclePhase, number>>;
  /** When it ended: when the pod was labelled service-available again, else when it was seen gone (undone). */
  end: number | undefined;
  /** The service-available timestamp that ended it: the pod back in traffic. */
  servedAt: number | undefined;
}

export interface PodHistory {
  tracks: LifecycleTrack[];
}

/** Ended lifecycles older than this are forgotten: the timeline's widest window. */
export const HISTORY_RETENTION_MS = 60 * 60 * 1000;
/** Ended lifecycles kept per pod at most. */
export const MAX_ENDED_TRACKS = 12;

function merge(track: LifecycleTrack, lifecycle: PodReport['lifecycles'][number]): LifecycleTrack {
  const starts = { ...track.starts };
  for (const { event, at } of lifecycle.timeline) {
    const phase = phaseStartedBy(event);
    if (phase === undefined) continue;
    const ms = millisFromNanos(at);
    const known = starts[phase];
    if (known === undefined || ms < known) starts[phase] = ms;
  }
  return { ...track, type: lifecycle.type ?? track.type, starts };
}

const lastStart = (track: LifecycleTrack): number => Math.max(...Object.values(track.starts));

/**
 * The history after one more version of the pod (its `explainPod` report), seen at `nowMs`: lifecycles on the pod
 * gain the timestamps of their labels; lifecycles gone from it end.
 */
export function observePod(history: PodHistory | undefined, report: PodReport, nowMs: number): PodHistory {
  const current = new Map(report.lifecycles.map((l) => [l.id, l]));
  const servedAt = report.serviceAvailableSince === undefined ? undefined : millisFromNanos(report.serviceAvailableSince);
  const tracks: LifecycleTrack[] = [];
  for (const track of history?.tracks ?? []) {
    const lifecycle = track.end === undefined ? current.get(track.id) : undefined;
    if (lifecycle) {
      tracks.push(merge(track, lifecycle));
      current.delete(track.id);
    } else if (track.end !== undefined) {
      tracks.push(track);
    } else {
      // Back in service after it: the service-available timestamp is when; otherwise it was undone, or the pod is
      // not serving yet, and the moment it was seen gone is the best there is.
      const served = servedAt !== undefined && Object.keys(track.starts).length > 0 && servedAt >= lastStart(track) ? servedAt : undefined;
      tracks.push({ ...track, end: served ?? nowMs, servedAt: served });
    }
  }
  for (const lifecycle of current.values()) {
    tracks.push(merge({ id: lifecycle.id, type: lifecycle.type, starts: {}, end: undefined, servedAt: undefined }, lifecycle));
  }
  return { tracks: forget(tracks, nowMs) };
}

function forget(tracks: LifecycleTrack[], nowMs: number): LifecycleTrack[] {
  const ended = tracks.filter((t) => t.end !== undefined && t.end >= nowMs - HISTORY_RETENTION_MS).slice(-MAX_ENDED_TRACKS);
  return tracks.filter((t) => t.end === undefined || ended.includes(t));
}
