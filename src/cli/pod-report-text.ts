// The JSON rendering of a lifecycle report, shared by `podops inspect` and `podops status`.

/** JSON with nanosecond timestamps as decimal strings (the protocol's own format). */
export const reportJson = (report: unknown): string =>
  `${JSON.stringify(report, (_key, value: unknown) => (typeof value === 'bigint' ? value.toString() : value), 2)}\n`;
