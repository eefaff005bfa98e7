import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { idLabelKey, type IdLabelWord } from '../api/protocol.ts';
import { phaseTransitions } from './transitions.ts';

const T0 = 1_700_000_000_000_000_000n;
const at = (seconds: number): string => String(T0 + BigInt(seconds) * 1_000_000_000n);
const labels = (id: string, words: Partial<Record<IdLabelWord, string>>): Record<string, string> =>
  Object.fromEntries(Object.entries(words).map(([word, value]) => [idLabelKey(word as IdLabelWord, id), value]));

const begun = labels('up', { operating: at(0), 'operation-type': 'update', 'pre-check': at(0) });
const preparing = labels('up', { operating: at(0), 'operation-type': 'update', 'pre-checked': at(3), preparing: at(3) });
const operating = labels('up', { operating: at(0), 'operation-type': 'update', 'pre-checked': at(3), preparing: at(3), operate: at(10) });
const completing = labels('up', { operating: at(0), 'done-operation-type': 'update', operated: at(40), 'post-checked': at(41), completing: at(42) });

describe('phaseTransitions', () => {
  test('a lifecycle that begins enters PreCheck from nowhere', () => {
    assert.deepEqual(phaseTransitions({}, begun, T0), [{ id: 'up', type: 'update', from: undefined, to: 'PreCheck', seconds: undefined }]);
  });

  test('the time in the phase left runs between the labels that start each phase, not until it is observed', () => {
    assert.deepEqual(phaseTransitions(begun, preparing, T0 + 99_000_000_000n), [{ id: 'up', type: 'update', from: 'PreCheck', to: 'Preparing', seconds: 3 }]);
    assert.deepEqual(phaseTransitions(preparing, operating, T0 + 99_000_000_000n), [{ id: 'up', type: 'update', from: 'Preparing', to: 'Operating', seconds: 7 }]);
  });

  test('a skipped phase is one transition: Operating straight to Completing', () => {
    assert.deepEqual(phaseTransitions(operating, completing, T0), [{ id: 'up', type: 'update', from: 'Operating', to: 'Completing', seconds: 32 }]);
  });

  test('labels leaving the pod: Done from Completing, measured until now; Undone from any other phase', () => {
    assert.deepEqual(phaseTransitions(completing, {}, T0 + 45_500_000_000n), [{ id: 'up', type: 'update', from: 'Completing', to: 'Done', seconds: 3.5 }]);
    assert.deepEqual(phaseTransitions(preparing, {}, T0 + 5_000_000_000n), [{ id: 'up', type: 'update', from: 'Preparing', to: 'Undone', seconds: 2 }]);
  });

  test('no change, or an unrelated label: nothing; two lifecycles are reported independently', () => {
    assert.deepEqual(phaseTransitions(preparing, { ...preparing, app: 'web' }, T0), []);
    const other = labels('scale', { operating: at(5), 'operation-type': 'delete', 'pre-check': at(5) });
    assert.deepEqual(phaseTransitions({ ...preparing }, { ...operating, ...other }, T0 + 20_000_000_000n), [
      { id: 'up', type: 'update', from: 'Preparing', to: 'Operating', seconds: 7 },
      { id: 'scale', type: 'delete', from: undefined, to: 'PreCheck', seconds: undefined },
    ]);
  });

  test('labels no lifecycle can be read from give no transitions rather than an error', () => {
    assert.deepEqual(phaseTransitions({ 'operating.podopslifecycle.kusionstack.io/': 'x' }, begun, T0), []);
  });
});
