// Reading Kubernetes objects given on the command line: a file or `-` for stdin, JSON or YAML
// (several YAML documents, or a List such as `kubectl get pods -o json`).

import { readFile } from 'node:fs/promises';
import { parseAllDocuments } from 'yaml';
import { fileErrorText, yamlErrorText } from '../kube/kubeconfig.ts';
import { UsageError, type CommandIO } from './command.ts';

export async function readSource(source: string, io: CommandIO): Promise<string> {
  if (source === '-') {
    const chunks: Buffer[] = [];
    for await (const chunk of io.stdin) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
    return Buffer.concat(chunks).toString('utf8');
  }
  try {
    return await readFile(source, 'utf8');
  } catch (err) {
    throw new UsageError(`cannot read ${source}: ${fileErrorText(err)}`);
  }
}

/** The objects in a JSON or YAML text; Lists are flattened into their items. */
export function parseObjects(text: string, source: string): unknown[] {
  if (text.trim() === '') throw new UsageError(`${source} is empty: expected Kubernetes objects as JSON or YAML`);
  let documents: unknown[];
  try {
    documents = [JSON.parse(text)];
  } catch {
    const parsed = parseAllDocuments(text);
    const docs = Array.isArray(parsed) ? parsed : [parsed];
    for (const doc of docs) {
      const [error] = doc.errors;
      if (error) throw new UsageError(`${source}: not YAML or JSON: ${yamlErrorText(error)}`);
    }
    documents = docs.map((doc) => doc.toJS() as unknown).filter((doc) => doc !== null && doc !== undefined);
  }
  return documents.flatMap((doc) => {
    const list = doc as { kind?: unknown; items?: unknown };
    return typeof list?.kind === 'string' && list.kind.endsWith('List') && Array.isArray(list.items) ? list.items : [doc];
  });
}
