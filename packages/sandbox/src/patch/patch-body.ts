// Decoding a PATCH body by its content type, with the API server's wording for malformed bodies.
// The shape checks (an array of operations, an object) belong to the patch functions themselves.

import YAML from 'yaml';
import { decodeGoJson, GoJsonSyntaxError } from './go-json.ts';
import { parseYamlWithinDepth } from './json-depth.ts';
import { badRequest } from './status.ts';

export type PatchType = 'json' | 'merge' | 'strategic' | 'apply';

const contentTypes: Readonly<Record<string, PatchType>> = {
  'application/json-patch+json': 'json',
  'application/merge-patch+json': 'merge',
  'application/strategic-merge-patch+json': 'strategic',
  'application/apply-patch+yaml': 'apply',
};

/** The patch type of a Content-Type header (parameters such as `charset` ignored), or undefined. */
export function patchTypeOf(contentType: string): PatchType | undefined {
  const mediaType = contentType.split(';')[0]?.trim().toLowerCase() ?? '';
  return contentTypes[mediaType];
}

// go-yaml v2 (behind sigs.k8s.io/yaml) reads YAML 1.1 but leaves timestamps as strings when the
// target is untyped, and a duplicate key keeps the last value.
const yamlOptions = {
  version: '1.1' as const,
  uniqueKeys: false,
  customTags: (tags: YAML.Tags): YAML.Tags => tags.filter((t) => typeof t === 'string' || t.tag !== 'tag:yaml.org,2002:timestamp'),
};

/**
 * Parses a PATCH body. Throws StatusError 400 as the server words it:
 * `error decoding patch: <Go JSON error>` for JSON and merge patches, the bare Go error for a
 * strategic merge patch, and `error decoding YAML: …` for an apply patch.
 */
export function decodePatchBody(type: PatchType, body: string | Uint8Array): unknown {
  const bytes = typeof body === 'string' ? new TextEncoder().encode(body) : body;
  if (type === 'apply') {
    try {
      return parseYamlWithinDepth(bytes, (text) => YAML.parse(text, yamlOptions)) ?? {};
    } catch (e) {
      throw badRequest(`error decoding YAML: error converting YAML to JSON: yaml: ${(e as Error).message.split('\n')[0] ?? ''}`);
    }
  }
  try {
    return decodeGoJson(bytes);
  } catch (e) {
    if (!(e instanceof GoJsonSyntaxError)) throw e;
    throw badRequest(type === 'strategic' ? e.message : `error decoding patch: ${e.message}`);
  }
}
