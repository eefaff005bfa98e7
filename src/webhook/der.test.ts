// DER encodings checked against the bytes X.690 and RFC 5280 give for them.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { namedBits, objectIdentifier, smallInteger, time, unsignedInteger } from './der.ts';

const hex = (bytes: Uint8Array): string => Buffer.from(bytes).toString('hex');

test('OBJECT IDENTIFIER: the first two arcs in one byte, the others in base 128', () => {
  assert.equal(hex(objectIdentifier('1.2.840.10045.4.3.2')), '06082a8648ce3d040302');
  assert.equal(hex(objectIdentifier('2.5.29.17')), '0603551d11');
});

test('INTEGER: positive, minimal, a leading zero only where the high bit is set', () => {
  assert.equal(hex(smallInteger(2)), '020102');
  assert.equal(hex(unsignedInteger(Uint8Array.of(0, 0, 0x7f))), '02017f');
  assert.equal(hex(unsignedInteger(Uint8Array.of(0x80, 1))), '0203008001');
});

test('KeyUsage bits: trailing zero bits dropped and counted as unused', () => {
  assert.equal(hex(namedBits([5, 6])), '03020106', 'keyCertSign, cRLSign');
  assert.equal(hex(namedBits([0, 2])), '030205a0', 'digitalSignature, keyEncipherment');
});

test('times: UTCTime through 2049, GeneralizedTime from 2050', () => {
  assert.equal(Buffer.from(time(new Date('2026-11-26T02:13:41.999Z'))).subarray(2).toString(), '261126021341Z');
  assert.equal(Buffer.from(time(new Date('2050-01-01T00:00:00Z'))).subarray(2).toString(), '20500101000000Z');
});
