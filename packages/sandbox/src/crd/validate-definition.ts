// Validation of an apiextensions.k8s.io/v1 CustomResourceDefinition with the rules and messages of
// the real server. Like the real server, it validates the internal form of the CRD: when every
// version has the same schema (or subresources, or printer columns), that value is moved to the
// top level, so the errors then name `spec.validation…`, `spec.subresources…` and
// `spec.additionalPrinterColumns…` instead of `spec.versions[i]…`.

import { fieldForbidden, fieldInvalid, fieldNotSupported, fieldRequired, type FieldError } from '../errors.ts';
import { isJsonObject, jsonEqual, type JsonObject } from '../meta/object.ts';
import { defaultValueErrors } from './default-values.ts';
import { dns1035LabelErrors, dns1123SubdomainErrors } from './dns-names.ts';
import { indexPath, keyPath } from './field-path.ts';
import { rootRuleContext, schemaRuleErrors } from './schema-rules.ts';
import { isZeroValue, structuralErrors } from './structural.ts';

const asObject = (v: unknown): JsonObject => (isJsonObject(v) ? v : {});
const asString = (v: unknown): string => (typeof v === 'string' ? v : '');
const objectList = (v: unknown): JsonObject[] => (Array.isArray(v) ? v.filter(isJsonObject) : []);

const printerColumnTypes = ['boolean', 'date', 'integer', 'number', 'string'];
const printerColumnFormats = ['byte', 'date', 'date-time', 'double', 'float', 'int32', 'int64', 'password'];
const approvalAnnotation = 'api-approved.kubernetes.io';
const immutable = 'field is immutable';

/**
 * Validates a CRD for create (`old` absent) or update. The CRD must already carry the v1 defaults
 * and the status the strategy sets (applyCustomResourceDefinitionDefaults, then
 * prepareCustomResourceDefinitionForCreate/ForUpdate). Besides the apiextensions rules this checks
 * `metadata.name` (the CRD name rule replaces the generic name check) but not the rest of
 * ObjectMeta, which the server core validates as for every object.
 */
export function validateCustomResourceDefinition(crd: unknown, old?: unknown): FieldError[] {
  const obj = asObject(crd);
  const spec = asObject(obj.spec);
  const status = asObject(obj.status);
  const errs: FieldError[] = [];
  if (old === undefined) errs.push(...nameErrors(asObject(obj.metadata), spec));
  errs.push(...specErrors(spec));
  if (old !== undefined) errs.push(...immutableFieldErrors(spec, asObject(asObject(old).spec), isEstablished(old)));
  errs.push(...namesErrors(asObject(status.acceptedNames), 'status.acceptedNames'));
  errs.push(...storedVersionsErrors(status.storedVersions, objectList(spec.versions)));
  errs.push(...apiApprovalErrors(obj, old));
  const oldPreserves = old !== undefined && asObject(asObject(old).spec).preserveUnknownFields === true;
  if (!oldPreserves && spec.preserveUnknownFields === true) {
    errs.push(fieldInvalid('spec.preserveUnknownFields', true, 'cannot set to true, set x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead'));
  }
  return errs;
}

/**
 * Validation of a write to `/status` of a CRD: only the accepted names are checked (ObjectMeta
 * update rules are the server core's).
 */
export function validateCustomResourceDefinitionStatus(crd: unknown, _old: unknown): FieldError[] {
  return namesErrors(asObject(asObject(asObject(crd).status).acceptedNames), 'status.acceptedNames');
}

function isEstablished(crd: unknown): boolean {
  const conditions = objectList(asObject(asObject(crd).status).conditions);
  return conditions.some((c) => c.type === 'Established' && c.status === 'True');
}

function nameErrors(metadata: JsonObject, spec: JsonObject): FieldError[] {
  const required = `${asString(asObject(spec.names).plural)}.${asString(spec.group)}`;
  const messages = (name: string, prefix: boolean): string[] => {
    const checked = prefix && name.endsWith('-') ? `${name.slice(0, -1)}a` : name;
    const msgs = dns1123SubdomainErrors(checked);
    if (name !== required) msgs.push('must be spec.names.plural+"."+spec.group');
    return msgs;
  };
  const errs: FieldError[] = [];
  const generateName = asString(metadata.generateName);
  const name = asString(metadata.name);
  if (generateName) for (const msg of messages(generateName, true)) errs.push(fieldInvalid('metadata.generateName', generateName, msg));
  if (!name) errs.push(fieldRequired('metadata.name', 'name or generateName is required'));
  else for (const msg of messages(name, false)) errs.push(fieldInvalid('metadata.name', name, msg));
  return errs;
}

interface Hoisted {
  /** Whether the value is the same in every version and so validated at the top level. */
  readonly identical: boolean;
  readonly value: unknown;
}

// Semantic equality as the conversion uses it: a missing list equals an empty one.
function hoist(versions: JsonObject[], field: string, emptyList: boolean): Hoisted {
  const valueOf = (v: JsonObject): unknown => (emptyList && (v[field] === undefined || v[field] === null) ? [] : v[field]);
  const first = versions[0];
  if (!first) return { identical: false, value: undefined };
  const value = valueOf(first);
  return { identical: versions.every((v) => jsonEqual(valueOf(v), value)), value };
}

const hasStatus = (subresources: unknown): boolean => {
  const status = asObject(subresources).status;
  return status !== undefined && status !== null;
};

function specErrors(spec: JsonObject): FieldError[] {
  const errs: FieldError[] = [];
  const group = asString(spec.group);
  if (!group) errs.push(fieldRequired('spec.group', ''));
  else {
    const groupErrs = dns1123SubdomainErrors(group);
    if (groupErrs.length) errs.push(fieldInvalid('spec.group', group, groupErrs.join(',')));
    else if (group.split('.').length < 2) errs.push(fieldInvalid('spec.group', group, 'should be a domain with at least one dot'));
  }
  const scope = asString(spec.scope);
  if (!scope) errs.push(fieldRequired('spec.scope', ''));
  else if (scope !== 'Cluster' && scope !== 'Namespaced') errs.push(fieldNotSupported('spec.scope', scope, ['Cluster', 'Namespaced']));

  const versions = objectList(spec.versions);
  const schema = hoist(versions, 'schema', false);
  const subresources = hoist(versions, 'subresources', false);
  const columns = hoist(versions, 'additionalPrinterColumns', true);

  const topLevelSchema = schema.identical ? asObject(schema.value).openAPIV3Schema : undefined;
  if (!isJsonObject(topLevelSchema)) {
    versions.forEach((v, i) => {
      const own = schema.identical ? undefined : asObject(v.schema).openAPIV3Schema;
      if (!isJsonObject(own)) errs.push(fieldRequired(`spec.versions[${i}].schema.openAPIV3Schema`, 'schemas are required'));
    });
  }
  if (spec.preserveUnknownFields === true && versions.some((v) => schemaHasDefault(asObject(v.schema).openAPIV3Schema))) {
    errs.push(fieldInvalid('spec.preserveUnknownFields', true, 'must be false in order to use defaults in the schema'));
  }

  let storageCount = 0;
  const seen = new Set<string>();
  let uniqueNames = true;
  versions.forEach((v, i) => {
    const path = `spec.versions[${i}]`;
    const name = asString(v.name);
    if (v.storage === true) storageCount++;
    if (seen.has(name)) uniqueNames = false;
    seen.add(name);
    const nameErrs = dns1035LabelErrors(name);
    if (nameErrs.length) errs.push(fieldInvalid(`${path}.name`, name, nameErrs.join(',')));
    errs.push(...deprecationWarningErrors(v, path));
    if (!schema.identical) errs.push(...validationErrors(v.schema, hasStatus(subresources.identical ? subresources.value : v.subresources), `${path}.schema`));
    if (!subresources.identical) errs.push(...subresourcesErrors(v.subresources, `${path}.subresources`));
    if (!columns.identical) objectList(v.additionalPrinterColumns).forEach((c, j) => errs.push(...columnErrors(c, `${path}.additionalPrinterColumns[${j}]`)));
  });
  if (!uniqueNames) errs.push(fieldInvalid('spec.versions', versions, 'must contain unique version names'));
  if (storageCount !== 1) errs.push(fieldInvalid('spec.versions', versions, 'must have exactly one version marked as storage version'));
  const firstName = asString(versions[0]?.name);
  if (firstName) {
    const firstErrs = dns1035LabelErrors(firstName);
    if (firstErrs.length) errs.push(fieldInvalid('spec.version', firstName, firstErrs.join(',')));
  }

  const names = asObject(spec.names);
  for (const field of ['plural', 'singular', 'kind', 'listKind']) if (!asString(names[field])) errs.push(fieldRequired(`spec.names.${field}`, ''));
  errs.push(...namesErrors(names, 'spec.names'));
  if (schema.identical) {
    const anyStatus = subresources.identical ? hasStatus(subresources.value) : versions.some((v) => hasStatus(v.subresources));
    errs.push(...validationErrors(schema.value, anyStatus, 'spec.validation'));
  }
  if (subresources.identical) errs.push(...subresourcesErrors(subresources.value, 'spec.subresources'));
  if (columns.identical) objectList(columns.value).forEach((c, i) => errs.push(...columnErrors(c, `spec.additionalPrinterColumns[${i}]`)));
  errs.push(...conversionErrors(spec));
  return errs;
}

function schemaHasDefault(s: unknown): boolean {
  if (Array.isArray(s)) return s.some(schemaHasDefault);
  if (!isJsonObject(s)) return false;
  if (s.default !== undefined && s.default !== null) return true;
  return ['items', 'not', 'additionalProperties', 'allOf', 'anyOf', 'oneOf'].some((k) => schemaHasDefault(s[k])) || Object.values(asObject(s.properties)).some(schemaHasDefault);
}

function deprecationWarningErrors(version: JsonObject, path: string): FieldError[] {
  const warning = version.deprecationWarning;
  if (typeof warning !== 'string') return [];
  const field = `${path}.deprecationWarning`;
  if (version.deprecated !== true) return [fieldInvalid(field, warning, 'can only be set for deprecated versions')];
  const errs: FieldError[] = [];
  if (warning.length > 256) errs.push(fieldInvalid(field, warning, 'must be <= 256 characters long'));
  if (!warning) errs.push(fieldInvalid(field, warning, 'must not be an empty string'));
  const control = [...warning].findIndex((ch) => /\p{Cc}/u.test(ch));
  if (control >= 0) errs.push(fieldInvalid(field, warning, `must only contain printable UTF-8 characters; non-printable character found at index ${control}`));
  return errs;
}

// Go's struct field order of JSONSchemaProps, and the fields a root schema may use when the status
// subresource is enabled (its status part is then validated on its own).
const schemaFieldOrder: [string, string][] = [
  ['id', 'ID'], ['$schema', 'Schema'], ['$ref', 'Ref'], ['description', 'Description'], ['type', 'Type'], ['nullable', 'Nullable'],
  ['format', 'Format'], ['title', 'Title'], ['default', 'Default'], ['maximum', 'Maximum'], ['exclusiveMaximum', 'ExclusiveMaximum'],
  ['minimum', 'Minimum'], ['exclusiveMinimum', 'ExclusiveMinimum'], ['maxLength', 'MaxLength'], ['minLength', 'MinLength'],
  ['pattern', 'Pattern'], ['maxItems', 'MaxItems'], ['minItems', 'MinItems'], ['uniqueItems', 'UniqueItems'], ['multipleOf', 'MultipleOf'],
  ['enum', 'Enum'], ['maxProperties', 'MaxProperties'], ['minProperties', 'MinProperties'], ['required', 'Required'], ['items', 'Items'],
  ['allOf', 'AllOf'], ['oneOf', 'OneOf'], ['anyOf', 'AnyOf'], ['not', 'Not'], ['properties', 'Properties'],
  ['additionalProperties', 'AdditionalProperties'], ['patternProperties', 'PatternProperties'], ['dependencies', 'Dependencies'],
  ['additionalItems', 'AdditionalItems'], ['definitions', 'Definitions'], ['externalDocs', 'ExternalDocs'], ['example', 'Example'],
  ['x-kubernetes-preserve-unknown-fields', 'XPreserveUnknownFields'], ['x-kubernetes-embedded-resource', 'XEmbeddedResource'],
  ['x-kubernetes-int-or-string', 'XIntOrString'], ['x-kubernetes-list-map-keys', 'XListMapKeys'], ['x-kubernetes-list-type', 'XListType'],
  ['x-kubernetes-map-type', 'XMapType'], ['x-kubernetes-validations', 'XValidations'],
];
const allowedAtStatusRoot = [
  'Description', 'Type', 'Format', 'Title', 'Maximum', 'ExclusiveMaximum', 'Minimum', 'ExclusiveMinimum', 'MaxLength', 'MinLength',
  'Pattern', 'MaxItems', 'MinItems', 'UniqueItems', 'MultipleOf', 'Required', 'Items', 'Properties', 'ExternalDocs', 'Example',
  'XPreserveUnknownFields', 'XValidations',
];
// Pointer fields are set whenever present, even with a zero value.
const pointerFields = new Set(['$ref', 'default', 'maximum', 'minimum', 'maxLength', 'minLength', 'maxItems', 'minItems', 'multipleOf', 'maxProperties', 'minProperties', 'items', 'not', 'additionalProperties', 'additionalItems', 'externalDocs', 'example', 'x-kubernetes-preserve-unknown-fields', 'x-kubernetes-list-type', 'x-kubernetes-map-type']);

function statusRootErrors(schema: JsonObject, path: string): FieldError[] {
  for (const [json, goName] of schemaFieldOrder) {
    const value = schema[json];
    if (pointerFields.has(json) ? value === undefined || value === null : isZeroValue(value)) continue;
    if (goName === 'Type') {
      if (value !== 'object') return [fieldInvalid(`${path}.openAPIV3Schema.type`, value, 'only "object" is allowed as the type at the root of the schema if the status subresource is enabled')];
      continue;
    }
    if (!allowedAtStatusRoot.includes(goName)) {
      return [fieldInvalid(`${path}.openAPIV3Schema`, schema, `only [${allowedAtStatusRoot.join(' ')}] fields are allowed at the root of the schema if the status subresource is enabled`)];
    }
  }
  return [];
}

function validationErrors(wrapper: unknown, statusEnabled: boolean, path: string): FieldError[] {
  const schema = asObject(wrapper).openAPIV3Schema;
  if (!isJsonObject(schema)) return [];
  const schemaPath = `${path}.openAPIV3Schema`;
  const errs = statusEnabled ? statusRootErrors(schema, path) : [];
  if (schema.nullable === true) errs.push(fieldForbidden(`${schemaPath}.nullable`, 'nullable cannot be true at the root'));
  const structural = structuralErrors(schema, schemaPath);
  errs.push(...(structural.length ? structural : defaultValueErrors(schema, schemaPath)));
  errs.push(...schemaRuleErrors(schema, schemaPath, rootRuleContext, true));
  return errs;
}

function simpleJsonPathErrors(value: string, path: string): FieldError[] {
  return value.startsWith('.') ? [] : [fieldInvalid(path, value, 'must be a simple json path starting with .')];
}

function subresourcesErrors(subresources: unknown, path: string): FieldError[] {
  const scale = asObject(subresources).scale;
  if (!isJsonObject(scale)) return [];
  const errs: FieldError[] = [];
  const replicasPath = (field: string, under: string): void => {
    const value = asString(scale[field]);
    const at = `${path}.scale.${field}`;
    if (!value) errs.push(fieldRequired(at, ''));
    else {
      const pathErrs = simpleJsonPathErrors(value, at);
      if (pathErrs.length) errs.push(...pathErrs);
      else if (!value.startsWith(`.${under}.`)) errs.push(fieldInvalid(at, value, `should be a json path under .${under}`));
    }
  };
  replicasPath('specReplicasPath', 'spec');
  replicasPath('statusReplicasPath', 'status');
  const selector = asString(scale.labelSelectorPath);
  if (selector) {
    const at = `${path}.scale.labelSelectorPath`;
    const pathErrs = simpleJsonPathErrors(selector, at);
    if (pathErrs.length) errs.push(...pathErrs);
    else if (!selector.startsWith('.spec.') && !selector.startsWith('.status.')) errs.push(fieldInvalid(at, selector, 'should be a json path under either .spec or .status'));
  }
  return errs;
}

// The internal type names the JSONPath field `JSONPath`, and the real server's messages do too.
function columnErrors(column: JsonObject, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (!asString(column.name)) errs.push(fieldRequired(`${path}.name`, ''));
  const type = asString(column.type);
  const typeDetail = `must be one of ${printerColumnTypes.join(',')}`;
  if (!type) errs.push(fieldRequired(`${path}.type`, typeDetail));
  else if (!printerColumnTypes.includes(type)) errs.push(fieldInvalid(`${path}.type`, type, typeDetail));
  const format = asString(column.format);
  if (format && !printerColumnFormats.includes(format)) errs.push(fieldInvalid(`${path}.format`, format, `must be one of ${printerColumnFormats.join(',')}`));
  const jsonPath = asString(column.jsonPath);
  if (!jsonPath) errs.push(fieldRequired(`${path}.JSONPath`, ''));
  else errs.push(...simpleJsonPathErrors(jsonPath, `${path}.JSONPath`));
  return errs;
}

function namesErrors(names: JsonObject, path: string): FieldError[] {
  const errs: FieldError[] = [];
  for (const field of ['plural', 'singular']) {
    const value = asString(names[field]);
    const nameErrs = dns1035LabelErrors(value);
    if (value && nameErrs.length) errs.push(fieldInvalid(`${path}.${field}`, value, nameErrs.join(',')));
  }
  for (const field of ['kind', 'listKind']) {
    const value = asString(names[field]);
    const nameErrs = dns1035LabelErrors(value.toLowerCase());
    if (value && nameErrs.length) errs.push(fieldInvalid(`${path}.${field}`, value, `may have mixed case, but should otherwise match: ${nameErrs.join(',')}`));
  }
  const listOf = (field: string): unknown[] => (Array.isArray(names[field]) ? (names[field] as unknown[]) : []);
  listOf('shortNames').forEach((s, i) => {
    const nameErrs = dns1035LabelErrors(asString(s));
    if (nameErrs.length) errs.push(fieldInvalid(indexPath(`${path}.shortNames`, i), s, nameErrs.join(',')));
  });
  const kind = asString(names.kind);
  if (kind && kind === asString(names.listKind)) errs.push(fieldInvalid(`${path}.listKind`, kind, 'kind and listKind may not be the same'));
  listOf('categories').forEach((c, i) => {
    const nameErrs = dns1035LabelErrors(asString(c));
    if (nameErrs.length) errs.push(fieldInvalid(indexPath(`${path}.categories`, i), c, nameErrs.join(',')));
  });
  return errs;
}

// The internal type keeps the v1 webhook settings as `webhookClientConfig` and
// `conversionReviewVersions` directly under `spec.conversion`, and so do the messages.
function conversionErrors(spec: JsonObject): FieldError[] {
  if (!isJsonObject(spec.conversion)) return [];
  const conversion = spec.conversion;
  const strategy = asString(conversion.strategy);
  const webhook = isJsonObject(conversion.webhook) ? conversion.webhook : undefined;
  const clientConfig = webhook && isJsonObject(webhook.clientConfig) ? webhook.clientConfig : undefined;
  const reviewVersions = webhook && Array.isArray(webhook.conversionReviewVersions) ? webhook.conversionReviewVersions : [];
  const errs: FieldError[] = [];
  if (strategy && strategy !== 'None' && spec.preserveUnknownFields === true) {
    errs.push(fieldInvalid('spec.conversion.strategy', strategy, 'must be None if spec.preserveUnknownFields is true'));
  }
  if (!strategy) errs.push(fieldRequired('spec.conversion.strategy', ''));
  else if (strategy !== 'None' && strategy !== 'Webhook') errs.push(fieldNotSupported('spec.conversion.strategy', strategy, ['None', 'Webhook']));
  if (strategy === 'Webhook') {
    if (!clientConfig) errs.push(fieldRequired('spec.conversion.webhookClientConfig', 'required when strategy is set to Webhook'));
    else errs.push(...clientConfigErrors(clientConfig, 'spec.conversion.webhookClientConfig'));
    errs.push(...reviewVersionsErrors(reviewVersions, 'spec.conversion.conversionReviewVersions'));
  } else {
    if (clientConfig) errs.push(fieldForbidden('spec.conversion.webhookClientConfig', 'should not be set when strategy is not set to Webhook'));
    if (reviewVersions.length) errs.push(fieldForbidden('spec.conversion.conversionReviewVersions', 'should not be set when strategy is not set to Webhook'));
  }
  return errs;
}

function clientConfigErrors(config: JsonObject, path: string): FieldError[] {
  const hasUrl = typeof config.url === 'string';
  const service = isJsonObject(config.service) ? config.service : undefined;
  if (hasUrl === !!service) return [fieldRequired(path, 'exactly one of url or service is required')];
  if (hasUrl) return webhookUrlErrors(asString(config.url), `${path}.url`);
  const errs: FieldError[] = [];
  const svc = service ?? {};
  if (!asString(svc.name)) errs.push(fieldRequired(`${path}.service.name`, 'service name is required'));
  if (!asString(svc.namespace)) errs.push(fieldRequired(`${path}.service.namespace`, 'service namespace is required'));
  const port = svc.port;
  if (typeof port === 'number' && (port < 1 || port > 65535)) errs.push(fieldInvalid(`${path}.service.port`, port, 'port is not valid: must be between 1 and 65535, inclusive'));
  const servicePath = svc.path;
  if (typeof servicePath === 'string' && servicePath && !servicePath.startsWith('/')) errs.push(fieldInvalid(`${path}.service.path`, servicePath, "must start with a '/'"));
  return errs;
}

function webhookUrlErrors(raw: string, path: string): FieldError[] {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return [fieldInvalid(path, raw, 'host must be specified')];
  }
  const errs: FieldError[] = [];
  if (url.protocol !== 'https:') errs.push(fieldInvalid(path, raw, "'https' is the only allowed URL scheme"));
  if (!url.host) errs.push(fieldInvalid(path, raw, 'host must be specified'));
  if (url.username || url.password) errs.push(fieldInvalid(path, raw, 'user information is not permitted in the URL'));
  if (url.hash || raw.includes('#')) errs.push(fieldInvalid(path, raw, 'fragments are not permitted in the URL'));
  if (url.search || raw.includes('?')) errs.push(fieldInvalid(path, raw, 'query parameters are not permitted in the URL'));
  return errs;
}

function reviewVersionsErrors(versions: unknown[], path: string): FieldError[] {
  if (versions.length === 0) return [fieldRequired(path, '')];
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  let recognized = false;
  versions.forEach((raw, i) => {
    const v = asString(raw);
    if (seen.has(v)) {
      errs.push(fieldInvalid(indexPath(path, i), v, 'duplicate version'));
      return;
    }
    seen.add(v);
    for (const msg of dns1035LabelErrors(v)) errs.push(fieldInvalid(indexPath(path, i), v, msg));
    if (v === 'v1' || v === 'v1beta1') recognized = true;
  });
  if (!recognized) errs.push(fieldInvalid(path, versions, 'must include at least one of v1, v1beta1'));
  return errs;
}

function immutableFieldErrors(spec: JsonObject, oldSpec: JsonObject, established: boolean): FieldError[] {
  const errs: FieldError[] = [];
  const check = (value: unknown, oldValue: unknown, path: string): void => {
    if (!jsonEqual(value ?? '', oldValue ?? '')) errs.push(fieldInvalid(path, value ?? '', immutable));
  };
  if (established) {
    check(spec.scope, oldSpec.scope, 'spec.scope');
    check(asObject(spec.names).kind, asObject(oldSpec.names).kind, 'spec.names.kind');
  }
  check(spec.group, oldSpec.group, 'spec.group');
  check(asObject(spec.names).plural, asObject(oldSpec.names).plural, 'spec.names.plural');
  return errs;
}

function storedVersionsErrors(stored: unknown, versions: JsonObject[]): FieldError[] {
  const list = Array.isArray(stored) ? stored.map(asString) : [];
  if (list.length === 0) return [fieldInvalid('status.storedVersions', list, 'must have at least one stored version')];
  const errs: FieldError[] = [];
  const remaining = new Map<string, number>();
  list.forEach((v, i) => remaining.set(v, i));
  for (const version of versions) {
    const name = asString(version.name);
    const stillListed = remaining.has(name);
    if (version.storage === true && !stillListed) errs.push(fieldInvalid('status.storedVersions', list, `must have the storage version ${name}`));
    remaining.delete(name);
  }
  for (const [v, i] of [...remaining].sort((a, b) => a[1] - b[1])) {
    errs.push(
      fieldInvalid(
        indexPath('status.storedVersions', i),
        v,
        `missing from spec.versions; ${v} was previously a storage version, and must remain in spec.versions until a storage migration ensures no data remains persisted in ${v} and removes ${v} from status.storedVersions`,
      ),
    );
  }
  return errs;
}

type ApprovalState = 'missing' | 'bypassed' | 'invalid' | 'approved';

function approvalState(annotations: JsonObject): ApprovalState {
  const value = asString(annotations[approvalAnnotation]);
  if (!value) return 'missing';
  if (value.startsWith('unapproved')) return 'bypassed';
  return /^[a-zA-Z][a-zA-Z0-9+.-]*:\S*$|^\/\S*$/.test(value) ? 'approved' : 'invalid';
}

// Groups under k8s.io and kubernetes.io need the API review annotation.
function apiApprovalErrors(crd: JsonObject, old: unknown): FieldError[] {
  const group = asString(asObject(crd.spec).group);
  const protectedGroup = group === 'k8s.io' || group.endsWith('.k8s.io') || group === 'kubernetes.io' || group.endsWith('.kubernetes.io');
  if (!protectedGroup) return [];
  const annotations = asObject(asObject(crd.metadata).annotations);
  const state = approvalState(annotations);
  if (old !== undefined && approvalState(asObject(asObject(asObject(old).metadata).annotations)) === state) return [];
  const path = keyPath('metadata.annotations', approvalAnnotation);
  if (state === 'missing') {
    return [fieldRequired(path, `protected groups must have approval annotation "${approvalAnnotation}", see https://github.com/kubernetes/enhancements/pull/1111`)];
  }
  if (state === 'invalid') {
    return [
      fieldInvalid(
        path,
        asString(annotations[approvalAnnotation]),
        `protected groups must have approval annotation "${approvalAnnotation}" with either a URL or a reason starting with "unapproved", see https://github.com/kubernetes/enhancements/pull/1111`,
      ),
    ];
  }
  return [];
}
