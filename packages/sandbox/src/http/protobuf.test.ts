import { test } from 'node:test';
import assert from 'node:assert/strict';
import { StatusError } from '../errors.ts';
import { decodeProtobufObject } from './protobuf.ts';

// A minimal proto2 encoder for the test: fields are [number, value] with strings, numbers
// (varints), booleans and nested messages (arrays of fields).
type Field = [number, string | number | boolean | Field[] | Uint8Array];
function encode(fields: Field[]): Uint8Array {
  const out: number[] = [];
  const varint = (n: number): void => {
    let v = n;
    while (v > 0x7f) {
      out.push((v & 0x7f) | 0x80);
      v = Math.floor(v / 128);
    }
    out.push(v);
  };
  for (const [number, value] of fields) {
    if (typeof value === 'number' || typeof value === 'boolean') {
      varint(number << 3);
      varint(Number(value));
    } else {
      const bytes = typeof value === 'string' ? new TextEncoder().encode(value) : value instanceof Uint8Array ? value : encode(value);
      varint((number << 3) | 2);
      varint(bytes.length);
      out.push(...bytes);
    }
  }
  return Uint8Array.from(out);
}
const envelope = (apiVersion: string, kind: string, raw: Field[]): Uint8Array =>
  Uint8Array.from([0x6b, 0x38, 0x73, 0x00, ...encode([[1, [[1, apiVersion], [2, kind]]], [2, encode(raw)]])]);

test('decodes a ConfigMap as kubectl create configmap sends it, dropping Go zero values', () => {
  const body = envelope('v1', 'ConfigMap', [
    [1, [[1, 'c1'], [2, ''], [3, ''], [7, 0], [8, []], [11, [[1, 'app'], [2, 'web']]]]],
    [2, [[1, 'a'], [2, 'b']]],
  ]);
  assert.deepEqual(decodeProtobufObject(body, 'ConfigMap'), { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c1', labels: { app: 'web' } }, data: { a: 'b' } });
});

test('keeps zero values of pointer fields and decodes IntOrString', () => {
  const body = envelope('apps/v1', 'Deployment', [
    [1, [[1, 'web']]],
    [2, [[1, 0], [4, [[1, 'RollingUpdate'], [2, [[1, [[1, 1], [3, '25%']]]]]]]]],
  ]);
  assert.deepEqual(decodeProtobufObject(body, 'Deployment').spec, { replicas: 0, strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '25%' } } });
});

test('refuses what it cannot decode faithfully with 415', () => {
  assert.throws(() => decodeProtobufObject(Uint8Array.from([1, 2, 3, 4]), 'Pod'), (e: unknown) => e instanceof StatusError && e.status.code === 415);
  const unknownField = envelope('v1', 'ConfigMap', [[1, [[1, 'c1'], [99, 'surprise']]]]);
  assert.throws(() => decodeProtobufObject(unknownField, 'ConfigMap'), (e: unknown) => e instanceof StatusError && /field metadata\.#99 is not supported/.test(e.status.message ?? ''));
  const ignoredZero = envelope('v1', 'ConfigMap', [[1, [[1, 'c1'], [99, '']]]]);
  assert.equal(decodeProtobufObject(ignoredZero, 'ConfigMap').metadata.name, 'c1');
});
