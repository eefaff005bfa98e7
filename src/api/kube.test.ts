// The Kubernetes vocabulary's own helpers.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { resolveIntOrPercent } from './kube.ts';

describe('resolveIntOrPercent', () => {
  test('an int as it is, a percentage rounded up or down, the fallback when absent, 0 when unreadable', () => {
    assert.equal(resolveIntOrPercent(3, 10, true, '25%'), 3);
    assert.equal(resolveIntOrPercent('25%', 10, true, '0'), 3);
    assert.equal(resolveIntOrPercent('25%', 10, false, '0'), 2);
    assert.equal(resolveIntOrPercent(undefined, 10, true, '25%'), 3);
    assert.equal(resolveIntOrPercent(null, 10, false, '1'), 0);
    assert.equal(resolveIntOrPercent('x', 10, true, '25%'), 0);
  });
});
