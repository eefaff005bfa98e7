// How deep request bodies may nest. Go's decoders refuse more than 10,000 nested arrays and objects
// (encoding/json: `invalid character '[' exceeded max depth`; go-yaml: `yaml: exceeded max depth of
// 10000`). The sandbox's own bound is lower: on Node's default stack, JSON.stringify and the
// recursive steps of a write (patches, managedFields, validation, pruning) run out a few thousand
// levels deep, and the YAML library's writer from 600 to 1,000, so what nests deeper than
// `sandboxMaxDepth` is refused with the same errors instead of overflowing the stack.

export const goMaxDepth = 10_000;
export const sandboxMaxDepth = 500;

export interface DepthExcess {
  /** The bound passed: Go's when the text nests past it, else the sandbox's. */
  limit: number;
  /** Byte offset of the first bracket past that bound. */
  offset: number;
}

/**
 * A byte scan of a JSON text (or YAML flow collections) for brackets nested too deep, double-quoted
 * strings skipped; nothing is parsed, so it is safe on any input.
 */
export function jsonDepthExcess(bytes: Uint8Array): DepthExcess | undefined {
  let depth = 0;
  let inString = false;
  let pastSandbox = -1;
  for (let i = 0; i < bytes.length; i++) {
    const c = bytes[i];
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) {
      inString = true;
    } else if (c === 0x5b || c === 0x7b) {
      depth++;
      if (depth > goMaxDepth) return { limit: goMaxDepth, offset: i };
      if (depth > sandboxMaxDepth && pastSandbox < 0) pastSandbox = i;
    } else if ((c === 0x5d || c === 0x7d) && depth > 0) {
      depth--;
    }
  }
  return pastSandbox < 0 ? undefined : { limit: sandboxMaxDepth, offset: pastSandbox };
}

/** Nesting of a decoded value (a scalar is 0), walked without recursion. */
export function nestingOf(value: unknown): number {
  let deepest = 0;
  const pending: [unknown, number][] = [[value, 0]];
  for (let next = pending.pop(); next; next = pending.pop()) {
    const [item, depth] = next;
    if (item === null || typeof item !== 'object') continue;
    deepest = Math.max(deepest, depth + 1);
    for (const child of Object.values(item)) pending.push([child, depth + 1]);
  }
  return deepest;
}

/** go-yaml's refusal of a text nested too deep; the message has no `yaml: ` prefix (`line 3: exceeded max depth of 10000`). */
export class YamlDepthError extends Error {
  override readonly name = 'YamlDepthError';
}

function yamlDepthError(bytes: Uint8Array, excess: DepthExcess): YamlDepthError {
  // go-yaml names the line of the bracket unless it is the first.
  const line = bytes.subarray(0, excess.offset).filter((c) => c === 0x0a).length;
  return new YamlDepthError(`${line ? `line ${line + 1}: ` : ''}exceeded max depth of ${excess.limit}`);
}

/**
 * Parses a YAML text with `parse` once its flow collections are nested within the bound, and checks
 * the parsed value too (block collections nest without brackets). Throws YamlDepthError, or what
 * `parse` throws.
 */
export function parseYamlWithinDepth(bytes: Uint8Array, parse: (text: string) => unknown): unknown {
  const excess = jsonDepthExcess(bytes);
  if (excess) throw yamlDepthError(bytes, excess);
  const value = parse(new TextDecoder().decode(bytes));
  if (nestingOf(value) > sandboxMaxDepth) throw yamlDepthError(bytes, { limit: sandboxMaxDepth, offset: 0 });
  return value;
}
