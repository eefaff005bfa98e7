// podops' recent Events (those it records as the `podops` component: ServiceReady, TransitionRejected, HookFailed,
// ...), newest first, as the dashboard lists them.

import type { KubeObject } from '../kube/client.ts';
import type { EventView } from './views.ts';

/** What the dashboard reads of a core/v1 Event. */
export interface KubeEvent extends KubeObject {
  involvedObject?: { kind?: string; name?: string; namespace?: string };
  type?: string;
  reason?: string;
  message?: string;
  count?: number;
  lastTimestamp?: string | null;
  eventTime?: string | null;
  firstTimestamp?: string | null;
}

/** The events the page lists at most. */
export const RECENT_EVENTS = 100;

export function eventView(event: KubeEvent): EventView {
  const at = Date.parse(event.lastTimestamp ?? event.eventTime ?? event.firstTimestamp ?? '');
  const involved = event.involvedObject ?? {};
  return {
    key: `${event.metadata.namespace ?? ''}/${event.metadata.name ?? ''}`,
    namespace: event.metadata.namespace ?? '',
    object: `${involved.kind ?? '?'}/${involved.name ?? '?'}`,
    type: event.type ?? 'Normal',
    reason: event.reason ?? '',
    message: event.message ?? '',
    count: event.count ?? 1,
    last: Number.isFinite(at) ? at : undefined,
  };
}

/** The newest `limit` events, newest first (events without a time last). */
export function recentEvents(events: Iterable<KubeEvent>, limit = RECENT_EVENTS): EventView[] {
  return [...events]
    .map(eventView)
    .sort((a, b) => (b.last ?? -Infinity) - (a.last ?? -Infinity) || a.key.localeCompare(b.key))
    .slice(0, limit);
}
