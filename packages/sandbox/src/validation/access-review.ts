// authorization.k8s.io/v1 access reviews, as pkg/apis/authorization/validation checks them: exactly
// one of resourceAttributes and nonResourceAttributes, a user or a group (SubjectAccessReview), the
// selectors of resourceAttributes (a raw selector or requirements, not both; unknown operators are
// admitted for newer clients), empty metadata (a LocalSubjectAccessReview keeps its namespace, which
// resourceAttributes.namespace must match, and takes no nonResourceAttributes).

import { goQuote } from '../crd/go-format.ts';
import { fieldForbidden, fieldInvalid, fieldRequired, type FieldError } from '../errors.ts';
import { isJsonObject, type JsonObject } from '../meta/object.ts';
import { goLiteral, goStructText } from './golang.ts';
import { asArray, asObject, asString } from './json.ts';
import { validateLabelName } from './meta.ts';
import { isValidLabelValue } from './names.ts';

export type AccessReviewKind = 'SubjectAccessReview' | 'SelfSubjectAccessReview' | 'LocalSubjectAccessReview';

const present = (value: unknown): value is JsonObject => isJsonObject(value);

/** A *NonResourceAttributes as field.Error prints it: the struct (%#v), or "null" for nil. */
const nonResourceValue = (value: unknown): unknown =>
  present(value) ? goLiteral(`authorization.NonResourceAttributes{Path:${goQuote(asString(value.path))}, Verb:${goQuote(asString(value.verb))}}`) : 'null';

function validateSelectorAttributes(selector: unknown, path: string, requirement: (r: JsonObject, at: string) => FieldError[]): FieldError[] {
  if (!present(selector)) return [];
  const errs: FieldError[] = [];
  const raw = asString(selector.rawSelector);
  const requirements = asArray(selector.requirements);
  if (raw && requirements.length) errs.push(fieldInvalid(`${path}.rawSelector`, raw, 'may not specified at the same time as requirements'));
  if (!raw && !requirements.length) errs.push(fieldRequired(`${path}.requirements`, `when ${path} is specified, requirements or rawSelector is required`));
  requirements.forEach((r, i) => errs.push(...requirement(asObject(r), `${path}.requirements[${i}]`)));
  return errs;
}

/** The operator's rule for values; unknown operators are admitted (newer clients may send them). */
function operatorErrors(r: JsonObject, at: string): FieldError[] {
  const operator = asString(r.operator);
  const values = asArray(r.values);
  if (['In', 'NotIn'].includes(operator) && !values.length) return [fieldRequired(`${at}.values`, "must be specified when `operator` is 'In' or 'NotIn'")];
  if (['Exists', 'DoesNotExist'].includes(operator) && values.length) return [fieldForbidden(`${at}.values`, "may not be specified when `operator` is 'Exists' or 'DoesNotExist'")];
  return [];
}

/** ValidateFieldSelectorRequirement. */
const fieldRequirementErrors = (r: JsonObject, at: string): FieldError[] => [
  ...(asString(r.key) ? [] : [fieldRequired(`${at}.key`, 'must be specified')]),
  ...operatorErrors(r, at),
];

/** ValidateLabelSelectorRequirement. */
const labelRequirementErrors = (r: JsonObject, at: string): FieldError[] => [
  ...operatorErrors(r, at),
  ...validateLabelName(asString(r.key), `${at}.key`),
  ...asArray(r.values).flatMap((v, i) => isValidLabelValue(asString(v)).map((msg) => fieldInvalid(`${at}.values[${i}]`, asString(v), msg))),
];

function validateSpec(spec: JsonObject, subject: boolean): FieldError[] {
  const errs: FieldError[] = [];
  const resource = spec.resourceAttributes;
  const nonResource = spec.nonResourceAttributes;
  if (present(resource) && present(nonResource)) errs.push(fieldInvalid('spec.nonResourceAttributes', nonResourceValue(nonResource), 'cannot be specified in combination with resourceAttributes'));
  if (!present(resource) && !present(nonResource)) errs.push(fieldInvalid('spec.resourceAttributes', 'null', 'exactly one of nonResourceAttributes or resourceAttributes must be specified'));
  if (subject && !asString(spec.user) && !asArray(spec.groups).length) errs.push(fieldInvalid('spec.user', asString(spec.user), 'at least one of user or group must be specified'));
  if (present(resource)) {
    const path = 'spec.resourceAttributes';
    errs.push(...validateSelectorAttributes(resource.fieldSelector, `${path}.fieldSelector`, fieldRequirementErrors));
    errs.push(...validateSelectorAttributes(resource.labelSelector, `${path}.labelSelector`, labelRequirementErrors));
  }
  return errs;
}

/** The metadata fields that make ObjectMeta non-empty (managedFields, set by the server, do not count). */
function metadataIsEmpty(metadata: JsonObject, except: readonly string[]): boolean {
  return Object.entries(metadata).every(([k, v]) => except.includes(k) || k === 'managedFields' || v === null || v === '' || v === 0);
}

export function validateAccessReview(kind: AccessReviewKind, review: JsonObject): FieldError[] {
  const spec = asObject(review.spec);
  const metadata = asObject(review.metadata);
  const errs = validateSpec(spec, kind !== 'SelfSubjectAccessReview');
  const local = kind === 'LocalSubjectAccessReview';
  // %#v of the whole ObjectMeta (pointers and all) cannot be reproduced; its fields are shown.
  if (!metadataIsEmpty(metadata, local ? ['namespace'] : [])) {
    errs.push(fieldInvalid('metadata', goLiteral(goStructText('v1.ObjectMeta', metadata)), local ? 'must be empty except for namespace' : 'must be empty'));
  }
  if (!local) return errs;
  const resource = spec.resourceAttributes;
  if (present(resource) && asString(resource.namespace) !== asString(metadata.namespace)) {
    errs.push(fieldInvalid('spec.resourceAttributes.namespace', asString(resource.namespace), 'must match metadata.namespace'));
  }
  if (present(spec.nonResourceAttributes)) errs.push(fieldInvalid('spec.nonResourceAttributes', nonResourceValue(spec.nonResourceAttributes), 'disallowed on this kind of request'));
  return errs;
}
