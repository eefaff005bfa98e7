// Reading a record by a key that is someone's text (a request, a label, a field path): a plain object answers
// `constructor`, `toString` or `__proto__` from its prototype, which no caller means.

/** `record[key]` when the record itself has the key. */
export function ownMember<T>(record: Readonly<Record<string, T>> | undefined, key: string): T | undefined {
  return record !== undefined && Object.hasOwn(record, key) ? record[key] : undefined;
}
