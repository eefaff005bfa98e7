// Table output of custom resources as the apiextensions server's table convertor produces it:
// a `Name` column, then the version's additionalPrinterColumns (or `Age` when it lists none).
// Cells keep the column's JSON type; a missing value is null (kubectl shows `<none>`).

import { isJsonObject } from '../meta/object.ts';
import { parseTimestamp } from '../meta/time.ts';
import type { ColumnDefinition } from '../registry/types.ts';
import { goValue } from './go-format.ts';
import { humanDuration } from './human-duration.ts';
import { evaluateJsonPath } from './jsonpath.ts';

const nameDescription =
  'Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names';
const creationTimestampDescription =
  'CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata';

export interface CrdPrinterColumns {
  /** The Table's `columnDefinitions`, `Name` first. */
  readonly columnDefinitions: readonly ColumnDefinition[];
  /** The JSONPath of each column after `Name`. */
  readonly jsonPaths: readonly string[];
}

/** The Table columns of a CRD version (an entry of `spec.versions`). */
export function printerColumnsFor(crdVersion: unknown): CrdPrinterColumns {
  const declared = isJsonObject(crdVersion) && Array.isArray(crdVersion.additionalPrinterColumns) ? crdVersion.additionalPrinterColumns.filter(isJsonObject) : [];
  const columns = declared.length
    ? declared
    : [{ name: 'Age', type: 'date', description: creationTimestampDescription, jsonPath: '.metadata.creationTimestamp' }];
  const text = (v: unknown): string => (typeof v === 'string' ? v : '');
  return {
    columnDefinitions: [
      { name: 'Name', type: 'string', format: 'name', description: nameDescription, priority: 0 },
      ...columns.map((c) => ({
        name: text(c.name),
        type: text(c.type),
        format: text(c.format),
        description: text(c.description) || `Custom resource definition column (in JSONPath format): ${text(c.jsonPath)}`,
        priority: typeof c.priority === 'number' ? c.priority : 0,
      })),
    ],
    jsonPaths: columns.map((c) => text(c.jsonPath)),
  };
}

/** The cells of one object's row; `now` (milliseconds) is the reference for `date` columns. */
export function printerRowCells(columns: CrdPrinterColumns, obj: unknown, now: number): unknown[] {
  const metadata = isJsonObject(obj) && isJsonObject(obj.metadata) ? obj.metadata : {};
  const cells: unknown[] = [typeof metadata.name === 'string' ? metadata.name : ''];
  columns.jsonPaths.forEach((path, i) => {
    const [value] = evaluateJsonPath(path, obj);
    const type = columns.columnDefinitions[i + 1]?.type ?? 'string';
    cells.push(value === undefined ? null : cellOf(type, value, now));
  });
  return cells;
}

function cellOf(type: string, value: unknown, now: number): unknown {
  if (type === 'string') return printed(value);
  if (value === null) return null;
  switch (type) {
    case 'integer':
      return typeof value === 'number' ? Math.trunc(value) : null;
    case 'number':
      return typeof value === 'number' ? value : null;
    case 'boolean':
      return typeof value === 'boolean' ? value : null;
    case 'date': {
      if (typeof value !== 'string') return null;
      if (value === '' || value === 'null') return '<unknown>';
      const ms = parseTimestamp(value);
      return ms === undefined || !/^\d{4}-\d{2}-\d{2}T/.test(value) ? '<invalid>' : humanDuration(now - ms);
    }
    default:
      return null;
  }
}

// JSONPath's text output: objects and lists as JSON, null as `<no value>`, scalars as Go prints them.
function printed(value: unknown): string {
  if (value === null) return '<no value>';
  if (typeof value === 'object') return goJson(value);
  return goValue(value);
}

// encoding/json: map keys sorted, and <, > and & escaped.
function goJson(value: unknown): string {
  const sorted = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(sorted);
    if (!isJsonObject(v)) return v;
    return Object.fromEntries(
      Object.keys(v)
        .sort()
        .map((k) => [k, sorted(v[k])]),
    );
  };
  return JSON.stringify(sorted(value)).replace(/[<>&]/g, (c) => `\\u00${c.charCodeAt(0).toString(16)}`);
}
