import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { fieldErrorString, invalidStatus } from '../errors.ts';
import { cloneJson } from '../meta/object.ts';
import { podTransitionRuleCrd } from './podtransitionrule-crd.fixture.ts';
import { applyCustomResourceDefinitionDefaults, prepareCustomResourceDefinitionForCreate, prepareCustomResourceDefinitionForUpdate } from './serving.ts';
import { validateCustomResourceDefinition, validateCustomResourceDefinitionStatus } from './validate-definition.ts';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const forCreate = (crd: unknown): unknown => prepareCustomResourceDefinitionForCreate(applyCustomResourceDefinitionDefaults(crd));
const createErrors = (crd: unknown): string[] => validateCustomResourceDefinition(forCreate(crd)).map(fieldErrorString);

function widgetCrd(openAPIV3Schema: unknown = { type: 'object', properties: { spec: { type: 'object' } } }): Json {
  return {
    metadata: { name: 'widgets.example.com' },
    spec: {
      group: 'example.com',
      scope: 'Namespaced',
      names: { plural: 'widgets', kind: 'Widget' },
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema } }],
    },
  };
}

describe('validateCustomResourceDefinition: accepted definitions', () => {
  test('the PodTransitionRule CRD podops installs is valid', () => {
    assert.deepEqual(createErrors(podTransitionRuleCrd()), []);
  });

  test('listKind and singular are defaulted, so a CRD naming only plural and kind is valid', () => {
    assert.deepEqual(createErrors(widgetCrd()), []);
  });
});

describe('validateCustomResourceDefinition: non-structural schemas', () => {
  test('a property without a type, reported under spec.validation when all versions share the schema', () => {
    const crd = widgetCrd({ type: 'object', properties: { spec: { properties: { replicas: { type: 'integer' } } } } });
    assert.deepEqual(createErrors(crd), ['spec.validation.openAPIV3Schema.properties[spec].type: Required value: must not be empty for specified object fields']);
  });

  test('with different schemas per version the error names the version', () => {
    const crd = widgetCrd();
    crd.spec.versions.push({ name: 'v2', served: true, storage: false, schema: { openAPIV3Schema: { type: 'object', properties: { spec: { properties: {} } } } } });
    assert.deepEqual(createErrors(crd), ['spec.versions[1].schema.openAPIV3Schema.properties[spec].type: Required value: must not be empty for specified object fields']);
  });

  test('several structural errors are sorted by their text, before the keyword errors', () => {
    const crd = widgetCrd({
      type: 'object',
      properties: {
        spec: { type: 'object', properties: { list: { type: 'array' }, b: {} }, additionalProperties: { type: 'string' } },
        status: { anyOf: [{ type: 'object' }] },
      },
    });
    assert.deepEqual(createErrors(crd), [
      'spec.validation.openAPIV3Schema.properties[spec].properties[b].type: Required value: must not be empty for specified object fields',
      'spec.validation.openAPIV3Schema.properties[spec].properties[list].items: Required value: must be specified',
      'spec.validation.openAPIV3Schema.properties[status].anyOf[0].type: Forbidden: must be empty to be structural',
      'spec.validation.openAPIV3Schema.properties[status].type: Required value: must not be empty for specified object fields',
      'spec.validation.openAPIV3Schema.properties[spec].additionalProperties: Forbidden: additionalProperties and properties are mutual exclusive',
    ]);
  });

  test('metadata may only restrict name and generateName', () => {
    const crd = widgetCrd({ type: 'object', properties: { metadata: { type: 'object', properties: { labels: { type: 'object' } } } } });
    assert.deepEqual(createErrors(crd), [
      'spec.validation.openAPIV3Schema.properties[metadata]: Forbidden: must not specify anything other than name and generateName, but metadata is implicitly specified',
    ]);
    const nameOnly = widgetCrd({ type: 'object', properties: { metadata: { type: 'object', properties: { name: { type: 'string', maxLength: 20 } } } } });
    assert.deepEqual(createErrors(nameOnly), []);
  });

  test('int-or-string through anyOf is structural; other types inside anyOf are not', () => {
    const ok = widgetCrd({ type: 'object', properties: { port: { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] } } });
    assert.deepEqual(createErrors(ok), []);
    const bad = widgetCrd({ type: 'object', properties: { port: { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'boolean' }] } } });
    assert.deepEqual(createErrors(bad), [
      'spec.validation.openAPIV3Schema.properties[port].anyOf[0].type: Forbidden: must be empty to be structural',
      'spec.validation.openAPIV3Schema.properties[port].anyOf[1].type: Forbidden: must be empty to be structural',
    ]);
  });

  test('uniqueItems, unsupported types and root defaults are rejected', () => {
    const crd = widgetCrd({
      type: 'object',
      properties: { tags: { type: 'array', uniqueItems: true, items: { type: 'string' } }, when: { type: 'date' }, kind: { type: 'string', default: 'X' } },
    });
    assert.deepEqual(createErrors(crd), [
      'spec.validation.openAPIV3Schema.properties[kind].default: Forbidden: must not be set in top-level kind',
      'spec.validation.openAPIV3Schema.properties[tags].uniqueItems: Forbidden: uniqueItems cannot be set to true since the runtime complexity becomes quadratic',
      'spec.validation.openAPIV3Schema.properties[when].type: Unsupported value: "date": supported values: "array", "boolean", "integer", "number", "object", "string"',
    ]);
  });
});

describe('validateCustomResourceDefinition: defaults', () => {
  test('a default must validate against its schema', () => {
    const crd = widgetCrd({ type: 'object', properties: { spec: { type: 'object', properties: { replicas: { type: 'integer', minimum: 1, default: 0 }, mode: { type: 'string', enum: ['a'], default: 'b' } } } } });
    assert.deepEqual(createErrors(crd), [
      'spec.validation.openAPIV3Schema.properties[spec].properties[mode].default: Unsupported value: "b": supported values: "a"',
      'spec.validation.openAPIV3Schema.properties[spec].properties[replicas].default: Invalid value: 0:  in body should be greater than or equal to 1',
    ]);
  });

  test('a default with fields the schema prunes is rejected', () => {
    const crd = widgetCrd({ type: 'object', properties: { spec: { type: 'object', default: { a: 'x', extra: 1 }, properties: { a: { type: 'string' } } } } });
    assert.deepEqual(createErrors(crd), ['spec.validation.openAPIV3Schema.properties[spec].default: Invalid value: "object": must not have unknown fields']);
  });
});

describe('validateCustomResourceDefinition: names, versions, subresources, columns', () => {
  test('the name must be <plural>.<group> and the group needs a dot', () => {
    const crd = widgetCrd();
    crd.metadata.name = 'widget.example.com';
    assert.deepEqual(createErrors(crd), ['metadata.name: Invalid value: "widget.example.com": must be spec.names.plural+"."+spec.group']);
    const noDot = widgetCrd();
    noDot.metadata.name = 'widgets.example';
    noDot.spec.group = 'example';
    assert.deepEqual(createErrors(noDot), ['spec.group: Invalid value: "example": should be a domain with at least one dot']);
  });

  test('scope, storage flags, names and short names', () => {
    const crd = widgetCrd();
    crd.spec.scope = 'Global';
    crd.spec.versions[0].storage = false;
    crd.spec.names.shortNames = ['W'];
    crd.spec.names.listKind = 'Widget';
    const errs = validateCustomResourceDefinition(forCreate(crd));
    // The value of the versions error is the whole list; only its field and text are stable.
    assert.deepEqual([errs[1]?.field, errs[1]?.detail], ['spec.versions', 'must have exactly one version marked as storage version']);
    assert.deepEqual(errs.filter((_, i) => i !== 1).map(fieldErrorString), [
      'spec.scope: Unsupported value: "Global": supported values: "Cluster", "Namespaced"',
      "spec.names.shortNames[0]: Invalid value: \"W\": a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')",
      'spec.names.listKind: Invalid value: "Widget": kind and listKind may not be the same',
      'status.storedVersions: Invalid value: []: must have at least one stored version',
    ]);
  });

  test('every version needs a schema in apiextensions.k8s.io/v1', () => {
    const crd = widgetCrd();
    delete crd.spec.versions[0].schema;
    assert.deepEqual(createErrors(crd), ['spec.versions[0].schema.openAPIV3Schema: Required value: schemas are required']);
  });

  test('printer columns need a name, a known type and a JSONPath', () => {
    const crd = widgetCrd();
    crd.spec.versions[0].additionalPrinterColumns = [{ name: 'Size', type: 'float', jsonPath: 'spec.size' }, { type: 'string' }];
    assert.deepEqual(createErrors(crd), [
      'spec.additionalPrinterColumns[0].type: Invalid value: "float": must be one of boolean,date,integer,number,string',
      'spec.additionalPrinterColumns[0].JSONPath: Invalid value: "spec.size": must be a simple json path starting with .',
      'spec.additionalPrinterColumns[1].name: Required value',
      'spec.additionalPrinterColumns[1].JSONPath: Required value',
    ]);
  });

  test('scale paths must point under .spec and .status', () => {
    const crd = widgetCrd();
    crd.spec.versions[0].subresources = { status: {}, scale: { specReplicasPath: '.status.replicas', statusReplicasPath: 'status.replicas' } };
    assert.deepEqual(createErrors(crd), [
      'spec.subresources.scale.specReplicasPath: Invalid value: ".status.replicas": should be a json path under .spec',
      'spec.subresources.scale.statusReplicasPath: Invalid value: "status.replicas": must be a simple json path starting with .',
    ]);
  });

  test('with the status subresource the root schema may only use a few keywords', () => {
    const crd = widgetCrd({ type: 'object', minProperties: 1, properties: { spec: { type: 'object' } } });
    crd.spec.versions[0].subresources = { status: {} };
    const errs = createErrors(crd);
    assert.equal(errs.length, 1);
    assert.match(errs[0] ?? '', /^spec\.validation\.openAPIV3Schema: Invalid value: "object": only \[Description Type Format .* XValidations\] fields are allowed at the root of the schema if the status subresource is enabled$/);
  });

  test('the 422 body names the CRD as the real server does', () => {
    const crd = widgetCrd({ type: 'object', properties: { spec: {} } });
    const status = invalidStatus({ kind: 'CustomResourceDefinition', group: 'apiextensions.k8s.io', name: 'widgets.example.com' }, validateCustomResourceDefinition(forCreate(crd)));
    assert.equal(
      status.message,
      'CustomResourceDefinition.apiextensions.k8s.io "widgets.example.com" is invalid: spec.validation.openAPIV3Schema.properties[spec].type: Required value: must not be empty for specified object fields',
    );
  });
});

describe('validateCustomResourceDefinition: updates', () => {
  function established(): Json {
    const stored = forCreate(widgetCrd()) as Json;
    stored.status.conditions = [{ type: 'Established', status: 'True', reason: 'InitialNamesAccepted', message: 'the initial names have been accepted' }];
    return stored;
  }

  test('scope and kind are immutable once established; group and plural always', () => {
    const old = established();
    const next = cloneJson(old);
    next.spec.scope = 'Cluster';
    next.spec.names.plural = 'gadgets';
    const errs = validateCustomResourceDefinition(prepareCustomResourceDefinitionForUpdate(next, old), old).map(fieldErrorString);
    assert.deepEqual(errs, ['spec.scope: Invalid value: "Cluster": field is immutable', 'spec.names.plural: Invalid value: "gadgets": field is immutable']);
  });

  test('a version still listed in status.storedVersions cannot be removed', () => {
    const old = established();
    old.spec.versions.push({ name: 'v2', served: true, storage: false, schema: old.spec.versions[0].schema });
    old.status.storedVersions = ['v1'];
    const next = cloneJson(old);
    next.spec.versions = [{ ...next.spec.versions[1], storage: true }];
    const errs = validateCustomResourceDefinition(prepareCustomResourceDefinitionForUpdate(next, old), old).map(fieldErrorString);
    assert.deepEqual(errs, [
      'status.storedVersions[0]: Invalid value: "v1": missing from spec.versions; v1 was previously a storage version, and must remain in spec.versions until a storage migration ensures no data remains persisted in v1 and removes v1 from status.storedVersions',
    ]);
  });

  test('a status write checks the accepted names', () => {
    const crd = established();
    crd.status.acceptedNames = { plural: 'Widgets', kind: 'Widget' };
    assert.deepEqual(validateCustomResourceDefinitionStatus(crd, crd).map(fieldErrorString), [
      "status.acceptedNames.plural: Invalid value: \"Widgets\": a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')",
    ]);
  });
});
