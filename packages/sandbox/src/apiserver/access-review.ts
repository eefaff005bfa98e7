// POST of authorization.k8s.io/v1 access reviews (SubjectAccessReview, SelfSubjectAccessReview,
// LocalSubjectAccessReview, SelfSubjectRulesReview): nothing is stored; the review is decoded, admitted
// and validated as any create, then answered as a kube-apiserver whose authorizer is AlwaysAllow
// answers it (the sandbox enforces no RBAC): every access is allowed, with no reason, and the rules
// of a user are the wildcard rules, complete. Selectors that do not parse are reported in
// status.evaluationError, as the server reports what its authorizer had to ignore.

import { failure, StatusError, type FieldError } from '../errors.ts';
import { isJsonObject, type JsonObject, type KubeObject } from '../meta/object.ts';
import { fieldManagerName } from '../patch/index.ts';
import { newRequirement, parseLabelSelectorOrThrow, type LabelOperator } from '../selectors/labels.ts';
import { parseFieldSelector } from '../selectors/fields.ts';
import { goFieldErrorString } from '../validation/golang.ts';
import { validateAccessReview, type AccessReviewKind } from '../validation/access-review.ts';
import { asArray, asObject, asString } from '../validation/json.ts';
import type { ServerContext } from './context.ts';
import { checkNamespace, decodeObject } from './decode.ts';
import { manageFieldsOnUpdate } from './field-manager.ts';
import { parseWriteOptions } from './options.ts';
import type { ApiRequest, ObjectResult } from './request.ts';
import { admissionAttributes, handleUnknownFields, recordWarnings } from './write.ts';

const group = 'authorization.k8s.io';

/**
 * NewInvalid of the internal review, whose kind is empty once decoded: `.authorization.k8s.io "" is
 * invalid: …`, details naming only the group.
 */
function invalidReview(errors: readonly FieldError[]): StatusError {
  const rendered = errors.map(goFieldErrorString);
  const body = rendered.length === 1 ? rendered[0] : `[${rendered.join(', ')}]`;
  const causes = errors.map((e, i) => ({ reason: e.type, message: (rendered[i] ?? '').slice(e.field.length + 2), field: e.field }));
  return new StatusError(failure(422, 'Invalid', `.${group} "" is invalid: ${body}`, { group, causes }));
}

type SelectorOutcome = 'ok' | 'partially ignored' | 'ignored';

const labelOperators: Record<string, LabelOperator> = { In: 'in', NotIn: 'notin', Exists: 'exists', DoesNotExist: '!' };

/** How much of a label selector the authorizer could use (ResourceAttributesFrom). */
function labelSelectorOutcome(selector: JsonObject): SelectorOutcome {
  const requirements = asArray(selector.requirements).map(asObject);
  if (!requirements.length) {
    try {
      parseLabelSelectorOrThrow(asString(selector.rawSelector));
      return 'ok';
    } catch {
      return 'ignored';
    }
  }
  let understood = 0;
  for (const r of requirements) {
    const operator = labelOperators[asString(r.operator)];
    try {
      if (!operator) continue;
      newRequirement(asString(r.key), operator, asArray(r.values).map(asString));
      understood++;
    } catch {
      // dropped from the requirements the authorizer sees
    }
  }
  return understood === requirements.length ? 'ok' : understood ? 'partially ignored' : 'ignored';
}

/** The same for a field selector: one value for In and NotIn, no Exists or DoesNotExist. */
function fieldSelectorOutcome(selector: JsonObject): SelectorOutcome {
  const requirements = asArray(selector.requirements).map(asObject);
  if (!requirements.length) {
    try {
      parseFieldSelector(asString(selector.rawSelector));
      return 'ok';
    } catch {
      return 'ignored';
    }
  }
  const understood = requirements.filter((r) => ['In', 'NotIn'].includes(asString(r.operator)) && asArray(r.values).length === 1).length;
  return understood === requirements.length ? 'ok' : understood ? 'partially ignored' : 'ignored';
}

/** BuildEvaluationError: the authorizer's own error (none for AlwaysAllow) and the selectors it had to ignore. */
function evaluationError(spec: JsonObject): string {
  const attributes = asObject(spec.resourceAttributes);
  const errors: string[] = [];
  const selectors = [
    ['fieldSelector', fieldSelectorOutcome],
    ['labelSelector', labelSelectorOutcome],
  ] as const;
  for (const [field, outcome] of selectors) {
    const selector = attributes[field];
    if (!isJsonObject(selector)) continue;
    const result = outcome(selector);
    if (result !== 'ok') errors.push(`spec.resourceAttributes.${field} ${result} due to parse error`);
  }
  return errors.join('; ');
}

/** What AlwaysAllow decides: allowed, never denied, no reason. */
function accessStatus(spec: JsonObject): JsonObject {
  const error = evaluationError(spec);
  return { allowed: true, ...(error ? { evaluationError: error } : {}) };
}

/** RulesFor of AlwaysAllow: everything, and the list is complete. */
const allRules = {
  resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }],
  nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }],
  incomplete: false,
};

export async function createAccessReview(ctx: ServerContext, req: ApiRequest): Promise<ObjectResult> {
  const { def } = req;
  const options = parseWriteOptions(req.query, 'CreateOptions');
  const review = decodeObject(def, req.body);
  checkNamespace(def, review, req.namespace);
  const warnings = handleUnknownFields(def, review, options, req.bodyKeys);
  def.strategy.omitEmpty?.(review);
  const now = ctx.clock();
  manageFieldsOnUpdate(def, review, undefined, { manager: fieldManagerName(options.fieldManager, req.userAgent), apiVersion: `${group}/v1`, subresource: undefined, now });
  const attributes = admissionAttributes(req, 'CREATE', review, undefined, options.dryRun, { kind: 'CreateOptions' });
  await recordWarnings(warnings, ctx.admission.admit(attributes));

  const spec = asObject(review.spec);
  if (def.kind === 'SelfSubjectRulesReview') {
    if (!asString(spec.namespace)) throw new StatusError(failure(400, 'BadRequest', 'no namespace on request', undefined));
    await recordWarnings(warnings, ctx.admission.validate(attributes));
    // The REST answers a new review: only its status, no spec or metadata from the request.
    const answer: KubeObject = { kind: def.kind, apiVersion: `${group}/v1`, metadata: { creationTimestamp: null }, spec: {}, status: allRules };
    return { type: 'object', code: 201, object: answer, warnings };
  }
  const errors = validateAccessReview(def.kind as AccessReviewKind, review);
  if (errors.length) throw invalidReview(errors);
  await recordWarnings(warnings, ctx.admission.validate(attributes));
  const { namespace } = review.metadata;
  const metadata = { ...(namespace ? { namespace } : {}), creationTimestamp: null, ...(review.metadata.managedFields ? { managedFields: review.metadata.managedFields } : {}) };
  const answer: KubeObject = { kind: def.kind, apiVersion: `${group}/v1`, metadata, spec, status: accessStatus(spec) };
  return { type: 'object', code: 201, object: answer, warnings };
}
