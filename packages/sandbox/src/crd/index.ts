// CustomResourceDefinition support for the sandbox API server: CRD validation and the status its
// controllers write, and for custom resources structural validation, pruning, defaulting and
// Table printing, all with the real apiextensions-apiserver's rules and messages.

export { compileSchema } from './compile.ts';
export type { CompiledSchema, SchemaNode } from './compile.ts';
export { validateCustomResource } from './validate-custom-resource.ts';
export type { CustomResourceContext } from './validate-custom-resource.ts';
export { pruneUnknownFields } from './prune.ts';
export type { PruneResult } from './prune.ts';
export { applySchemaDefaults } from './defaults.ts';
export { validateCustomResourceDefinition, validateCustomResourceDefinitionStatus } from './validate-definition.ts';
export { printerColumnsFor, printerRowCells } from './printer-columns.ts';
export type { CrdPrinterColumns } from './printer-columns.ts';
export { humanDuration } from './human-duration.ts';
export {
  applyCustomResourceDefinitionDefaults,
  compareKubeAwareVersions,
  crdVersion,
  crdVersions,
  customResourceDefinitionStatus,
  prepareCustomResourceDefinitionForCreate,
  prepareCustomResourceDefinitionForUpdate,
  scaleSubresource,
  servedVersions,
  statusSubresourceEnabled,
  storageVersion,
  versionSchema,
} from './serving.ts';
export type { ScaleSubresource } from './serving.ts';
