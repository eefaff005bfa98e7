// The `labelSelector` and `fieldSelector` of a list or watch, as one predicate over stored objects.

import type { KubeObject } from '../meta/object.ts';
import type { ResourceDefinition } from '../registry/types.ts';
import { compileFieldSelector } from '../selectors/fields.ts';
import { isEverything, matchesLabels, parseLabelSelector } from '../selectors/labels.ts';

/** Undefined when both selectors select everything (callers then skip filtering entirely). */
export function objectFilter(def: ResourceDefinition, labelSelector: string, fieldSelector: string): ((object: KubeObject) => boolean) | undefined {
  const labels = parseLabelSelector(labelSelector);
  // Stored objects are in storage form (events.k8s.io Events are kept as core Events).
  const storageGroup = def.storageApiVersion.includes('/') ? def.storageApiVersion.split('/')[0] ?? '' : '';
  const fields = fieldSelector.trim() ? compileFieldSelector({ group: storageGroup, kind: def.kind }, fieldSelector) : undefined;
  const anyLabel = isEverything(labels);
  if (anyLabel && !fields) return undefined;
  return (object) => (anyLabel || matchesLabels(labels, object.metadata.labels)) && (!fields || fields(object));
}
