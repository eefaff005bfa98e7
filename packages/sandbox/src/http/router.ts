// Splitting a request path into what it addresses, as kube-apiserver's RequestInfoFactory does:
// /api/v1/[watch/][namespaces/NS/]RESOURCE[/NAME[/SUBRESOURCE]] and the same under /apis/GROUP/VERSION.
// `namespaces/NAME/status` and `namespaces/NAME/finalize` address the namespace itself. The path is
// already decoded (./request-target.ts), so a segment is used as it stands: `..` is a name.

export interface ResourcePath {
  type: 'resource';
  group: string;
  version: string;
  namespace: string | undefined;
  resource: string;
  name: string | undefined;
  subresource: string | undefined;
  /** The legacy `/watch/` path prefix. */
  watchPrefix: boolean;
  /** Extra path segments past the subresource (not served). */
  extra: boolean;
}

export type RoutedPath =
  | ResourcePath
  | { type: 'legacy-root' }
  | { type: 'groups-root' }
  | { type: 'group'; group: string }
  | { type: 'group-version'; group: string; version: string }
  | { type: 'other'; path: string };

const namespaceSubresources = new Set(['status', 'finalize']);

export function routePath(pathname: string): RoutedPath {
  const parts = pathname.split('/').filter(Boolean);
  let group: string;
  let version: string | undefined;
  let rest: string[];
  if (parts[0] === 'api') {
    if (parts.length === 1) return { type: 'legacy-root' };
    group = '';
    version = parts[1];
    rest = parts.slice(2);
  } else if (parts[0] === 'apis') {
    if (parts.length === 1) return { type: 'groups-root' };
    group = parts[1] ?? '';
    if (parts.length === 2) return { type: 'group', group };
    version = parts[2];
    rest = parts.slice(3);
  } else {
    return { type: 'other', path: pathname };
  }
  if (!version) return { type: 'other', path: pathname };
  if (rest.length === 0) return { type: 'group-version', group, version };
  let watchPrefix = false;
  if (rest[0] === 'watch') {
    watchPrefix = true;
    rest = rest.slice(1);
  }
  let namespace: string | undefined;
  if (rest[0] === 'namespaces' && rest.length > 1) {
    namespace = rest[1];
    if (rest.length > 2 && !namespaceSubresources.has(rest[2] ?? '')) {
      rest = rest.slice(2);
    } else {
      return {
        type: 'resource',
        group,
        version,
        namespace: undefined,
        resource: 'namespaces',
        name: namespace,
        subresource: rest[2],
        watchPrefix,
        extra: rest.length > 3,
      };
    }
  }
  return {
    type: 'resource',
    group,
    version,
    namespace,
    resource: rest[0] ?? '',
    name: rest[1],
    subresource: rest[2],
    watchPrefix,
    extra: rest.length > 3,
  };
}
