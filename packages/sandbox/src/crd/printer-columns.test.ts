import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { humanDuration } from './human-duration.ts';
import { podTransitionRuleCrd } from './podtransitionrule-crd.fixture.ts';
import { printerColumnsFor, printerRowCells } from './printer-columns.ts';

const created = Date.parse('2024-03-01T12:00:00Z');
const ptrVersion = (podTransitionRuleCrd().spec as { versions: unknown[] }).versions[0];

describe('printerColumnsFor', () => {
  test('Name first, then the declared columns with their defaults; no automatic Age', () => {
    const { columnDefinitions } = printerColumnsFor(ptrVersion);
    assert.deepEqual(
      columnDefinitions.map((c) => [c.name, c.type, c.format, c.priority]),
      [
        ['Name', 'string', 'name', 0],
        ['Stage', 'string', '', 0],
        ['Observed', 'integer', '', 0],
        ['Targets', 'string', '', 0],
        ['Disabled', 'boolean', '', 1],
        ['Age', 'date', '', 0],
      ],
    );
    assert.equal(columnDefinitions[1]?.description, 'The stage of the first rule.');
    assert.equal(columnDefinitions[2]?.description, 'Custom resource definition column (in JSONPath format): .status.observedGeneration');
    assert.match(columnDefinitions[0]?.description ?? '', /^Name must be unique within a namespace\./);
  });

  test('a version without columns gets Name and Age', () => {
    const { columnDefinitions, jsonPaths } = printerColumnsFor({ name: 'v1', served: true, storage: true });
    assert.deepEqual(
      columnDefinitions.map((c) => c.name),
      ['Name', 'Age'],
    );
    assert.deepEqual(jsonPaths, ['.metadata.creationTimestamp']);
    assert.match(columnDefinitions[1]?.description ?? '', /^CreationTimestamp is a timestamp representing the server time/);
  });
});

describe('printerRowCells', () => {
  const columns = printerColumnsFor(ptrVersion);

  test('cells keep their JSON types; missing values are null; dates are ages', () => {
    const obj = {
      metadata: { name: 'r1', creationTimestamp: '2024-03-01T12:00:00Z' },
      spec: { rules: [{ name: 'a', stage: 'PostCheck' }], disabled: false },
      status: { observedGeneration: 3, targets: ['p1', 'p2'] },
    };
    assert.deepEqual(printerRowCells(columns, obj, created + 5 * 60_000 + 30_000), ['r1', 'PostCheck', 3, '["p1","p2"]', false, '5m30s']);
    assert.deepEqual(printerRowCells(columns, { metadata: { name: 'r2' } }, created), ['r2', null, null, null, null, null]);
  });

  test('a value of the wrong type for its column is null; a bad date is <invalid>', () => {
    const obj = { metadata: { name: 'r3', creationTimestamp: 'soon' }, spec: { disabled: 'no' }, status: { observedGeneration: 'three' } };
    assert.deepEqual(printerRowCells(columns, obj, created), ['r3', null, null, null, null, '<invalid>']);
  });

  test('filters, labels and indexes as CRD columns use them', () => {
    const custom = printerColumnsFor({
      additionalPrinterColumns: [
        { name: 'Ready', type: 'string', jsonPath: '.status.conditions[?(@.type=="Ready")].status' },
        { name: 'App', type: 'string', jsonPath: '.metadata.labels.app' },
        { name: 'Last', type: 'string', jsonPath: '.spec.items[-1]' },
        { name: 'Ratio', type: 'number', jsonPath: '.spec.ratio' },
        { name: 'Count', type: 'integer', jsonPath: '.spec.ratio' },
      ],
    });
    const obj = {
      metadata: { name: 'w', labels: { app: 'web' } },
      spec: { items: ['a', 'b'], ratio: 2.5 },
      status: { conditions: [{ type: 'Synced', status: 'False' }, { type: 'Ready', status: 'True' }] },
    };
    assert.deepEqual(printerRowCells(custom, obj, created), ['w', 'True', 'web', 'b', 2.5, 2]);
  });
});

describe('humanDuration', () => {
  const cases: [number, string][] = [
    [-1500, '0s'],
    [-2500, '<invalid>'],
    [0, '0s'],
    [119_000, '119s'],
    [120_000, '2m'],
    [9 * 60_000 + 59_000, '9m59s'],
    [10 * 60_000 + 30_000, '10m'],
    [179 * 60_000, '179m'],
    [3 * 3600_000 + 12 * 60_000, '3h12m'],
    [8 * 3600_000 + 59 * 60_000, '8h'],
    [47 * 3600_000, '47h'],
    [2 * 86400_000, '2d'],
    [3 * 86400_000 + 5 * 3600_000, '3d5h'],
    [8 * 86400_000 + 5 * 3600_000, '8d'],
    [400 * 86400_000, '400d'],
    [3 * 365 * 86400_000 + 10 * 86400_000, '3y10d'],
    [9 * 365 * 86400_000, '9y'],
  ];
  for (const [ms, expected] of cases) test(`${ms} ms is ${expected}`, () => assert.equal(humanDuration(ms), expected));
});
