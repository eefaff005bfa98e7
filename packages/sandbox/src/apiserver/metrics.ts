// kube-apiserver's request counter, `apiserver_request_total`, served at /metrics in the Prometheus text
// format under the same name and labels, so a benchmark that counts what a cluster asked of its API server
// works unchanged against the sandbox and a real kube-apiserver. Every request of the resource API is counted
// once it is answered (a watch once it ends, as kube-apiserver does), whoever sent it: kubectl, an operator,
// or one of the sandbox's own controllers.

import type { Verb } from './request.ts';

/** The labels of one series, as kube-apiserver names them. */
export interface RequestLabels {
  /** GET, LIST, WATCH, POST, PUT, PATCH, APPLY (a server-side apply patch), DELETE, DELETECOLLECTION. */
  verb: string;
  /** `All` for a dry run, otherwise empty. */
  dry_run: string;
  group: string;
  version: string;
  resource: string;
  subresource: string;
  /** `resource` (one named object), `namespace` (a namespace's collection) or `cluster`. */
  scope: string;
  component: string;
  code: string;
}

const LABEL_NAMES = ['code', 'component', 'dry_run', 'group', 'resource', 'scope', 'subresource', 'verb', 'version'] as const;

const HTTP_VERBS: Record<Verb, string> = {
  get: 'GET',
  list: 'LIST',
  watch: 'WATCH',
  create: 'POST',
  update: 'PUT',
  patch: 'PATCH',
  delete: 'DELETE',
  deletecollection: 'DELETECOLLECTION',
};

/** The series labels of a request, as kube-apiserver's request metrics derive them. */
export function requestLabels(
  request: { verb: Verb; patchType?: string | undefined; dryRun: boolean; group: string; version: string; resource: string; subresource?: string | undefined; namespace?: string | undefined; name?: string | undefined },
  code: number,
): RequestLabels {
  const apply = request.verb === 'patch' && (request.patchType ?? '').startsWith('application/apply-patch');
  return {
    verb: apply ? 'APPLY' : HTTP_VERBS[request.verb],
    dry_run: request.dryRun ? 'All' : '',
    group: request.group,
    version: request.version,
    resource: request.resource,
    subresource: request.subresource ?? '',
    scope: request.name ? 'resource' : request.namespace ? 'namespace' : 'cluster',
    component: 'apiserver',
    code: String(code),
  };
}

export class RequestCounter {
  readonly #counts = new Map<string, number>();

  record(labels: RequestLabels): void {
    const key = JSON.stringify(LABEL_NAMES.map((name) => labels[name]));
    this.#counts.set(key, (this.#counts.get(key) ?? 0) + 1);
  }

  /** The sum of the series whose labels include `filter` (every request when it is empty). */
  count(filter: Partial<RequestLabels> = {}): number {
    let n = 0;
    for (const [labels, count] of this.#series()) if (Object.entries(filter).every(([name, value]) => labels[name as keyof RequestLabels] === value)) n += count;
    return n;
  }

  exposition(): string {
    const lines = [
      '# HELP apiserver_request_total [STABLE] Counter of apiserver requests broken out for each verb, dry run value, group, version, resource, scope, component, and HTTP response code.',
      '# TYPE apiserver_request_total counter',
    ];
    const series = [...this.#series()].map(([labels, count]) => `apiserver_request_total{${LABEL_NAMES.map((name) => `${name}="${escapeLabel(labels[name])}"`).join(',')}} ${count}`);
    lines.push(...series.sort());
    return `${lines.join('\n')}\n`;
  }

  *#series(): Iterable<[RequestLabels, number]> {
    for (const [key, count] of this.#counts) {
      const values = JSON.parse(key) as string[];
      yield [Object.fromEntries(LABEL_NAMES.map((name, i) => [name, values[i] ?? ''])) as unknown as RequestLabels, count];
    }
  }
}

const escapeLabel = (value: string): string => value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
