// Strict decoding rejects JSON objects that repeat a key (`duplicate field "metadata.name"`) and reports
// every problem in the order the decoder meets it in the text; JSON.parse silently keeps the last of a
// repeated key and orders keys its own way, so a small scanner walks the keys as written.

/** A key of a JSON text: its path (dotted, with `[i]` for list items), and whether its object had it already. */
export interface KeyOccurrence {
  path: string;
  repeat: boolean;
}

/** Paths of repeated keys in a JSON text already known to parse. */
export const duplicateKeys = (text: string): string[] => keysOf(text, true).map((key) => key.path);

/** Every key of a JSON text already known to parse, in document order. */
export const keyOccurrences = (text: string): KeyOccurrence[] => keysOf(text, false);

function keysOf(text: string, repeatsOnly: boolean): KeyOccurrence[] {
  const found: KeyOccurrence[] = [];
  let i = 0;
  const skipSpace = (): void => {
    while (i < text.length && ' \t\n\r'.includes(text[i] as string)) i++;
  };
  const readString = (): string => {
    let out = '';
    i++;
    while (i < text.length && text[i] !== '"') {
      if (text[i] === '\\') {
        out += text.slice(i, i + 2);
        i += 2;
      } else {
        out += text[i];
        i++;
      }
    }
    i++;
    return out.includes('\\') ? (JSON.parse(`"${out}"`) as string) : out;
  };
  const value = (path: string): void => {
    skipSpace();
    const c = text[i];
    if (c === '{') {
      i++;
      const seen = new Set<string>();
      skipSpace();
      if (text[i] === '}') {
        i++;
        return;
      }
      for (;;) {
        skipSpace();
        const key = readString();
        const child = path ? `${path}.${key}` : key;
        const repeat = seen.has(key);
        if (repeat || !repeatsOnly) found.push({ path: child, repeat });
        seen.add(key);
        skipSpace();
        i++; // ':'
        value(child);
        skipSpace();
        if (text[i++] === '}') return;
      }
    }
    if (c === '[') {
      i++;
      skipSpace();
      if (text[i] === ']') {
        i++;
        return;
      }
      for (let index = 0; ; index++) {
        value(`${path}[${index}]`);
        skipSpace();
        if (text[i++] === ']') return;
      }
    }
    if (c === '"') {
      readString();
      return;
    }
    while (i < text.length && !',}] \t\n\r'.includes(text[i] as string)) i++;
  };
  value('');
  return found;
}
