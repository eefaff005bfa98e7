// metav1.LabelSelector objects (`matchLabels` + `matchExpressions`): their validation as
// ValidateLabelSelector reports it, and their meaning as LabelSelectorAsSelector builds it.

import { fieldForbidden, fieldInvalid, fieldRequired, type FieldError } from '../errors.ts';
import { isJsonObject } from '../meta/object.ts';
import { asArray, asObject, asString, asStringMap } from '../validation/json.ts';
import { validateLabelName, validateLabels } from '../validation/meta.ts';
import { isValidLabelValue } from '../validation/names.ts';
import { everything, LabelSelectorError, matchesLabels, newRequirement, nothing, type LabelOperator, type LabelSelector } from './labels.ts';

export interface LabelSelectorValidationOptions {
  /** Tolerate values that are not valid label values (kept for objects stored before the check). */
  allowInvalidLabelValueInSelector?: boolean;
}

/** ValidateLabelSelector: `matchLabels` as labels, each expression's operator, key and values. */
export function validateLabelSelector(selector: unknown, path: string, opts: LabelSelectorValidationOptions = {}): FieldError[] {
  if (!isJsonObject(selector)) return [];
  const errs = validateLabels(selector.matchLabels, `${path}.matchLabels`);
  asArray(selector.matchExpressions).forEach((raw, i) => {
    const expr = asObject(raw);
    const p = `${path}.matchExpressions[${i}]`;
    const values = asArray(expr.values).map(asString);
    const operator = asString(expr.operator);
    switch (operator) {
      case 'In':
      case 'NotIn':
        if (values.length === 0) errs.push(fieldRequired(`${p}.values`, "must be specified when `operator` is 'In' or 'NotIn'"));
        break;
      case 'Exists':
      case 'DoesNotExist':
        if (values.length > 0) errs.push(fieldForbidden(`${p}.values`, "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"));
        break;
      default:
        errs.push(fieldInvalid(`${p}.operator`, operator, 'not a valid selector operator'));
    }
    errs.push(...validateLabelName(asString(expr.key), `${p}.key`));
    if (!opts.allowInvalidLabelValueInSelector)
      values.forEach((v, j) => errs.push(...isValidLabelValue(v).map((msg) => fieldInvalid(`${p}.values[${j}]`, v, msg))));
  });
  return errs;
}

const expressionOperators: Record<string, LabelOperator> = { In: 'in', NotIn: 'notin', Exists: 'exists', DoesNotExist: '!' };

/**
 * LabelSelectorAsSelector: a missing selector matches nothing, an empty one everything. Throws
 * LabelSelectorError (with the real wording) when a key, value or operator is not acceptable.
 */
export function labelSelectorFromObject(selector: unknown): LabelSelector {
  if (!isJsonObject(selector)) return nothing();
  const matchLabels = asStringMap(selector.matchLabels);
  const expressions = asArray(selector.matchExpressions).map(asObject);
  if (Object.keys(matchLabels).length + expressions.length === 0) return everything();
  const requirements = Object.entries(matchLabels).map(([k, v]) => newRequirement(k, '=', [v]));
  for (const expr of expressions) {
    const operator = expressionOperators[asString(expr.operator)];
    if (!operator) throw new LabelSelectorError(`"${asString(expr.operator)}" is not a valid label selector operator`);
    requirements.push(newRequirement(asString(expr.key), operator, asArray(expr.values).map(asString)));
  }
  requirements.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return { requirements, matchesNothing: false };
}

/** The selector when it converts, undefined when LabelSelectorAsSelector would fail. */
export function tryLabelSelectorFromObject(selector: unknown): LabelSelector | undefined {
  try {
    return labelSelectorFromObject(selector);
  } catch (e) {
    if (e instanceof LabelSelectorError) return undefined;
    throw e;
  }
}

/** Whether a LabelSelector object selects the given labels (a selector that does not convert selects nothing). */
export function labelSelectorMatches(selector: unknown, labels: Readonly<Record<string, string>> | undefined): boolean {
  const compiled = tryLabelSelectorFromObject(selector);
  return compiled !== undefined && matchesLabels(compiled, labels);
}
