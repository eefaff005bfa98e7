// A CustomResourceDefinition shaped like the one podops installs for PodTransitionRules
// (apps.kusionstack.io/v1alpha1): nested objects, int-or-string, enums, required fields, a list
// map, the status subresource and printer columns. Shared by this module's tests.

const intOrString = { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] };

const labelSelector = {
  type: 'object',
  properties: {
    matchLabels: { type: 'object', additionalProperties: { type: 'string' } },
    matchExpressions: {
      type: 'array',
      items: {
        type: 'object',
        required: ['key', 'operator'],
        properties: { key: { type: 'string' }, operator: { type: 'string' }, values: { type: 'array', items: { type: 'string' } } },
      },
    },
  },
  'x-kubernetes-map-type': 'atomic',
};

export function podTransitionRuleSchema(): Record<string, unknown> {
  return {
    type: 'object',
    description: 'PodTransitionRule gates the PreCheck and PostCheck stages of pod operations.',
    properties: {
      apiVersion: { type: 'string' },
      kind: { type: 'string' },
      metadata: { type: 'object' },
      spec: {
        type: 'object',
        required: ['rules'],
        properties: {
          selector: labelSelector,
          rules: {
            type: 'array',
            'x-kubernetes-list-type': 'map',
            'x-kubernetes-list-map-keys': ['name'],
            items: {
              type: 'object',
              required: ['name'],
              properties: {
                name: { type: 'string', minLength: 1, maxLength: 63, pattern: '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$' },
                stage: { type: 'string', enum: ['PreCheck', 'PostCheck'], default: 'PreCheck' },
                availablePolicy: { type: 'object', properties: { maxUnavailableValue: intOrString, minAvailableValue: intOrString } },
                labelCheck: { type: 'object', properties: { requires: labelSelector } },
                webhook: {
                  type: 'object',
                  required: ['clientConfig'],
                  properties: {
                    clientConfig: {
                      type: 'object',
                      properties: {
                        url: { type: 'string' },
                        caBundle: { type: 'string', format: 'byte' },
                        poll: {
                          type: 'object',
                          properties: {
                            url: { type: 'string' },
                            intervalSeconds: { type: 'integer', format: 'int64', minimum: 1, default: 5 },
                            timeoutSeconds: { type: 'integer', format: 'int64', minimum: 1 },
                          },
                        },
                      },
                    },
                    failurePolicy: { type: 'string', enum: ['Ignore', 'Fail'], default: 'Fail' },
                    parameters: {
                      type: 'array',
                      items: { type: 'object', required: ['key'], properties: { key: { type: 'string' }, value: { type: 'string' } } },
                    },
                  },
                },
              },
            },
          },
          disabled: { type: 'boolean' },
        },
      },
      status: {
        type: 'object',
        properties: {
          observedGeneration: { type: 'integer', format: 'int64' },
          targets: { type: 'array', items: { type: 'string' } },
          updateTime: { type: 'string', format: 'date-time' },
          details: { type: 'array', items: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
        },
      },
    },
  };
}

export function podTransitionRuleCrd(): Record<string, unknown> {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'podtransitionrules.apps.kusionstack.io' },
    spec: {
      group: 'apps.kusionstack.io',
      scope: 'Namespaced',
      names: { plural: 'podtransitionrules', singular: 'podtransitionrule', kind: 'PodTransitionRule', shortNames: ['ptr'], categories: ['kusionstack'] },
      versions: [
        {
          name: 'v1alpha1',
          served: true,
          storage: true,
          schema: { openAPIV3Schema: podTransitionRuleSchema() },
          subresources: { status: {} },
          additionalPrinterColumns: [
            { name: 'Stage', type: 'string', jsonPath: '.spec.rules[0].stage', description: 'The stage of the first rule.' },
            { name: 'Observed', type: 'integer', jsonPath: '.status.observedGeneration' },
            { name: 'Targets', type: 'string', jsonPath: '.status.targets' },
            { name: 'Disabled', type: 'boolean', jsonPath: '.spec.disabled', priority: 1 },
            { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
          ],
        },
      ],
    },
  };
}
