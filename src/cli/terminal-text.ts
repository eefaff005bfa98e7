// What `podops` prints comes in large part from the cluster: names, labels, messages of rules, hooks, events and
// API errors. Anyone who can write such a string could otherwise drive the user's terminal (ESC sequences that
// set the window title, clear the screen, rewrite earlier lines; a carriage return that hides the start of a
// line; bidirectional controls that reorder what is shown). So every command's output goes through one filter
// that shows those characters escaped instead; nothing podops itself prints needs them.

/**
 * C0 controls but tab and newline, DEL, C1 controls (a terminal may take 0x9B as CSI), and the Unicode controls
 * that reorder text (bidirectional embeddings, overrides and isolates).
 */
const isControl = (code: number): boolean =>
  (code < 0x20 && code !== 0x09 && code !== 0x0a) || (code >= 0x7f && code <= 0x9f) || (code >= 0x202a && code <= 0x202e) || (code >= 0x2066 && code <= 0x2069);

/**
 * An escape that reads the same in text and in JSON: JSON.stringify leaves C1 and bidirectional controls raw,
 * and in a JSON string `\u009b` stands for the same character, so `-o json` stays valid and equal.
 */
const escapeOf = (code: number): string => (code === 0x0d ? '\\r' : `\\u${code.toString(16).padStart(4, '0')}`);

/** `text` with the characters that control a terminal shown escaped (`\u001b`, `\r`, `\u202e`). */
export function terminalSafe(text: string): string {
  let safe = '';
  let from = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (!isControl(code)) continue;
    safe += `${text.slice(from, i)}${escapeOf(code)}`;
    from = i + 1;
  }
  return from === 0 ? text : safe + text.slice(from);
}

/**
 * `stream` with every write filtered by `terminalSafe` (bytes are read as UTF-8, a character split across
 * writes included); everything else is the stream's own.
 */
export function terminalSafeStream<T extends NodeJS.WritableStream>(stream: T): T {
  const decoder = new TextDecoder();
  const safe = (chunk: unknown): unknown =>
    typeof chunk === 'string' ? terminalSafe(chunk) : chunk instanceof Uint8Array ? terminalSafe(decoder.decode(chunk, { stream: true })) : chunk;
  const write = (chunk: unknown, ...rest: unknown[]): boolean => (stream.write as (...args: unknown[]) => boolean)(safe(chunk), ...rest);
  const end = (...args: unknown[]): T => {
    if (typeof args[0] !== 'function') args[0] = safe(args[0]);
    (stream.end as (...args: unknown[]) => unknown)(...args);
    return stream;
  };
  return new Proxy(stream, {
    get(target, property) {
      if (property === 'write') return write;
      if (property === 'end') return end;
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}
