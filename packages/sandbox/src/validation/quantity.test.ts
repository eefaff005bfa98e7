import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { compareQuantity, formatQuantity, parseQuantity, roundUpToMilli, type Quantity } from './quantity.ts';

const canonical = (s: unknown): string => formatQuantity(parseQuantity(s) as Quantity);

describe('quantities', () => {
  test('canonical forms as the server stores them', () => {
    const cases: Array<[unknown, string]> = [
      ['100m', '100m'],
      ['0.5', '500m'],
      ['1000m', '1'],
      ['1500m', '1500m'],
      ['2000', '2k'],
      ['1Gi', '1Gi'],
      ['1024Mi', '1Gi'],
      ['1536Mi', '1536Mi'],
      ['1.5Gi', '1536Mi'],
      ['512', '512'],
      ['0.1Ki', '102400m'],
      ['1e3', '1e3'],
      ['10M', '10M'],
      [2, '2'],
      ['0', '0'],
      ['-1', '-1'],
    ];
    for (const [input, expected] of cases) assert.equal(canonical(input), expected, String(input));
  });
  test('malformed quantities do not parse', () => {
    for (const s of ['', 'abc', '1Kb', '1.2.3', 'm', '1 Gi']) assert.equal(parseQuantity(s), undefined, s);
  });
  test('comparison across suffixes and rounding to milli precision', () => {
    assert.equal(compareQuantity(parseQuantity('1Gi')!, parseQuantity('1073741824')!), 0);
    assert.equal(compareQuantity(parseQuantity('100m')!, parseQuantity('0.2')!), -1);
    assert.equal(formatQuantity(roundUpToMilli(parseQuantity('0.0001')!)), '1m');
    assert.equal(formatQuantity(roundUpToMilli(parseQuantity('1n')!)), '1m');
  });
});
