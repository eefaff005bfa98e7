// The request-target as Go's net/http reads it (url.ParseRequestURI), which decides what every
// handler of kube-apiserver sees: the path is percent-decoded once and never cleaned, so `.` and `..`
// segments (raw or escaped) reach the registry as names; a target Go cannot parse (a bad escape, a
// relative path, a malformed host) is refused before any handler runs. WHATWG's URL would resolve
// dot segments and so address another object.

export interface RequestTarget {
  /** The decoded path (`%2F` decodes to a separator, as in Go's URL.Path). */
  path: string;
  query: URLSearchParams;
}

const isHex = (c: number): boolean => (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66);

/** Go's unescape: every `%` must start a two-digit hex escape; the bytes are read as UTF-8. */
function unescape(text: string): string | undefined {
  if (!text.includes('%')) return text;
  const bytes: number[] = [];
  const raw = Buffer.from(text, 'utf8');
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i] ?? 0;
    if (c !== 0x25) {
      bytes.push(c);
      continue;
    }
    if (!isHex(raw[i + 1] ?? 0) || !isHex(raw[i + 2] ?? 0)) return undefined;
    bytes.push(parseInt(String.fromCharCode(raw[i + 1] ?? 0, raw[i + 2] ?? 0), 16));
    i += 2;
  }
  return Buffer.from(bytes).toString('utf8');
}

// Go's shouldEscape for a host: these ASCII characters may appear unescaped.
const hostCharacter = /^[A-Za-z0-9\-._~!$&'()*+,;=:[\]<>"%]$/;

/** Go's parseHost: a bracketed IPv6 literal with an optional port, or a name with an optional numeric port. */
function validHost(host: string): boolean {
  let port = '';
  if (host.startsWith('[')) {
    const close = host.lastIndexOf(']');
    if (close < 0) return false;
    port = host.slice(close + 1);
  } else if (host.includes(':')) {
    port = host.slice(host.lastIndexOf(':'));
  }
  if (port && !/^:\d*$/.test(port)) return false;
  return [...host].every((ch) => ch.charCodeAt(0) >= 0x80 || hostCharacter.test(ch)) && unescape(host) !== undefined;
}

/** Origin form (`/path?query`), absolute form (`http://host/path`) or `*`; undefined when Go refuses it. */
export function parseRequestTarget(raw: string): RequestTarget | undefined {
  const question = raw.indexOf('?');
  const rest = question < 0 ? raw : raw.slice(0, question);
  const query = new URLSearchParams(question < 0 ? '' : raw.slice(question + 1));
  if (rest === '*') return { path: '*', query };
  let rawPath = rest;
  const scheme = /^[A-Za-z][A-Za-z0-9+.-]*:/.exec(rest)?.[0];
  if (scheme) {
    rawPath = rest.slice(scheme.length);
    if (rawPath.startsWith('//')) {
      const slash = rawPath.indexOf('/', 2);
      const authority = slash < 0 ? rawPath.slice(2) : rawPath.slice(2, slash);
      if (!validHost(authority.slice(authority.lastIndexOf('@') + 1))) return undefined;
      rawPath = slash < 0 ? '' : rawPath.slice(slash);
    } else if (!rawPath.startsWith('/')) {
      // An opaque URL (`scheme:opaque`) has no path.
      return { path: '', query };
    }
  } else if (!rest.startsWith('/')) {
    return undefined;
  }
  const path = unescape(rawPath);
  return path === undefined ? undefined : { path, query };
}
