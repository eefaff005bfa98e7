// Builders of structural OpenAPI v3 schemas, for the CRDs podops ships (written next to their types).

export type Schema = Record<string, unknown>;

export const str = (description: string, extra: Schema = {}): Schema => ({ type: 'string', description, ...extra });
export const bool = (description: string): Schema => ({ type: 'boolean', description });
export const int64 = (description: string, extra: Schema = {}): Schema => ({ type: 'integer', format: 'int64', description, ...extra });
export const time = (description: string): Schema => ({ type: 'string', format: 'date-time', description });
export const strings = (description: string): Schema => ({ type: 'array', description, items: { type: 'string' } });
export const object = (description: string, properties: Record<string, Schema>, required?: string[]): Schema => ({
  type: 'object',
  description,
  ...(required ? { required } : {}),
  properties,
});
export const array = (description: string, items: Schema, maxItems?: number): Schema => ({ type: 'array', description, items, ...(maxItems !== undefined && { maxItems }) });
export const intOrString = (description: string): Schema => ({
  description,
  'x-kubernetes-int-or-string': true,
  anyOf: [{ type: 'integer' }, { type: 'string' }],
});
/** metav1.Condition, as CRD statuses list them (by type). */
export const conditions = (description: string): Schema => ({
  ...array(
    description,
    object(
      'One aspect of the state.',
      {
        type: str('CamelCase type.'),
        status: str('True, False or Unknown.', { enum: ['True', 'False', 'Unknown'] }),
        observedGeneration: int64('The generation the condition was set for.'),
        lastTransitionTime: time('When the status last changed.'),
        reason: str('CamelCase reason.'),
        message: str('For humans.'),
      },
      ['type', 'status', 'lastTransitionTime', 'reason', 'message'],
    ),
  ),
  'x-kubernetes-list-type': 'map',
  'x-kubernetes-list-map-keys': ['type'],
});

/** A namespaced custom resource of podops': its names, its one version, its spec and status, its printer columns. */
export interface CustomResource {
  group: string;
  version: string;
  names: { plural: string; singular: string; kind: string; listKind: string; shortNames: string[] };
  description: string;
  spec: Schema;
  status: Schema;
  printerColumns: Schema[];
}

/** The object's schema: the type meta, the metadata the API server validates, the spec and the status. */
export const resourceSchema = (resource: Pick<CustomResource, 'description' | 'spec' | 'status'>): Schema =>
  object(resource.description, {
    apiVersion: str('APIVersion of the object.'),
    kind: str('Kind of the object.'),
    metadata: { type: 'object' },
    spec: resource.spec,
    status: resource.status,
  });

/** The apiextensions.k8s.io/v1 CustomResourceDefinition: one version, served and stored, with a status subresource. */
export function customResourceDefinition(resource: CustomResource): Record<string, unknown> {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${resource.names.plural}.${resource.group}` },
    spec: {
      group: resource.group,
      scope: 'Namespaced',
      names: resource.names,
      versions: [
        {
          name: resource.version,
          served: true,
          storage: true,
          schema: { openAPIV3Schema: resourceSchema(resource) },
          subresources: { status: {} },
          additionalPrinterColumns: [...resource.printerColumns, { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' }],
        },
      ],
    },
  };
}
