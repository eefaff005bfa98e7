import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { podTransitionRuleCrd } from './podtransitionrule-crd.fixture.ts';
import {
  applyCustomResourceDefinitionDefaults,
  compareKubeAwareVersions,
  customResourceDefinitionStatus,
  prepareCustomResourceDefinitionForCreate,
  prepareCustomResourceDefinitionForUpdate,
  scaleSubresource,
  servedVersions,
  statusSubresourceEnabled,
  storageVersion,
  versionSchema,
} from './serving.ts';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const now = Date.parse('2024-03-01T12:00:00Z');

function twoVersions(): Json {
  return {
    metadata: { name: 'widgets.example.com' },
    spec: {
      group: 'example.com',
      names: { plural: 'widgets', kind: 'Widget', shortNames: ['wd'] },
      versions: [
        { name: 'v1beta1', served: true, storage: false, schema: { openAPIV3Schema: { type: 'object' } } },
        {
          name: 'v1',
          served: true,
          storage: true,
          schema: { openAPIV3Schema: { type: 'object', description: 'v1' } },
          subresources: { status: {}, scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas', labelSelectorPath: '.status.selector' } },
        },
        { name: 'v0', served: false, storage: false, schema: { openAPIV3Schema: { type: 'object' } } },
      ],
    },
  };
}

describe('serving helpers', () => {
  test('versions, storage, schema and subresources per version', () => {
    const crd = twoVersions();
    assert.deepEqual(servedVersions(crd), ['v1beta1', 'v1']);
    assert.equal(storageVersion(crd), 'v1');
    assert.deepEqual(versionSchema(crd, 'v1'), { type: 'object', description: 'v1' });
    assert.equal(statusSubresourceEnabled(crd, 'v1'), true);
    assert.equal(statusSubresourceEnabled(crd, 'v1beta1'), false);
    assert.deepEqual(scaleSubresource(crd, 'v1'), { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas', labelSelectorPath: '.status.selector' });
    assert.equal(scaleSubresource(crd, 'v1beta1'), undefined);
  });

  test('versions sort by Kubernetes priority', () => {
    assert.deepEqual(['v1alpha1', 'v2beta1', 'foo', 'v1', 'v2', 'v1beta2', 'bar'].sort(compareKubeAwareVersions), ['v2', 'v1', 'v2beta1', 'v1beta2', 'v1alpha1', 'bar', 'foo']);
  });

  test('v1 defaults: singular, listKind, conversion', () => {
    const crd = applyCustomResourceDefinitionDefaults(twoVersions()) as Json;
    assert.deepEqual(crd.spec.names, { plural: 'widgets', kind: 'Widget', shortNames: ['wd'], singular: 'widget', listKind: 'WidgetList' });
    assert.deepEqual(crd.spec.conversion, { strategy: 'None' });
  });

  test('create resets the status; update keeps it and records a new storage version', () => {
    const created = prepareCustomResourceDefinitionForCreate({ ...twoVersions(), status: { storedVersions: ['x'] } }) as Json;
    assert.deepEqual(created.status, { acceptedNames: { plural: '', kind: '' }, storedVersions: ['v1'] });
    const old = { ...twoVersions(), status: { storedVersions: ['v1beta1'], acceptedNames: { plural: 'widgets', kind: 'Widget' } } };
    const updated = prepareCustomResourceDefinitionForUpdate({ ...twoVersions(), status: {} }, old) as Json;
    assert.deepEqual(updated.status, { storedVersions: ['v1beta1', 'v1'], acceptedNames: { plural: 'widgets', kind: 'Widget' } });
  });
});

describe('customResourceDefinitionStatus', () => {
  test('an accepted CRD is Established with its names and stored version', () => {
    const crd = prepareCustomResourceDefinitionForCreate(applyCustomResourceDefinitionDefaults(podTransitionRuleCrd()));
    assert.deepEqual(customResourceDefinitionStatus(crd, now), {
      conditions: [
        { type: 'NamesAccepted', status: 'True', lastTransitionTime: '2024-03-01T12:00:00Z', reason: 'NoConflicts', message: 'no conflicts found' },
        { type: 'Established', status: 'True', lastTransitionTime: '2024-03-01T12:00:00Z', reason: 'InitialNamesAccepted', message: 'the initial names have been accepted' },
      ],
      acceptedNames: {
        plural: 'podtransitionrules',
        singular: 'podtransitionrule',
        shortNames: ['ptr'],
        kind: 'PodTransitionRule',
        listKind: 'PodTransitionRuleList',
        categories: ['kusionstack'],
      },
      storedVersions: ['v1alpha1'],
    });
  });

  test('an unchanged condition keeps its transition time', () => {
    const crd = prepareCustomResourceDefinitionForCreate(applyCustomResourceDefinitionDefaults(podTransitionRuleCrd())) as Json;
    crd.status = customResourceDefinitionStatus(crd, now);
    const later = customResourceDefinitionStatus(crd, now + 60_000) as Json;
    assert.deepEqual(
      later.conditions.map((c: Json) => c.lastTransitionTime),
      ['2024-03-01T12:00:00Z', '2024-03-01T12:00:00Z'],
    );
  });

  test('a plural already accepted by another CRD of the group is a conflict', () => {
    const other = applyCustomResourceDefinitionDefaults(twoVersions()) as Json;
    other.metadata.name = 'widgets.example.com';
    other.status = { acceptedNames: { plural: 'widgets', kind: 'Widget', shortNames: ['wd'] } };
    const clash = prepareCustomResourceDefinitionForCreate(applyCustomResourceDefinitionDefaults({ ...twoVersions(), metadata: { name: 'widgets2.example.com' } })) as Json;
    clash.spec.names = { plural: 'gizmos', singular: 'gizmo', kind: 'Gizmo', listKind: 'GizmoList', shortNames: ['wd'] };
    const status = customResourceDefinitionStatus(clash, now, [other]) as Json;
    assert.deepEqual(status.conditions, [
      { type: 'NamesAccepted', status: 'False', lastTransitionTime: '2024-03-01T12:00:00Z', reason: 'ShortNamesConflict', message: '"wd" is already in use' },
      { type: 'Established', status: 'False', lastTransitionTime: '2024-03-01T12:00:00Z', reason: 'NotAccepted', message: 'not all names are accepted' },
    ]);
    assert.deepEqual(status.acceptedNames, { plural: 'gizmos', singular: 'gizmo', kind: 'Gizmo', listKind: 'GizmoList' });
  });
});
