// Helpers for decoded JSON values, beside the shared ones of ../meta/object.ts.

import { isJsonObject, type JsonObject } from '../meta/object.ts';

export const hasOwn = (o: JsonObject, key: string): boolean => Object.prototype.hasOwnProperty.call(o, key);

/** Sets a key even when it is `__proto__`, which plain assignment would treat as the prototype. */
export function setOwn(o: JsonObject, key: string, value: unknown): void {
  Object.defineProperty(o, key, { value, writable: true, enumerable: true, configurable: true });
}

/** Removes the null members of objects, recursively and in place (null array elements stay); returns `value`. */
export function dropNullMembers<T>(value: T): T {
  if (Array.isArray(value)) value.forEach(dropNullMembers);
  else if (isJsonObject(value)) {
    for (const [key, member] of Object.entries(value)) {
      if (member === null) delete value[key];
      else dropNullMembers(member);
    }
  }
  return value;
}
