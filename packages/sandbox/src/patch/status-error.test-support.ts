// The Status a sandbox call is expected to fail with.

import assert from 'node:assert/strict';
import { StatusError, type Status } from '../errors.ts';

export function statusOf(fn: () => unknown): Status {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof StatusError, `expected a StatusError, got ${String(e)}`);
    return e.status;
  }
  assert.fail('expected an error');
}
