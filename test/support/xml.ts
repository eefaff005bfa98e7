// A strict reader of the XML podops writes (JUnit reports): elements, double- or single-quoted attributes, text
// and character references, an XML declaration. Anything else, a mismatched or unclosed tag, a stray `<` or `&`,
// or text after the root element throws, naming the offset: what CI systems would refuse is refused here too.

export interface XmlElement {
  name: string;
  attributes: Record<string, string>;
  children: XmlElement[];
  /** The element's own text, references resolved. */
  text: string;
}

const NAME = /[A-Za-z_:][-A-Za-z0-9_.:]*/y;
const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

function unescape(raw: string, at: number): string {
  return raw.replace(/&([^;]*);|&/g, (whole, name: string | undefined) => {
    if (name === undefined) throw new Error(`a bare & at offset ${at}`);
    if (name in ENTITIES) return ENTITIES[name]!;
    const code = /^#x([0-9a-fA-F]+)$/.exec(name)?.[1] ?? /^#([0-9]+)$/.exec(name)?.[1];
    if (code === undefined) throw new Error(`unknown reference ${whole} at offset ${at}`);
    return String.fromCodePoint(name.startsWith('#x') ? parseInt(code, 16) : Number(code));
  });
}

export function parseXml(source: string): XmlElement {
  let at = 0;
  const fail = (what: string): never => {
    throw new Error(`${what} at offset ${at}: ${JSON.stringify(source.slice(at, at + 40))}`);
  };
  const skipSpace = () => {
    while (/\s/.test(source[at] ?? '')) at++;
  };
  const name = (): string => {
    NAME.lastIndex = at;
    const match = NAME.exec(source);
    if (!match) fail('a name expected');
    at += match![0].length;
    return match![0];
  };
  if (source.startsWith('<?xml')) {
    const end = source.indexOf('?>');
    if (end < 0) fail('an unclosed XML declaration');
    at = end + 2;
  }

  function element(): XmlElement {
    skipSpace();
    if (source[at] !== '<') fail('an element expected');
    at++;
    const node: XmlElement = { name: name(), attributes: {}, children: [], text: '' };
    for (;;) {
      skipSpace();
      if (source.startsWith('/>', at)) {
        at += 2;
        return node;
      }
      if (source[at] === '>') {
        at++;
        break;
      }
      const attribute = name();
      skipSpace();
      if (source[at] !== '=') fail(`= expected after attribute ${attribute}`);
      at++;
      skipSpace();
      const quote = source[at];
      if (quote !== '"' && quote !== "'") fail('a quoted attribute value expected');
      const end = source.indexOf(quote!, at + 1);
      if (end < 0) fail('an unclosed attribute value');
      const raw = source.slice(at + 1, end);
      if (raw.includes('<')) fail('< in an attribute value');
      if (attribute in node.attributes) fail(`attribute ${attribute} repeated`);
      node.attributes[attribute] = unescape(raw, at);
      at = end + 1;
    }
    for (;;) {
      const next = source.indexOf('<', at);
      if (next < 0) fail(`an unclosed element ${node.name}`);
      node.text += unescape(source.slice(at, next), at);
      at = next;
      if (source.startsWith('</', at)) {
        at += 2;
        const closing = name();
        if (closing !== node.name) fail(`</${closing}> closes <${node.name}>`);
        skipSpace();
        if (source[at] !== '>') fail('> expected');
        at++;
        return node;
      }
      node.children.push(element());
    }
  }

  const root = element();
  skipSpace();
  if (at < source.length) fail('content after the root element');
  return root;
}
