// Building blocks of kubectl's column sets: column definitions and the cell renderings the
// printers share (`<none>`, ages, selectors, container names and images).

import { isJsonObject, readPath, type JsonObject, type KubeObject } from '../meta/object.ts';
import { parseTimestamp } from '../meta/time.ts';
import type { ColumnDefinition } from '../registry/types.ts';
import { humanDuration } from '../crd/index.ts';

export const none = '<none>';

export function column(name: string, type: string, description: string, priority = 0, format = ''): ColumnDefinition {
  return { name, type, format, description, priority };
}

export const nameColumn = column(
  'Name',
  'string',
  'Name must be unique within a namespace. It is the identifier clients use to read, update and delete the object.',
  0,
  'name',
);

export const ageColumn = column(
  'Age',
  'string',
  'CreationTimestamp is the server time when this object was created, shown as the time elapsed since then.',
);

/** translateTimestampSince: the elapsed time, `<unknown>` for an unset timestamp. */
export function since(timestamp: unknown, now: number): string {
  const ms = parseTimestamp(timestamp);
  return ms === undefined ? '<unknown>' : humanDuration(now - ms);
}

export const ageOf = (object: KubeObject, now: number): string => since(object.metadata.creationTimestamp, now);

export const str = (value: unknown): string => (typeof value === 'string' ? value : '');

export const int = (value: unknown): number => (typeof value === 'number' ? value : 0);

export const objects = (value: unknown): JsonObject[] => (Array.isArray(value) ? value.filter(isJsonObject) : []);

export const orNone = (value: string): string => value || none;

/** A label map as `k=v,k2=v2` (keys sorted), as labels.SelectorFromSet(...).String() prints it. */
export function labelMapString(value: unknown): string {
  if (!isJsonObject(value)) return '';
  return Object.keys(value)
    .sort()
    .map((k) => `${k}=${str(value[k])}`)
    .join(',');
}

/**
 * metav1.FormatLabelSelector: the selector as LabelSelectorAsSelector(...).String() prints it, i.e.
 * every requirement (matchLabels and matchExpressions alike) sorted by key and the values of
 * `in`/`notin` sorted; `<none>` when empty.
 */
export function formatLabelSelector(selector: unknown): string {
  if (!isJsonObject(selector)) return none;
  const parts: { key: string; text: string }[] = [];
  if (isJsonObject(selector.matchLabels)) {
    for (const [key, value] of Object.entries(selector.matchLabels)) parts.push({ key, text: `${key}=${str(value)}` });
  }
  for (const expr of objects(selector.matchExpressions)) {
    const key = str(expr.key);
    const values = (Array.isArray(expr.values) ? expr.values.map(String) : []).sort().join(',');
    const text = { In: `${key} in (${values})`, NotIn: `${key} notin (${values})`, Exists: key, DoesNotExist: `!${key}` }[str(expr.operator)];
    if (text !== undefined) parts.push({ key, text });
  }
  // Go's sort.Sort by key: byte order, which for the ASCII of label keys is code-unit order.
  parts.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return parts.map((p) => p.text).join(',') || none;
}

/** Names and images of a pod template's containers, comma-joined (the wide Containers/Images columns). */
export function templateContainers(object: KubeObject, templatePath: readonly string[]): [string, string] {
  const containers = objects(readPath(object, [...templatePath, 'spec', 'containers']));
  return [containers.map((c) => str(c.name)).join(','), containers.map((c) => str(c.image)).join(',')];
}

export const containersColumn = column('Containers', 'string', 'Names of each container in the template.', 1);
export const imagesColumn = column('Images', 'string', 'Images referenced by each container in the template.', 1);
export const selectorColumn = column('Selector', 'string', 'Label query over the objects this one manages.', 1);
