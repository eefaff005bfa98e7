import { test } from 'node:test';
import assert from 'node:assert/strict';
import { negotiate } from './negotiation.ts';

test('kubectl’s Accept headers pick Tables, aggregated discovery and JSON', () => {
  assert.deepEqual(negotiate('application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json', false), {
    kind: 'table',
    apiVersion: 'meta.k8s.io/v1',
  });
  const discovery = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json';
  assert.deepEqual(negotiate(discovery, true), { kind: 'discovery', version: 'v2' });
  assert.deepEqual(negotiate(discovery, false), { kind: 'json' }, 'resources never answer discovery documents');
  assert.deepEqual(negotiate('application/vnd.kubernetes.protobuf, */*', false), { kind: 'json' }, 'protobuf is answered in JSON');
  assert.deepEqual(negotiate(undefined, false), { kind: 'json' });
  assert.deepEqual(negotiate('application/yaml', false), { kind: 'yaml' });
  assert.deepEqual(negotiate('application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io', false), { kind: 'partial' });
  assert.equal(negotiate('text/html', false), undefined);
});
