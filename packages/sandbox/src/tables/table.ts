// Server-side printing: the meta.k8s.io/v1 Table kubectl asks for (`Accept: …;as=Table`), and the
// PartialObjectMetadata(List) views. Rows carry PartialObjectMetadata by default, nothing with
// includeObject=None, the whole object with includeObject=Object.

import type { KubeObject } from '../meta/object.ts';
import type { ResourceDefinition } from '../registry/types.ts';

export type IncludeObject = 'None' | 'Metadata' | 'Object';

export function partialObjectMetadata(object: KubeObject): KubeObject {
  return { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: object.metadata };
}

export interface TableOptions {
  includeObject: IncludeObject;
  /** Watch events after the first omit the column definitions. */
  noHeaders: boolean;
  now: number;
}

export function parseIncludeObject(value: string | null): IncludeObject {
  return value === 'None' || value === 'Object' ? value : 'Metadata';
}

export function buildTable(
  def: ResourceDefinition,
  objects: readonly KubeObject[],
  listMeta: Record<string, unknown>,
  options: TableOptions,
): KubeObject {
  const rows = objects.map((object) => {
    const row: Record<string, unknown> = { cells: def.table.cells(object, options.now) };
    const phase = (object.status as { phase?: unknown } | undefined)?.phase;
    if (def.kind === 'Pod' && (phase === 'Succeeded' || phase === 'Failed')) {
      row.conditions = [
        {
          type: 'Completed',
          status: 'True',
          reason: phase,
          message: phase === 'Succeeded' ? 'The pod has completed successfully.' : 'The pod failed.',
        },
      ];
    }
    row.object = options.includeObject === 'None' ? null : options.includeObject === 'Object' ? object : partialObjectMetadata(object);
    return row;
  });
  return {
    kind: 'Table',
    apiVersion: 'meta.k8s.io/v1',
    metadata: listMeta,
    columnDefinitions: options.noHeaders ? null : def.table.columns,
    rows,
  };
}
