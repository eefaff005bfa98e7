import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  isConfigMapKey,
  isDNS1035Label,
  isDNS1123Label,
  isDNS1123Subdomain,
  isFullyQualifiedName,
  isQualifiedName,
  isValidLabelValue,
  isValidPathSegmentName,
  isValidPortName,
  nameIsDNSSubdomain,
} from './names.ts';
import { fieldErrorString } from '../errors.ts';

const NAME_PART_REGEX =
  "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const SUBDOMAIN_REGEX =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";

describe('qualified names (label and annotation keys)', () => {
  test('a bad name part, with the two spaces of the upstream message', () => {
    assert.deepEqual(isQualifiedName('bad key!'), [NAME_PART_REGEX]);
  });
  test('prefix longer than 253 characters', () => {
    assert.deepEqual(isQualifiedName(`${'a'.repeat(250)}.com/k`), ['prefix part must be no more than 253 characters']);
  });
  test('name part longer than 63 characters', () => {
    assert.deepEqual(isQualifiedName(`example.com/${'k'.repeat(64)}`), ['name part must be no more than 63 characters']);
  });
  test('prefix that is not a DNS subdomain', () => {
    assert.deepEqual(isQualifiedName('Bad_Prefix/k'), [`prefix part ${SUBDOMAIN_REGEX}`]);
  });
  test('empty prefix and empty key', () => {
    assert.deepEqual(isQualifiedName('/k'), ['prefix part must be non-empty']);
    assert.deepEqual(isQualifiedName(''), ['name part must be non-empty', NAME_PART_REGEX]);
  });
  test('two slashes', () => {
    assert.deepEqual(isQualifiedName('a/b/c'), [
      "a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
    ]);
  });
  test('valid keys', () => {
    for (const key of ['app', 'example.com/team', 'nodots/x', 'My.Name_1', 'a']) assert.deepEqual(isQualifiedName(key), [], key);
  });
});

describe('label values', () => {
  test('too long and badly formed', () => {
    assert.deepEqual(isValidLabelValue('v'.repeat(64)), ['must be no more than 63 characters']);
    assert.deepEqual(isValidLabelValue('bad value!'), [
      "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
    ]);
  });
  test('empty and 63-character values are valid', () => {
    assert.deepEqual(isValidLabelValue(''), []);
    assert.deepEqual(isValidLabelValue('v'.repeat(63)), []);
  });
});

describe('DNS names', () => {
  test('subdomain: bad characters and length', () => {
    assert.deepEqual(isDNS1123Subdomain('BadName'), [SUBDOMAIN_REGEX]);
    assert.deepEqual(isDNS1123Subdomain('a'.repeat(254)), ['must be no more than 253 characters']);
    assert.deepEqual(isDNS1123Subdomain('a.b-c.d'), []);
  });
  test('label: dots are reported as such, other mistakes with the regex', () => {
    assert.deepEqual(isDNS1123Label('a.b'), ['must not contain dots']);
    assert.deepEqual(isDNS1123Label('A'), [
      "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
    ]);
  });
  test('RFC 1035 label (service names) must start with a letter', () => {
    assert.deepEqual(isDNS1035Label('1svc'), [
      "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')",
    ]);
    assert.deepEqual(isDNS1035Label('svc-1'), []);
  });
  test('generateName prefixes may end with a dash (the last two characters are masked)', () => {
    assert.deepEqual(nameIsDNSSubdomain('gen-', true), []);
    assert.deepEqual(nameIsDNSSubdomain('gen-', false), [SUBDOMAIN_REGEX]);
    assert.deepEqual(nameIsDNSSubdomain('Bad_', true), [SUBDOMAIN_REGEX]);
  });
  test('fully qualified webhook names need three segments', () => {
    assert.deepEqual(isFullyQualifiedName('webhooks[0].name', 'a.b').map(fieldErrorString), [
      'webhooks[0].name: Invalid value: "a.b": should be a domain with at least three segments separated by dots',
    ]);
    assert.deepEqual(isFullyQualifiedName('webhooks[0].name', ''), [{ type: 'FieldValueRequired', field: 'webhooks[0].name', detail: '' }]);
    assert.deepEqual(isFullyQualifiedName('webhooks[0].name', 'a.b.c'), []);
  });
});

describe('other formats', () => {
  test('ConfigMap and Secret keys', () => {
    assert.deepEqual(isConfigMapKey('..x'), ["must not start with '..'"]);
    assert.deepEqual(isConfigMapKey('a b'), [
      "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')",
    ]);
    assert.deepEqual(isConfigMapKey('tls.crt'), []);
  });
  test('port names', () => {
    assert.deepEqual(isValidPortName('http'), []);
    assert.deepEqual(isValidPortName('123'), ['must contain at least one letter (a-z)']);
    assert.deepEqual(isValidPortName('a--b'), ['must not contain consecutive hyphens']);
  });
  test('path segment names', () => {
    assert.deepEqual(isValidPathSegmentName('..'), ["may not be '..'"]);
    assert.deepEqual(isValidPathSegmentName('a/b%c'), ["may not contain '/'", "may not contain '%'"]);
  });
});
