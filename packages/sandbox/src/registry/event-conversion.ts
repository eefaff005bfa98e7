// core/v1 Events and events.k8s.io/v1 Events are one stored resource shown two ways. Events are
// stored in the core shape; these convert to and from the events.k8s.io view.

import type { KubeObject } from '../meta/object.ts';

/** [core field, events.k8s.io field] pairs that only change name. */
const renamed: readonly (readonly [string, string])[] = [
  ['involvedObject', 'regarding'],
  ['message', 'note'],
  ['source', 'deprecatedSource'],
  ['firstTimestamp', 'deprecatedFirstTimestamp'],
  ['lastTimestamp', 'deprecatedLastTimestamp'],
  ['count', 'deprecatedCount'],
  ['reportingComponent', 'reportingController'],
];

const shared = ['eventTime', 'series', 'reportingInstance', 'action', 'reason', 'related', 'type'] as const;

function convert(from: KubeObject, apiVersion: string, pairs: readonly (readonly [string, string])[]): KubeObject {
  const out: KubeObject = { kind: 'Event', apiVersion, metadata: from.metadata };
  for (const field of shared) if (from[field] !== undefined) out[field] = from[field];
  for (const [source, target] of pairs) if (from[source] !== undefined) out[target] = from[source];
  return out;
}

/**
 * The events.k8s.io/v1 fields Go leaves out when they hold their zero value (`omitempty`); their core
 * twins have none (`reportingComponent`, `reportingInstance`), so a core Event's `""` is not shown here.
 */
const omittedWhenEmpty = ['reportingController', 'reportingInstance', 'action', 'reason', 'note', 'type', 'deprecatedCount'] as const;

export const coreEventToEventsV1 = (event: KubeObject): KubeObject => {
  const out = convert(event, 'events.k8s.io/v1', renamed);
  out.eventTime ??= null;
  for (const field of omittedWhenEmpty) if (out[field] === '' || out[field] === 0) delete out[field];
  return out;
};

export const eventsV1ToCoreEvent = (event: KubeObject): KubeObject =>
  convert(
    event,
    'v1',
    renamed.map(([core, v1]) => [v1, core] as const),
  );
