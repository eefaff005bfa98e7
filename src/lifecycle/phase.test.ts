// Phases and timelines are read off the labels (Kuperator's behaviour, docs/protocol.md); `podops inspect` and the
// lifecycle metrics show what these return.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { SERVICE_AVAILABLE_LABEL } from '../api/protocol.ts';
import { L, PERM } from '../../test/support/pods.ts';
import { parseLifecycles, type Lifecycle } from './parse.ts';
import { lifecyclePhase, lifecycleTimeline, phaseSince, phaseStartedBy, podPhase } from './phase.ts';

const lifecycleOf = (labels: Record<string, string>, id = 'a'): Lifecycle => {
  const lifecycle = parseLifecycles(labels).byId.get(id);
  assert.ok(lifecycle, `labels define lifecycle ${id}`);
  return lifecycle;
};

/** The labels of ID `id` in each phase, as the webhook and the lifecycle controller leave them. */
const inPhase = {
  PreCheck: (id: string) => ({ [L('operating', id)]: '10', [L('operation-type', id)]: 'update', [L('pre-check', id)]: '11' }),
  Preparing: (id: string) => ({ [L('operating', id)]: '10', [L('operation-type', id)]: 'update', [L('pre-checked', id)]: '12', [PERM('update')]: '12', [L('preparing', id)]: '13' }),
  Operating: (id: string) => ({ [L('operating', id)]: '10', [L('operation-type', id)]: 'update', [L('pre-checked', id)]: '12', [PERM('update')]: '12', [L('operate', id)]: '14' }),
  PostCheck: (id: string) => ({ [L('operated', id)]: '15', [L('done-operation-type', id)]: 'update', [L('post-check', id)]: '16' }),
  Completing: (id: string) => ({ [L('operated', id)]: '15', [L('done-operation-type', id)]: 'update', [L('post-checked', id)]: '17', [L('completing', id)]: '18' }),
};

describe('lifecyclePhase', () => {
  for (const [phase, labelsOf] of Object.entries(inPhase)) {
    test(`${phase}`, () => assert.equal(lifecyclePhase(lifecycleOf(labelsOf('a'))), phase));
  }

  test('pre-checked but not yet preparing is still PreCheck', () => {
    const labels = { [L('operating', 'a')]: '10', [L('operation-type', 'a')]: 'update', [L('pre-checked', 'a')]: '12', [PERM('update')]: '12' };
    assert.equal(lifecyclePhase(lifecycleOf(labels)), 'PreCheck');
  });

  test('operated and post-checked, before completing is added, is PostCheck', () => {
    const labels = { [L('operated', 'a')]: '15', [L('done-operation-type', 'a')]: 'update', [L('post-checked', 'a')]: '17' };
    assert.equal(lifecyclePhase(lifecycleOf(labels)), 'PostCheck');
  });
});

describe('podPhase', () => {
  const phaseOf = (labels: Record<string, string>) => podPhase(parseLifecycles(labels), labels);

  test('the pod is in the phase of its least advanced lifecycle, whatever the order of the labels', () => {
    assert.equal(phaseOf({ ...inPhase.Completing('a'), ...inPhase.Preparing('b') }), 'Preparing');
    assert.equal(phaseOf({ ...inPhase.Preparing('b'), ...inPhase.Completing('a') }), 'Preparing');
    assert.equal(phaseOf({ ...inPhase.Operating('a'), ...inPhase.PostCheck('b') }), 'Operating');
    assert.equal(phaseOf({ ...inPhase.Completing('a'), ...inPhase.PostCheck('b') }), 'PostCheck');
    assert.equal(phaseOf({ ...inPhase.Operating('b'), ...inPhase.PreCheck('a') }), 'PreCheck');
  });

  test('no lifecycle and service-available: ServiceAvailable', () => {
    assert.equal(phaseOf({ [SERVICE_AVAILABLE_LABEL]: '20' }), 'ServiceAvailable');
  });

  test('no lifecycle and not service-available: Completing, not yet back in service', () => {
    assert.equal(phaseOf({}), 'Completing');
    assert.equal(podPhase(parseLifecycles(undefined), undefined), 'Completing');
  });

  test('a lifecycle that has begun wins over a service-available label the webhook has not removed yet', () => {
    assert.equal(phaseOf({ [SERVICE_AVAILABLE_LABEL]: '9', ...inPhase.PreCheck('a') }), 'PreCheck');
  });

  test('labels of an ID that operating, operate and operated do not define are no lifecycle', () => {
    assert.equal(phaseOf({ [SERVICE_AVAILABLE_LABEL]: '9', [L('operation-type', 'a')]: 'update' }), 'ServiceAvailable');
  });
});

describe('lifecycleTimeline', () => {
  test('entries are ordered by their nanosecond values, not by protocol order', () => {
    const labels = {
      [L('operated', 'a')]: '1717505885197871300',
      [L('done-operation-type', 'a')]: 'update',
      [L('post-checked', 'a')]: '1717505885197871100',
      [L('completing', 'a')]: '1717505885197871200',
    };
    assert.deepEqual(
      lifecycleTimeline(lifecycleOf(labels), labels).map((e) => e.event),
      ['post-checked', 'completing', 'operated'],
    );
  });

  test('values one nanosecond apart keep their order (no float rounding)', () => {
    const labels = { [L('operating', 'a')]: '1717505885197871196', [L('pre-check', 'a')]: '1717505885197871195' };
    assert.deepEqual(lifecycleTimeline(lifecycleOf(labels), labels), [
      { event: 'pre-check', at: 1717505885197871195n },
      { event: 'operating', at: 1717505885197871196n },
    ]);
  });

  test('values of different lengths compare as numbers, not as strings', () => {
    const labels = { [L('operating', 'a')]: '999', [L('pre-check', 'a')]: '1000' };
    assert.deepEqual(lifecycleTimeline(lifecycleOf(labels), labels).map((e) => e.event), ['operating', 'pre-check']);
  });

  test('the operation permission of the lifecycle\'s type is on its timeline; types and garbage values are not', () => {
    const labels = { ...inPhase.Operating('a'), [L('preparing', 'a')]: 'not-a-time', [PERM('other')]: '1' };
    assert.deepEqual(lifecycleTimeline(lifecycleOf(labels), labels), [
      { event: 'operating', at: 10n },
      { event: 'pre-checked', at: 12n },
      { event: 'operation-permission', at: 12n },
      { event: 'operate', at: 14n },
    ]);
  });
});

describe('phaseSince', () => {
  test('the time of the label that opened the current phase', () => {
    assert.equal(phaseSince(lifecycleOf(inPhase.Preparing('a'))), 13n);
    assert.equal(phaseSince(lifecycleOf(inPhase.Completing('a'))), 18n);
  });

  test('PreCheck falls back to operating once pre-check is gone (pre-checked, not yet preparing)', () => {
    const labels = { [L('operating', 'a')]: '10', [L('operation-type', 'a')]: 'update', [L('pre-checked', 'a')]: '12', [PERM('update')]: '12' };
    assert.equal(phaseSince(lifecycleOf(labels)), 10n);
  });
});

describe('phaseStartedBy', () => {
  test("each timed family marks the start of the phase a lifecycle is in once it appears; the checks' results start the next phase", () => {
    const families = ['operating', 'pre-check', 'pre-checked', 'preparing', 'operate', 'operated', 'post-check', 'post-checked', 'completing'];
    assert.deepEqual(
      families.map((family) => phaseStartedBy(family)),
      ['PreCheck', 'PreCheck', 'Preparing', 'Preparing', 'Operating', 'PostCheck', 'PostCheck', 'Completing', 'Completing'],
    );
    for (const family of ['preparing', 'operate', 'operated', 'completing'] as const) {
      assert.equal(lifecyclePhase(lifecycleOf({ [L('operating', 'a')]: '1', [L(family, 'a')]: '1' })), phaseStartedBy(family), family);
    }
    assert.equal(phaseStartedBy('operation-type'), undefined);
    assert.equal(phaseStartedBy('operation-permission'), undefined);
  });
});
