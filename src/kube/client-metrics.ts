// What podops asks of the API server, on /metrics: client-go's request metrics (`rest_client_requests_total`,
// `rest_client_request_duration_seconds`, the names every controller-runtime dashboard reads) and podops' own
// count by Kubernetes verb and resource, which says which read or write a change made cheaper or dearer.

import type { CompletedRequest } from './client.ts';
import { Counter, Histogram, type Registry } from './prometheus.ts';

// client-go's latency buckets.
const LATENCY_BUCKETS = [0.005, 0.025, 0.1, 0.25, 0.5, 1, 2, 4, 8, 15, 30, 60];

/** A request path as kube-apiserver's RequestInfo reads it: the resource, subresource and whether it names one object. */
export function resourceOfPath(path: string): { group: string; resource: string; subresource: string; named: boolean } | undefined {
  const parts = path.split('/').filter(Boolean);
  const rest = parts[0] === 'api' ? parts.slice(2) : parts[0] === 'apis' ? parts.slice(3) : undefined;
  if (!rest || rest.length === 0) return undefined;
  const group = parts[0] === 'apis' ? (parts[1] ?? '') : '';
  // `namespaces/NAME/RESOURCE...`, but `namespaces/NAME` and `namespaces/NAME/{status,finalize}` are the namespace itself.
  const scoped = rest[0] === 'namespaces' && rest.length > 2 && rest[2] !== 'status' && rest[2] !== 'finalize' ? rest.slice(2) : rest;
  return { group, resource: scoped[0] ?? '', subresource: scoped[2] ?? '', named: scoped[1] !== undefined };
}

/** The Kubernetes verb of a request (list and watch are GETs of a collection). */
export function verbOf(method: string, named: boolean, watch: boolean): string {
  switch (method) {
    case 'GET':
      return watch ? 'watch' : named ? 'get' : 'list';
    case 'POST':
      return 'create';
    case 'PUT':
      return 'update';
    case 'PATCH':
      return 'patch';
    case 'DELETE':
      return named ? 'delete' : 'deletecollection';
    default:
      return method.toLowerCase();
  }
}

export class ClientMetrics {
  readonly #requests: Counter<'code' | 'method' | 'host'>;
  readonly #latency: Histogram<'verb' | 'host'>;
  readonly #byResource: Counter<'verb' | 'group' | 'resource' | 'subresource' | 'code'>;

  constructor(registry: Registry) {
    const registers = [registry];
    this.#requests = new Counter({ name: 'rest_client_requests_total', help: 'Number of HTTP requests, partitioned by status code, method, and host.', labelNames: ['code', 'method', 'host'], registers });
    this.#latency = new Histogram({
      name: 'rest_client_request_duration_seconds',
      help: 'Request latency in seconds. Broken down by verb, and host.',
      labelNames: ['verb', 'host'],
      buckets: LATENCY_BUCKETS,
      registers,
    });
    this.#byResource = new Counter({
      name: 'podops_api_requests_total',
      help: 'Requests podops sent to the API server, by Kubernetes verb (get, list, watch, create, update, patch, delete), group, resource, subresource and HTTP status code ("<error>" when none came)',
      labelNames: ['verb', 'group', 'resource', 'subresource', 'code'],
      registers,
    });
  }

  /** The hook a KubeClient calls once each request is answered (a watch once its stream opens). */
  readonly observe = (request: CompletedRequest): void => {
    const code = request.code === undefined ? '<error>' : String(request.code);
    this.#requests.inc({ code, method: request.method, host: request.host });
    this.#latency.observe({ verb: request.method, host: request.host }, request.seconds);
    const target = resourceOfPath(request.path);
    if (!target) return;
    const { group, resource, subresource, named } = target;
    this.#byResource.inc({ verb: verbOf(request.method, named, request.watch), group, resource, subresource, code });
  };
}
