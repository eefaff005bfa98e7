// The API write counter served at /metrics in the Prometheus text format, so benchmarks and tests
// can count the writes a controller made.

export class WriteCounter {
  readonly #counts = new Map<string, number>();

  record(group: string, resource: string, subresource: string | undefined, verb: string): void {
    const key = JSON.stringify([group, resource, subresource ?? '', verb]);
    this.#counts.set(key, (this.#counts.get(key) ?? 0) + 1);
  }

  /** The count for one series (0 when never seen). */
  get(group: string, resource: string, subresource: string | undefined, verb: string): number {
    return this.#counts.get(JSON.stringify([group, resource, subresource ?? '', verb])) ?? 0;
  }

  total(): number {
    let n = 0;
    for (const v of this.#counts.values()) n += v;
    return n;
  }

  exposition(): string {
    const lines = [
      '# HELP sandbox_api_writes_total Write requests received by the sandbox API server, by resource, subresource and verb.',
      '# TYPE sandbox_api_writes_total counter',
    ];
    for (const [key, count] of [...this.#counts.entries()].sort(([a], [b]) => (a < b ? -1 : 1))) {
      const [group, resource, subresource, verb] = JSON.parse(key) as [string, string, string, string];
      const labels = [`group="${escapeLabel(group)}"`, `resource="${escapeLabel(resource)}"`, `subresource="${escapeLabel(subresource)}"`, `verb="${escapeLabel(verb)}"`];
      lines.push(`sandbox_api_writes_total{${labels.join(',')}} ${count}`);
    }
    return `${lines.join('\n')}\n`;
  }
}

const escapeLabel = (value: string): string => value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
