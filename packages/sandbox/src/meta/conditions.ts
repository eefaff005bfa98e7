// metav1.Condition lists as apimachinery's meta helpers change them (SetStatusCondition): a condition
// keeps its lastTransitionTime unless its status changes, and is written in the Go field order.

import { isJsonObject, type JsonObject } from './object.ts';
import { formatTimestamp } from './time.ts';

export interface StatusCondition {
  type: string;
  status: string;
  reason: string;
  message: string;
  /** 0 is left out, as `omitempty` leaves it out. */
  observedGeneration: number;
}

/** A metav1.Condition in its JSON field order. */
function render(c: StatusCondition, lastTransitionTime: unknown): JsonObject {
  return {
    type: c.type,
    status: c.status,
    ...(c.observedGeneration ? { observedGeneration: c.observedGeneration } : {}),
    lastTransitionTime,
    reason: c.reason,
    message: c.message,
  };
}

/** SetStatusCondition: the list with `wanted` set; a new condition or a changed status gets the time `now`. */
export function setStatusCondition(conditions: unknown, wanted: StatusCondition, now: number): JsonObject[] {
  const list = Array.isArray(conditions) ? conditions.filter(isJsonObject) : [];
  const existing = list.find((c) => c.type === wanted.type);
  if (!existing) return [...list, render(wanted, formatTimestamp(now))];
  const lastTransitionTime = existing.status === wanted.status ? existing.lastTransitionTime : formatTimestamp(now);
  return list.map((c) => (c === existing ? render(wanted, lastTransitionTime) : c));
}

export function findStatusCondition(conditions: unknown, type: string): JsonObject | undefined {
  return Array.isArray(conditions) ? conditions.filter(isJsonObject).find((c) => c.type === type) : undefined;
}
