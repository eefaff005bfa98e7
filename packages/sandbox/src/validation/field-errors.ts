// Field-error builders errors.ts does not provide, shaped as apimachinery's field.NotFound and
// field.TooMany render (`Not found: "x"`, `Too many: 65: must have at most 64 items`).

import type { FieldError } from '../errors.ts';

export const fieldNotFound = (field: string, value: unknown, detail = ''): FieldError => ({ type: 'FieldValueNotFound', field, value, detail });

export const fieldTooMany = (field: string, actual: number, max: number): FieldError => ({
  type: 'FieldValueTooMany',
  field,
  detail: `${actual}: must have at most ${max} items`,
});
