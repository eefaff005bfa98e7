// Strict decoding rejects JSON objects that repeat a key (`duplicate field "metadata.name"`);
// JSON.parse silently keeps the last one, so a small scanner finds the repeats and their paths.

/** Paths (dotted, with `[i]` for list items) of repeated keys in a JSON text already known to parse. */
export function duplicateKeys(text: string): string[] {
  const found: string[] = [];
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
        if (seen.has(key)) found.push(child);
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
