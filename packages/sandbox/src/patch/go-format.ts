// Go renderings in patch error messages that ../crd/go-format.ts does not cover. Decoded numbers
// are int64 when integral and float64 otherwise, as the server's JSON decoder produces them.

import { goTypeName, goValue } from '../crd/go-format.ts';

/** `fmt.Sprintf("%s", reflect.TypeOf(v))`: a nil value has a nil Type. */
export const reflectTypeString = (v: unknown): string => (v === null || v === undefined ? '%!s(<nil>)' : goTypeName(v));

/** `fmt.Sprintf("%s", v)`: strings as they are, other scalars in fmt's bad-verb notation. */
export function goString(v: unknown): string {
  if (typeof v === 'string') return v;
  if (v === null || v === undefined) return '%!s(<nil>)';
  if (typeof v === 'number' || typeof v === 'boolean') return `%!s(${goTypeName(v)}=${goValue(v)})`;
  return goValue(v);
}

/** Compact JSON with every object's keys sorted, as Go marshals a map[string]interface{}. */
export const sortedJson = (v: unknown): string =>
  JSON.stringify(v, (_key, value: unknown) =>
    value !== null && typeof value === 'object' && !Array.isArray(value)
      ? Object.fromEntries(Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : value,
  );

/** The JSON kind encoding/json names in "cannot unmarshal <kind> into Go value of type …". */
export function jsonKindName(v: unknown): string {
  if (typeof v === 'string') return 'string';
  if (typeof v === 'number') return 'number';
  if (typeof v === 'boolean') return 'bool';
  return Array.isArray(v) ? 'array' : 'object';
}

/** Whether two decoded values have the same Go dynamic type (int64 and float64 differ). */
export const sameGoType = (a: unknown, b: unknown): boolean => reflectTypeString(a) === reflectTypeString(b);
