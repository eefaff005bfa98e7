// metav1.Condition lists, as ValidateConditions checks them (the status of PodDisruptionBudgets and
// other kinds written with the standard condition type).

import { fieldDuplicate, fieldInvalid, fieldNotSupported, fieldRequired, fieldTooLong, type FieldError } from '../errors.ts';
import { asNumber, asString, isPresent, objectList } from './json.ts';
import { validateLabelName } from './meta.ts';
import { regexError } from './names.ts';

const statuses = ['False', 'True', 'Unknown'];
const reasonFormat = '[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?';
const maxReasonLength = 1024;
const maxMessageLength = 32768;

export function validateConditions(conditions: unknown, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  objectList(conditions).forEach((c, i) => {
    const p = `${path}[${i}]`;
    const type = asString(c.type);
    if (seen.has(type)) errs.push(fieldDuplicate(`${p}.type`, type));
    seen.add(type);
    errs.push(...validateLabelName(type, `${p}.type`));
    if (!statuses.includes(asString(c.status))) errs.push(fieldNotSupported(`${p}.status`, asString(c.status), statuses));
    const generation = asNumber(c.observedGeneration) ?? 0;
    if (generation < 0) errs.push(fieldInvalid(`${p}.observedGeneration`, generation, 'must be greater than or equal to zero'));
    if (!isPresent(c.lastTransitionTime)) errs.push(fieldRequired(`${p}.lastTransitionTime`, 'must be set'));
    const reason = asString(c.reason);
    if (reason === '') errs.push(fieldRequired(`${p}.reason`, 'must be set'));
    else {
      if (!new RegExp(`^${reasonFormat}$`).test(reason)) {
        const why = regexError("a condition reason must start with alphabetic character, optionally followed by a string of alphanumeric characters or '_,:', and must end with an alphanumeric character or '_'", reasonFormat, 'my_name', 'MY_NAME', 'MyName', 'ReasonA,ReasonB', 'ReasonA:ReasonB');
        errs.push(fieldInvalid(`${p}.reason`, reason, why));
      }
      if (reason.length > maxReasonLength) errs.push(fieldTooLong(`${p}.reason`, reason, maxReasonLength));
    }
    const message = asString(c.message);
    if (message.length > maxMessageLength) errs.push(fieldTooLong(`${p}.message`, message, maxMessageLength));
  });
  return errs;
}
