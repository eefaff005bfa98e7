// Property tests of the whole protocol: random interleavings of operation controllers (1 to 3 IDs),
// cooperation controllers, the lifecycle controller (random PodTransitionRule verdicts) and the kubelet
// (Ready flips), every write admitted like an API server would. Invariants are checked on every stored
// state; then everyone cooperates and every lifecycle must end.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import type { Pod } from '../../src/api/kube.ts';
import {
  ID_DEFINING_WORDS,
  ID_LABEL_WORDS,
  SERVICE_AVAILABLE_LABEL,
  idLabelKey,
  isOperationPermissionKey,
  parseIdLabelKey,
  type IdLabelWord,
} from '../../src/api/protocol.ts';
import { isPodReady } from '../../src/lifecycle/pod.ts';
import { checkStoredState } from '../support/invariants.ts';
import type { LifecycleAdapter } from '../../src/sdk/operation.ts';
import { CONTROL_LABEL, AVAILABLE_CONDITIONS_ANNOTATION } from '../../src/api/protocol.ts';
import { expectedFinalizerKey, protectionFinalizer } from '../../src/sdk/cooperation.ts';
import { FakePodServer, type StoredState } from '../support/fake-pod-server.ts';
import { NAMESPACE, POD_NAME, World, serviceReadyStatus } from './actors.ts';

type Action =
  | { kind: 'begin' | 'operate' | 'undo' | 'restart'; op: number }
  | { kind: 'cooperate'; coop: number }
  | { kind: 'reconcile'; preCheck: boolean; postCheck: boolean }
  | { kind: 'kubelet'; containersReady: boolean };

const actionArb: fc.Arbitrary<Action> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ kind: fc.constantFrom('begin' as const, 'operate' as const), op: fc.nat(2) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constantFrom('undo' as const, 'restart' as const), op: fc.nat(2) }) },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('cooperate' as const), coop: fc.nat(1) }) },
  // Checks pass more often than not, so lifecycles get far before the cooperative phase.
  {
    weight: 8,
    arbitrary: fc.record({
      kind: fc.constant('reconcile' as const),
      preCheck: fc.boolean().chain((b) => (b ? fc.constant(true) : fc.boolean())),
      postCheck: fc.boolean().chain((b) => (b ? fc.constant(true) : fc.boolean())),
    }),
  },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('kubelet' as const), containersReady: fc.boolean().chain((b) => (b ? fc.constant(true) : fc.boolean())) }) },
);

interface Scenario {
  ops: { type: string; allowMultiType: boolean }[];
  coops: number;
  prefillExpectedFinalizers: boolean;
  actions: Action[];
}

const scenarioArb: fc.Arbitrary<Scenario> = fc.record({
  ops: fc.array(
    fc.record({ type: fc.constantFrom('update', 'restart', 'scale-in'), allowMultiType: fc.boolean() }),
    { minLength: 1, maxLength: 3 },
  ),
  coops: fc.integer({ min: 0, max: 2 }),
  prefillExpectedFinalizers: fc.boolean(),
  actions: fc.array(actionArb, { minLength: 10, maxLength: 150 }),
});

function protocolKeys(pod: Pod): string[] {
  return Object.keys(pod.metadata.labels ?? {}).filter((k) => isOperationPermissionKey(k) || parseIdLabelKey(k) !== undefined);
}

/** The expected finalizers (available-conditions annotation) missing from the pod, read without the code under test. */
function missingExpectedFinalizers(pod: Pod): string[] {
  const annotation = pod.metadata.annotations?.[AVAILABLE_CONDITIONS_ANNOTATION];
  if (annotation === undefined) return [];
  const expected = Object.values((JSON.parse(annotation) as { expectedFinalizers?: Record<string, string> }).expectedFinalizers ?? {});
  return expected.filter((finalizer) => !(pod.metadata.finalizers ?? []).includes(finalizer));
}

const lifecycleIds = (pod: Pod | undefined): Set<string> =>
  new Set(Object.keys(pod?.metadata.labels ?? {}).flatMap((k) => {
    const parsed = parseIdLabelKey(k);
    return parsed && ID_DEFINING_WORDS.includes(parsed.word) ? [parsed.id] : [];
  }));

/**
 * The invariants that must hold for every state the server stores. Besides the shared ones: a lifecycle
 * leaves the pod only through its own undo, or through final cleanup, which must wait until every
 * expected finalizer is back on the pod (else a cooperation controller's re-registration is skipped).
 */
function checkInvariants({ before, after }: StoredState, undoneId: string | undefined): void {
  checkStoredState(before, after);
  const remaining = lifecycleIds(after);
  const cleanedUp = [...lifecycleIds(before)].filter((id) => id !== undoneId && !remaining.has(id));
  if (cleanedUp.length > 0) {
    assert.deepEqual(missingExpectedFinalizers(after), [], `lifecycles ${cleanedUp.join(', ')} cleaned up while expected finalizers were missing`);
  }
}

async function run(scenario: Scenario): Promise<void> {
  const server = new FakePodServer();
  const ops: LifecycleAdapter[] = scenario.ops.map((o, i) => ({ id: `op-${i}`, type: o.type, allowMultiType: o.allowMultiType }));
  const coops = Array.from({ length: scenario.coops }, (_, i) => `lb-${i}`);
  const world = new World(server, ops, coops);

  const annotations: Record<string, string> = {};
  if (scenario.prefillExpectedFinalizers && coops.length > 0) {
    const entries = Object.fromEntries(coops.map((c) => [expectedFinalizerKey('Service', NAMESPACE, c), protectionFinalizer(c)]));
    annotations[AVAILABLE_CONDITIONS_ANNOTATION] = JSON.stringify({ expectedFinalizers: entries });
  }
  await server.create({
    metadata: { name: POD_NAME, namespace: NAMESPACE, labels: { [CONTROL_LABEL]: 'true' }, annotations },
    spec: { containers: [{ name: 'app', image: 'app:v1' }] },
    status: { phase: 'Running', conditions: [] },
  });

  let checked = 0;
  const checkNew = (): void => {
    for (; checked < server.history.length; checked++) checkInvariants(server.history[checked] as StoredState, world.undoWrites.get(checked));
  };
  const checkUndone = (): void => {
    for (const id of world.undone.splice(0)) {
      const labels = world.current().metadata.labels ?? {};
      for (const word of ID_LABEL_WORDS) assert.equal(labels[idLabelKey(word, id)], undefined, `undo left ${word}/${id}`);
    }
  };

  for (const action of scenario.actions) {
    switch (action.kind) {
      case 'begin':
      case 'operate':
      case 'undo': {
        const op = ops[action.op];
        if (op) await world[action.kind](op);
        break;
      }
      case 'restart':
        if (ops[action.op]) {
          const op = ops[action.op] as LifecycleAdapter;
          if (await world.undo(op)) {
            checkUndone();
            await world.begin(op);
          }
        }
        break;
      case 'cooperate':
        if (coops[action.coop]) await world.cooperate(coops[action.coop] as string);
        break;
      case 'reconcile':
        await world.reconcile({ PreCheck: action.preCheck, PostCheck: action.postCheck });
        break;
      case 'kubelet':
        await world.kubelet(action.containersReady);
        break;
    }
    checkNew();
    checkUndone();
  }

  // Everyone cooperates: every lifecycle must end, within a bounded number of rounds.
  const maxRounds = 60;
  let rounds = 0;
  for (let progressed = true; progressed; rounds++) {
    assert.ok(rounds < maxRounds, `no convergence after ${maxRounds} cooperative rounds: ${JSON.stringify(world.current().metadata.labels)}`);
    progressed = false;
    progressed = (await world.kubelet(true)) || progressed;
    progressed = (await world.reconcile({ PreCheck: true, PostCheck: true })) || progressed;
    for (const coop of coops) progressed = (await world.cooperate(coop)) || progressed;
    for (const op of ops) progressed = (await world.operate(op)) || progressed;
    checkNew();
  }

  const final = world.current();
  assert.deepEqual(protocolKeys(final), [], 'every lifecycle ends with no per-ID labels');
  assert.ok(final.metadata.labels?.[SERVICE_AVAILABLE_LABEL], 'the pod ends service-available');
  assert.equal(serviceReadyStatus(final), 'True');
  assert.ok(isPodReady(final));
  for (const coop of coops) assert.ok(final.metadata.finalizers?.includes(protectionFinalizer(coop)), `${coop} re-registered the pod`);
}

describe('PodOpsLifecycle protocol under random actors', () => {
  test('invariants hold on every write and every lifecycle ends when all cooperate', async () => {
    await fc.assert(fc.asyncProperty(scenarioArb, run), { numRuns: 1000 });
  });

  test('a single lifecycle with one cooperation controller takes the upstream label path', async () => {
    const server = new FakePodServer();
    const op: LifecycleAdapter = { id: 'upgrade', type: 'update', allowMultiType: false };
    const world = new World(server, [op], ['lb']);
    await server.create({
      metadata: { name: POD_NAME, namespace: NAMESPACE, labels: { [CONTROL_LABEL]: 'true' } },
      spec: { containers: [{ name: 'app', image: 'app:v1' }] },
      status: { phase: 'Running', conditions: [] },
    });
    const settle = async (): Promise<void> => {
      for (let progressed = true; progressed; ) {
        progressed = (await world.kubelet(true)) || (await world.reconcile({ PreCheck: true, PostCheck: true })) || (await world.cooperate('lb'));
      }
    };
    await settle();
    assert.ok(world.current().metadata.labels?.[SERVICE_AVAILABLE_LABEL]);
    await world.begin(op);
    await settle();
    await world.operate(op);
    await settle();

    const seen = server.history.map((s) => Object.keys(s.after.metadata.labels ?? {}).filter((k) => parseIdLabelKey(k)?.id === 'upgrade').map((k) => parseIdLabelKey(k)!.word).sort());
    const firstSeen = (word: IdLabelWord): number => seen.findIndex((words) => words.includes(word));
    const order: IdLabelWord[] = ['operating', 'pre-check', 'pre-checked', 'preparing', 'operate', 'operated', 'post-check', 'post-checked', 'completing'];
    const indexes = order.map(firstSeen);
    assert.ok(indexes.every((i) => i >= 0), `every family appears: ${JSON.stringify(order.filter((_, i) => indexes[i]! < 0))}`);
    for (let i = 1; i < indexes.length; i++) assert.ok(indexes[i]! >= indexes[i - 1]!, `${order[i]} after ${order[i - 1]}`);
    assert.deepEqual(protocolKeys(world.current()), []);
    assert.ok(world.current().metadata.labels?.[SERVICE_AVAILABLE_LABEL]);
  });
});
