// Generates src/controllers/apps/pod-template-go-types.ts: the Go type layout of
// k8s.io/api/core/v1.PodTemplateSpec (every struct reachable from it, its fields in declaration order
// with their JSON names), read from the runtime type information of a Go binary built against the
// same k8s.io/api release as kube-controller-manager, such as kubectl v1.32. The Deployment
// controller's pod-template-hash is computed over go-spew's rendering of that struct, so the sandbox
// needs the exact field lists to produce the same hashes.
//
//   node scripts/generate-pod-template-go-types.ts /usr/bin/kubectl 'kubectl v1.32.4'   (ELF amd64, Go 1.21+)

import { readFileSync, realpathSync, writeFileSync } from 'node:fs';

const binaryPath = realpathSync(process.argv[2] ?? '/usr/bin/kubectl');
const out = new URL('../src/controllers/apps/pod-template-go-types.ts', import.meta.url);
const bin = readFileSync(binaryPath);

interface Section {
  name: string;
  addr: number;
  offset: number;
  size: number;
}

function sections(): Section[] {
  const shoff = Number(bin.readBigUInt64LE(0x28));
  const entrySize = bin.readUInt16LE(0x3a);
  const count = bin.readUInt16LE(0x3c);
  const namesIndex = bin.readUInt16LE(0x3e);
  const headers = Array.from({ length: count }, (_, i) => {
    const o = shoff + i * entrySize;
    return { nameOffset: bin.readUInt32LE(o), addr: Number(bin.readBigUInt64LE(o + 16)), offset: Number(bin.readBigUInt64LE(o + 24)), size: Number(bin.readBigUInt64LE(o + 32)) };
  });
  const names = headers[namesIndex];
  if (!names) throw new Error('no section names');
  return headers.map((h) => {
    const start = names.offset + h.nameOffset;
    return { name: bin.toString('latin1', start, bin.indexOf(0, start)), addr: h.addr, offset: h.offset, size: h.size };
  });
}

const all = sections();
const section = (name: string): Section => {
  const found = all.find((s) => s.name === name);
  if (!found) throw new Error(`no ${name} section`);
  return found;
};
const rodata = section('.rodata');
const typelink = section('.typelink');
/** File offset of a virtual address. */
const at = (addr: number): number => {
  const s = all.find((x) => x.offset && addr >= x.addr && addr < x.addr + x.size);
  if (!s) throw new Error(`address ${addr.toString(16)} is in no section`);
  return addr - s.addr + s.offset;
};
const pointer = (offset: number): number => Number(bin.readBigUInt64LE(offset));

function uvarint(offset: number): [value: number, length: number] {
  let value = 0;
  for (let i = 0, shift = 0; ; i++, shift += 7) {
    const byte = bin[offset + i] ?? 0;
    value += (byte & 0x7f) * 2 ** shift;
    if (byte < 0x80) return [value, i + 1];
  }
}

/** runtime name encoding: flags, varint length, bytes, then (flag 2) the tag. */
function decodeName(offset: number): { name: string; tag: string; embedded: boolean } {
  const flags = bin[offset] ?? 0;
  const [length, n] = uvarint(offset + 1);
  const start = offset + 1 + n;
  const name = bin.toString('utf8', start, start + length);
  let tag = '';
  if (flags & 2) {
    const [tagLength, m] = uvarint(start + length);
    tag = bin.toString('utf8', start + length + m, start + length + m + tagLength);
  }
  return { name, tag, embedded: (flags & 8) !== 0 };
}

const kindNames: Record<number, string> = { 1: 'bool', 2: 'int', 3: 'int', 4: 'int', 5: 'int', 6: 'int', 7: 'uint', 8: 'uint', 9: 'uint', 10: 'uint', 11: 'uint', 12: 'uint', 13: 'float', 14: 'float', 24: 'string' };

type GoType = { kind: string; elem?: string; key?: string; len?: number; fields?: [string, string, string][] };
const types = new Map<string, GoType>();

/** The reflect String() of the type at a file offset. */
function typeString(t: number): string {
  const text = decodeName(rodata.offset + bin.readInt32LE(t + 40)).name;
  return (bin[t + 20] ?? 0) & 2 ? text.slice(1) : text;
}

function walk(addr: number): string {
  const t = at(addr);
  const name = typeString(t);
  if (types.has(name)) return name;
  const kind = (bin[t + 23] ?? 0) & 31;
  const entry: GoType = { kind: kindNames[kind] ?? String(kind) };
  types.set(name, entry);
  switch (kind) {
    case 22:
      entry.kind = 'ptr';
      entry.elem = walk(pointer(t + 48));
      break;
    case 23:
      entry.kind = 'slice';
      entry.elem = walk(pointer(t + 48));
      break;
    case 17:
      entry.kind = 'array';
      entry.elem = walk(pointer(t + 48));
      entry.len = pointer(t + 64);
      break;
    case 21:
      entry.kind = 'map';
      entry.key = walk(pointer(t + 48));
      entry.elem = walk(pointer(t + 56));
      break;
    case 25: {
      entry.kind = 'struct';
      const fields = at(pointer(t + 56));
      const count = pointer(t + 64);
      entry.fields = [];
      for (let i = 0; i < count; i++) {
        const f = fields + i * 24;
        const { name: fieldName, tag, embedded } = decodeName(at(pointer(f)));
        const json = /json:"([^"]*)"/.exec(tag)?.[1] ?? (embedded ? ',inline' : '');
        entry.fields.push([fieldName, walk(pointer(f + 8)), json]);
      }
      break;
    }
    default:
      if (!kindNames[kind]) throw new Error(`type ${name} has kind ${kind}, which a pod template should not contain`);
  }
  return name;
}

// The typelinks list `[]*v1.PodTemplateSpec`; its element's element is the struct.
let root: string | undefined;
for (let i = 0; i < typelink.size && !root; i += 4) {
  const t = rodata.offset + bin.readInt32LE(typelink.offset + i);
  if (typeString(t) !== '[]*v1.PodTemplateSpec') continue;
  const elem = at(pointer(t + 48));
  root = walk(pointer(elem + 48));
}
if (root !== 'v1.PodTemplateSpec') throw new Error('v1.PodTemplateSpec not found');
const spec = types.get(root);
if (spec?.fields?.[0]?.[0] !== 'ObjectMeta' || spec.fields[1]?.[0] !== 'Spec') throw new Error('unexpected v1.PodTemplateSpec layout');

const lines = [...types.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([name, type]) => `  ${JSON.stringify(name)}: ${JSON.stringify(type)},`);
writeFileSync(
  out,
  `// GENERATED by scripts/generate-pod-template-go-types.ts from ${process.argv[3] ?? binaryPath.split('/').pop()}: do not edit.
// The Go layout of k8s.io/api/core/v1.PodTemplateSpec and every type it reaches, keyed by reflect type
// string: kind, element/key types, and struct fields in declaration order as [name, type, json tag].

export interface GoType {
  kind: string;
  elem?: string;
  key?: string;
  len?: number;
  fields?: [name: string, type: string, json: string][];
}

export const podTemplateGoTypes: Record<string, GoType> = {
${lines.join('\n')}
};
`,
);
console.log(`${types.size} types written to ${out.pathname}`);
