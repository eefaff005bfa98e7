// Content negotiation on `Accept`: JSON (also for protobuf requests, which the server may answer
// in JSON), YAML, server-side Tables, PartialObjectMetadata, and aggregated discovery documents.

export type Representation =
  | { kind: 'json' }
  | { kind: 'yaml' }
  | { kind: 'table'; apiVersion: string }
  | { kind: 'partial' }
  | { kind: 'discovery'; version: 'v2' | 'v2beta1' };

interface MediaRange {
  type: string;
  params: Map<string, string>;
}

function parseAccept(header: string): MediaRange[] {
  return header
    .split(',')
    .map((part) => {
      const [type = '', ...rawParams] = part.split(';').map((s) => s.trim());
      const params = new Map<string, string>();
      for (const p of rawParams) {
        const eq = p.indexOf('=');
        if (eq > 0) params.set(p.slice(0, eq).trim().toLowerCase(), p.slice(eq + 1).trim());
      }
      return { type: type.toLowerCase(), params };
    })
    .filter((r) => r.type);
}

/** The media types of the API's serializer: what a resource route produces, and what the handlers name when none fits. */
export const servedMediaTypes: readonly string[] = ['application/json', 'application/yaml', 'application/vnd.kubernetes.protobuf'];

/**
 * go-restful's route selection, which runs before any handler: some media type of `Accept` (parameters
 * and quality dropped, compared exactly) must be one the route produces, or be `*\/*`; no header counts
 * as `*\/*`. A route that fails it is a 406 with details `{}` (NewGenericServerResponse).
 */
export function routeAccepts(accept: string | undefined, produces: readonly string[]): boolean {
  if (accept === undefined || accept === '') return true;
  return accept.split(',').some((part) => {
    const mediaType = (part.split(';')[0] ?? '').trim();
    return mediaType === '*/*' || produces.includes(mediaType);
  });
}

/** The first representation the client accepts, or undefined (406). */
export function negotiate(accept: string | undefined, allowDiscovery: boolean): Representation | undefined {
  if (!accept || !accept.trim()) return { kind: 'json' };
  for (const range of parseAccept(accept)) {
    const as = range.params.get('as');
    const g = range.params.get('g');
    const v = range.params.get('v');
    const jsonLike = range.type === 'application/json' || range.type === 'application/vnd.kubernetes.protobuf' || range.type === '*/*' || range.type === 'application/*';
    if (as) {
      if (!jsonLike) continue;
      if (as === 'Table' && g === 'meta.k8s.io' && (v === 'v1' || v === 'v1beta1')) return { kind: 'table', apiVersion: `meta.k8s.io/${v}` };
      if ((as === 'PartialObjectMetadataList' || as === 'PartialObjectMetadata') && g === 'meta.k8s.io' && v === 'v1') return { kind: 'partial' };
      if (allowDiscovery && as === 'APIGroupDiscoveryList' && g === 'apidiscovery.k8s.io' && (v === 'v2' || v === 'v2beta1')) {
        return { kind: 'discovery', version: v };
      }
      continue;
    }
    if (jsonLike) return { kind: 'json' };
    if (range.type === 'application/yaml') return { kind: 'yaml' };
  }
  return undefined;
}
