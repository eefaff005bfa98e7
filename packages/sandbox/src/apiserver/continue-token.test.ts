import { test } from 'node:test';
import assert from 'node:assert/strict';
import { StatusError } from '../errors.ts';
import { decodeContinue, encodeContinue } from './continue-token.ts';

test('continue tokens are unpadded base64url of the real JSON shape and decode back', () => {
  const token = encodeContinue(267, 'g2');
  assert.equal(token, 'eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6MjY3LCJzdGFydCI6Ii9nMlx1MDAwMCJ9');
  assert.deepEqual(decodeContinue(token), { rv: 267, after: 'g2' });
  assert.deepEqual(decodeContinue(encodeContinue(-1, 'ns/x')), { rv: -1, after: 'ns/x' });
});

test('garbage is a 400 invalid continue token', () => {
  assert.throws(
    () => decodeContinue('garbage'),
    (e: unknown) => e instanceof StatusError && e.status.code === 400 && /^invalid continue token: continue key is not valid: invalid character/.test(e.status.message ?? ''),
  );
  assert.throws(() => decodeContinue(Buffer.from('{"v":"other","rv":1,"start":"a"}').toString('base64url')), StatusError);
});
