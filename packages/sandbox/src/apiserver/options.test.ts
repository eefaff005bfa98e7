import { test } from 'node:test';
import assert from 'node:assert/strict';
import { StatusError } from '../errors.ts';
import { parseDeleteOptions, parseListOptions, parseResourceVersion, parseWriteOptions, resourceVersionText } from './options.ts';

const q = (s: string): URLSearchParams => new URLSearchParams(s);
const message = (fn: () => unknown): string => {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof StatusError);
    return `${e.status.code} ${e.status.message}`;
  }
  return 'no error';
};

test('write options: dryRun, fieldValidation default Warn, fieldManager, force', () => {
  assert.deepEqual(parseWriteOptions(q('dryRun=All&fieldManager=m&force=true'), 'PatchOptions'), { dryRun: true, fieldValidation: 'Warn', fieldManager: 'm', force: true });
  assert.equal(
    message(() => parseWriteOptions(q('dryRun=Bogus'), 'UpdateOptions')),
    '422 UpdateOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: []string{"Bogus"}: supported values: "All"',
  );
});

test('delete options come from the query or the body; policy errors are 422', () => {
  assert.deepEqual(parseDeleteOptions(q('gracePeriodSeconds=5'), { propagationPolicy: 'Foreground', preconditions: { uid: 'u' } }), {
    dryRun: false,
    gracePeriodSeconds: 5,
    propagationPolicy: 'Foreground',
    orphanDependents: undefined,
    preconditions: { uid: 'u' },
  });
  assert.equal(
    message(() => parseDeleteOptions(q(''), { propagationPolicy: 'Orphan', orphanDependents: true })),
    '422 DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Invalid value: "Orphan": orphanDependents and deletionPropagation cannot be both set',
  );
});

test('list options: the resourceVersionMatch rules of list and watch', () => {
  assert.equal(
    message(() => parseListOptions(q('resourceVersion=0&resourceVersionMatch=Exact'), false)),
    '422 ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch "exact" is forbidden for resourceVersion "0"',
  );
  assert.equal(
    message(() => parseListOptions(q('resourceVersion=252&resourceVersionMatch=Exact'), true)),
    '422 ListOptions.meta.k8s.io "" is invalid: [resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided, resourceVersionMatch: Unsupported value: "Exact": supported values: "NotOlderThan"]',
  );
  const ok = parseListOptions(q('watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&limit=-1'), false);
  assert.equal(ok.watch, true);
  assert.equal(ok.sendInitialEvents, true);
  assert.equal(ok.limit, undefined);
});

test('a garbage resourceVersion is a reasonless 500 with ParseUint’s words', () => {
  assert.equal(parseResourceVersion('42'), 42);
  assert.equal(message(() => parseResourceVersion('abc')), '500 strconv.ParseUint: parsing "abc": invalid syntax');
  assert.equal(message(() => parseResourceVersion('+5')), '500 strconv.ParseUint: parsing "+5": invalid syntax');
  assert.equal(parseResourceVersion('18446744073709551615') > 2 ** 63, true);
  assert.equal(message(() => parseResourceVersion('18446744073709551616', 'resourceVersion')), '500 resourceVersion: Invalid value: "18446744073709551616": strconv.ParseUint: parsing "18446744073709551616": value out of range');
  assert.equal(resourceVersionText('0018446744073709551615'), '18446744073709551615');
});
