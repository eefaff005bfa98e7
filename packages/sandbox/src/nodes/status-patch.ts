// The strategic merge patch a kubelet sends to pods/status (statusutil.PatchPodStatus): only what
// changed; conditions merged by type (removed keys set to null), in the order `$setElementOrder` gives.
// Sending the difference rather than a PUT leaves other writers' conditions (readiness gates) alone.
// A null field and a missing one are the same (a Go zero value such as `lastProbeTime`).

import { isJsonObject, jsonEqual, type JsonObject } from '../meta/object.ts';

const withoutNulls = (o: JsonObject): JsonObject => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== null));
const objects = (value: unknown): JsonObject[] => (Array.isArray(value) ? value.filter(isJsonObject).map(withoutNulls) : []);

/** A list element's patch: the new fields, and null for the fields it lost. */
function elementPatch(next: JsonObject, before: JsonObject | undefined): JsonObject {
  const patch: JsonObject = { ...next };
  for (const key of Object.keys(before ?? {})) if (!(key in next)) patch[key] = null;
  return patch;
}

/** `{status: …}` turning `current` into `desired` (which keeps every current condition), or undefined when they are equal. */
export function podStatusPatch(current: JsonObject, desired: JsonObject): JsonObject | undefined {
  const patch: JsonObject = {};
  for (const key of new Set([...Object.keys(current), ...Object.keys(desired)])) {
    if (key === 'conditions' || jsonEqual(current[key], desired[key])) continue;
    patch[key] = desired[key] ?? null;
  }
  const before = objects(current.conditions);
  const after = objects(desired.conditions);
  const changed = after.filter((c) => !jsonEqual(c, before.find((b) => b.type === c.type)));
  const reordered = !jsonEqual(
    before.map((c) => c.type),
    after.map((c) => c.type),
  );
  if (changed.length || reordered) {
    patch.conditions = changed.map((c) => elementPatch(c, before.find((b) => b.type === c.type)));
    patch['$setElementOrder/conditions'] = after.map((c) => ({ type: c.type }));
  }
  return Object.keys(patch).length ? { status: patch } : undefined;
}
