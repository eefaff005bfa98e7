// Property tests of src/rollout: a workload of each kind rolled out under random interleavings of its native
// controller, its pods becoming available, hook Jobs finishing and podops reconciling (world.test-support.ts),
// with random replicas (0 to 30), hook points, user strategies and Job outcomes. Checked at every reconcile and
// after every step: holds are monotone within a rollout; a point is reached before any Job of its hooks, and
// points are taken in order; no Job name twice; a Job is deleted only as its retention says, once the status
// remembers how it ended; no more pods of the new revision than the hold allows (for a Deployment: when podops
// sees each scale-up), nor than the user's own pause or partition allows, nor, after an Abort failure, than
// there were. Then everyone cooperates until nothing moves: with Ignore the rollout is Complete with the user's
// settings back byte for byte; with an Abort failure it is Failed, held at the failed point.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { RL_ROLLOUT_ANNOTATION, RL_USER_SETTINGS_ANNOTATION, type HookFailurePolicy, type HookRetainPolicy, type LifecycleHook, type WorkloadKind } from '../api/rolloutlifecycle.ts';
import { HOLD_FIELDS, templateHash, userDrivesUpdates, type Hold, type Json, type JsonObject, type Settings } from './workload.ts';
import { World, type Crash, type Reconcile } from './world.test-support.ts';

type Action =
  | { kind: 'native' }
  | { kind: 'available'; pick: number }
  | { kind: 'job'; pick: number }
  | { kind: 'reconcile' }
  | { kind: 'delete'; pick: number }
  | { kind: 'crash'; where: Crash }
  | { kind: 'rollover'; back: boolean; seen: boolean };

interface HookSpec {
  point: number | string;
  retain: HookRetainPolicy;
  succeeds: boolean;
}

interface Scenario {
  kind: WorkloadKind;
  replicas: number;
  user: Settings;
  hooks: HookSpec[];
  failurePolicy: HookFailurePolicy;
  /** Deployment: podops sees each scale-up of the new ReplicaSet before any of its pods is available. */
  prompt: boolean;
  /** podops is killed in the middle of some reconciles: a plan may be acted on again (same Job names, same events). */
  crashes: boolean;
  actions: Action[];
}

interface ScenarioOptions {
  /** A template change in the middle: one the webhook sees, one it may not see (the workload was not labelled then), or none. */
  rollover?: 'seen' | 'maybe-unseen';
  /** podops killed in the middle of reconciles after the rollover (the first rollout's status is written by then). */
  crashes?: boolean;
}

const zero = (value: Json) => value === 0 || value === '0%';
const intOrPercent = fc.oneof(fc.integer({ min: 0, max: 3 }), fc.constantFrom('0%', '10%', '25%', '50%', '100%'));

function userArb(kind: WorkloadKind, replicas: number): fc.Arbitrary<Settings> {
  switch (kind) {
    case 'Deployment': {
      const strategy = fc.oneof(
        fc.constant<Settings>({}),
        fc.constant<Settings>({ strategy: { type: 'Recreate' } }),
        fc.constant<Settings>({ strategy: { type: 'RollingUpdate' } }),
        fc
          .record({ maxSurge: intOrPercent, maxUnavailable: intOrPercent })
          .filter((r) => !(zero(r.maxSurge) && zero(r.maxUnavailable)))
          .map((rollingUpdate): Settings => ({ strategy: { type: 'RollingUpdate', rollingUpdate } })),
      );
      // A user's own pause, now and then: podops must keep it.
      return fc.tuple(strategy, fc.constantFrom(undefined, undefined, undefined, undefined, false, true)).map(([s, paused]) => (paused === undefined ? s : { paused, ...s }));
    }
    case 'StatefulSet':
      return fc.oneof(
        fc.constant<Settings>({}),
        fc.constant<Settings>({ updateStrategy: { type: 'RollingUpdate' } }),
        fc.constant<Settings>({ updateStrategy: { type: 'OnDelete' } }),
        fc.integer({ min: 0, max: replicas + 1 }).map((partition): Settings => ({ updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition, maxUnavailable: 1 } } })),
      );
    case 'DaemonSet':
      return fc.oneof(
        fc.constant<Settings>({}),
        fc.constant<Settings>({ updateStrategy: { type: 'OnDelete' } }),
        fc.oneof(fc.integer({ min: 1, max: 3 }), fc.constantFrom('10%', '30%', '50%')).map((maxUnavailable): Settings => ({ updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable, maxSurge: 0 } } })),
      );
  }
}

const actionArb: fc.Arbitrary<Action> = fc.oneof(
  { weight: 5, arbitrary: fc.constant({ kind: 'native' as const }) },
  { weight: 5, arbitrary: fc.record({ kind: fc.constant('available' as const), pick: fc.nat(40) }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('job' as const), pick: fc.nat(8) }) },
  { weight: 5, arbitrary: fc.constant({ kind: 'reconcile' as const }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('delete' as const), pick: fc.nat(40) }) },
);

function scenarioArb(kind: WorkloadKind, failurePolicy: HookFailurePolicy, { rollover, crashes = false }: ScenarioOptions = {}): fc.Arbitrary<Scenario> {
  const actions = crashes ? fc.oneof({ weight: 6, arbitrary: actionArb }, { weight: 1, arbitrary: fc.record({ kind: fc.constant('crash' as const), where: fc.constantFrom<Crash>('before-hold', 'before-status') }) }) : actionArb;
  const seen = rollover === 'maybe-unseen' ? fc.boolean() : fc.constant(true);
  return fc.integer({ min: 0, max: 30 }).chain((replicas) =>
    fc.record({
      kind: fc.constant(kind),
      replicas: fc.constant(replicas),
      user: userArb(kind, replicas),
      hooks: fc.array(
        fc.record({
          point: fc.oneof(fc.integer({ min: 0, max: replicas + 2 }), fc.constantFrom('0%', '1%', '25%', '33%', '50%', '75%', '99%', '100%')),
          retain: fc.constantFrom<HookRetainPolicy>('Always', 'OnFailure', 'Never'),
          // Abort: mostly successes, so rollouts get somewhere before one fails.
          succeeds: failurePolicy === 'Abort' ? fc.oneof({ weight: 4, arbitrary: fc.constant(true) }, { weight: 1, arbitrary: fc.constant(false) }) : fc.boolean(),
        }),
        { minLength: 1, maxLength: 4 },
      ),
      failurePolicy: fc.constant(failurePolicy),
      prompt: fc.boolean(),
      crashes: fc.constant(crashes),
      actions: rollover
        ? fc.tuple(fc.array(actionArb, { maxLength: 80 }), fc.boolean(), seen, fc.array(actions, { maxLength: 80 })).map(([a, back, sawIt, b]) => [...a, { kind: 'rollover' as const, back, seen: sawIt }, ...b])
        : fc.array(actions, { maxLength: 150 }),
    }),
  );
}

const level = (hold: Hold): number => (hold.type === 'frozen' ? 0 : hold.type === 'step' ? hold.count : Infinity);

/** The invariants, with what they need to remember of the run. */
class Checker {
  readonly world: World;
  readonly scenario: Scenario;
  /** The rollout under way: its template hash, and whether it goes back to pods that exist (a rollback). */
  hash = '';
  rollback = false;
  /** The count of pods the last applied hold lets reach the new revision (frozen: 0). */
  allowed = 0;
  /** Pods already on their way to the new template when it was written (a DaemonSet's evicted pods come back with it). */
  baseline = 0;
  /** Per rollout: the level of the last hold planned (frozen 0, a step its count, release Infinity). */
  readonly levels = new Map<string, number>();
  readonly created = new Set<string>();
  /** Per rollout: the Jobs created, in order. */
  readonly runs = new Map<string, { hook: string; job: string; point: number }[]>();
  /** Per rollout and hook, its Job (the property test retries nothing: one Job per hook and rollout). */
  readonly jobOfHook = new Map<string, string>();
  /** The webhook did not see the template change, and podops has not held the workload for it yet. */
  unseen = false;
  /** Deployment: the largest step podops let it take in this rollout (the maxSurge, or maxUnavailable without surge, it set). */
  largestStep = 0;
  readonly events = new Map<string, string[]>();
  aborted: { hash: string; point: number; inFlight: number } | undefined;
  user: Settings;

  constructor(world: World, scenario: Scenario) {
    this.world = world;
    this.scenario = scenario;
    this.user = structuredClone(scenario.user);
  }

  retain(hook: string): HookRetainPolicy {
    return this.scenario.hooks[Number(hook.slice(1))]?.retain ?? 'Always';
  }

  succeeds = (hook: string): boolean => this.scenario.hooks[Number(hook.slice(1))]?.succeeds ?? true;

  get userDrives(): boolean {
    return userDrivesUpdates(this.world.kind, this.user);
  }

  started(rollback: boolean, seen = true): void {
    this.hash = templateHash(this.world.spec.template as Json);
    this.rollback = rollback;
    // Unseen, nothing holds the change until podops' first reconcile sees it.
    this.unseen = !seen;
    this.allowed = seen ? 0 : Infinity;
    this.baseline = this.inFlight();
    this.aborted = undefined;
    this.largestStep = 0;
  }

  /** Pods that run the new template, or will once the one they replace is gone. */
  inFlight(): number {
    const w = this.world;
    if (w.kind === 'Deployment') return w.sets.find((rs) => rs.template === w.target)?.replicas ?? 0;
    if (w.kind === 'StatefulSet') return w.pods.filter((p) => (p.terminating ? w.statefulSetPodTemplate(p.ordinal) : p.template) === w.target).length;
    return w.pods.filter((p) => p.terminating || p.template === w.target).length;
  }

  newAvailable(): number {
    return this.world.pods.filter((p) => p.template === this.world.target && p.ready && !p.terminating).length;
  }

  complete(): boolean {
    const live = this.world.pods.filter((p) => !p.terminating);
    return live.length === this.world.replicas && live.every((p) => p.template === this.world.target && p.ready);
  }

  /**
   * A Deployment stops exactly at a point only when podops sees each scale-up of the new ReplicaSet before its
   * pods are available (else the next scale-up, or a paused Deployment filling itself up to its replicas after
   * an old ReplicaSet shrank, goes past the point). A rollback's ReplicaSet has its pods already, and may be
   * the one a paused Deployment scales when no ReplicaSet has pods.
   */
  get podopsSeesScaleUps(): boolean {
    return !this.rollback && (this.world.kind !== 'Deployment' || this.scenario.prompt);
  }

  /**
   * A Deployment podops may be late for can pass a point (see podopsSeesScaleUps), but only with pods that are
   * available: while podops' hold is on it, its new ReplicaSet never has more pods not yet available than the
   * largest step podops set (docs/rollout-hooks.md, "Exactness"). Not with the user's own Recreate, which podops
   * does not step, nor once the user's settings are back (a release, with the workload stamped or not yet).
   */
  get boundedOvershoot(): boolean {
    const strategy = (this.user.strategy ?? {}) as JsonObject;
    return this.world.kind === 'Deployment' && this.world.held && this.allowed !== Infinity && !this.rollback && strategy.type !== 'Recreate';
  }

  /** Holds are exact (no pod past the point held at) but for a Recreate Deployment. */
  get exact(): boolean {
    if (!this.podopsSeesScaleUps || this.userDrives || !this.world.held) return false;
    return (this.user.strategy as JsonObject | undefined)?.type !== 'Recreate';
  }

  /** Before podops acts on a plan. */
  plan = ({ plan, before }: Reconcile): void => {
    const { world } = this;
    const rollout = plan.rollout;
    assert.ok(rollout, 'a rollout is seen once the template changed');
    assert.equal(rollout.templateHash, this.hash, 'the rollout is the current template');
    assert.ok(plan.hold, 'a rollout has a hold');

    const last = this.levels.get(this.hash) ?? 0;
    assert.ok(level(plan.hold) >= last, `holds are monotone within a rollout: ${JSON.stringify(plan.hold)} after ${last}`);
    this.levels.set(this.hash, level(plan.hold));

    const run = this.runs.get(this.hash) ?? [];
    this.runs.set(this.hash, run);
    for (const action of plan.createJobs) {
      // After a crash, a plan acted on again creates the same Job again (the API server answers AlreadyExists).
      assert.ok(!this.created.has(action.name) || this.scenario.crashes, `Job ${action.name} created twice`);
      this.created.add(action.name);
      const first = this.jobOfHook.get(`${this.hash}/${action.hook}`);
      assert.ok(first === undefined || first === action.name, `hook ${action.hook} got a second Job in one rollout: ${action.name} after ${first}`);
      this.jobOfHook.set(`${this.hash}/${action.hook}`, action.name);
      const final = action.point >= world.replicas;
      assert.ok(final ? this.complete() : this.newAvailable() >= action.point, `point ${action.point} reached (${this.newAvailable()} new available of ${world.replicas}) before Job ${action.name}`);
      assert.ok(action.point >= (run.at(-1)?.point ?? 0), `Jobs in point order: ${action.name} at ${action.point} after ${JSON.stringify(run.at(-1))}`);
      for (const point of rollout.points.filter((p) => p.count < action.point)) {
        for (const hook of point.hooks) {
          const earlier = run.find((r) => r.hook === hook);
          assert.ok(earlier, `point ${point.count} skipped: hook ${hook} has no Job before ${action.name}`);
          const job = world.jobs.get(earlier.job);
          assert.ok(!job || job.phase !== 'Active', `hook ${hook} of point ${point.count} still running when ${action.name} starts`);
          if (this.scenario.failurePolicy === 'Abort') assert.ok(this.succeeds(hook), `hook ${hook} failed with Abort, yet ${action.name} starts`);
        }
      }
      run.push({ hook: action.hook, job: action.name, point: action.point });
    }

    for (const name of plan.deleteJobs) {
      const job = world.jobs.get(name);
      assert.ok(job, `deletes Job ${name} it did not see`);
      const policy = this.retain(job.hook);
      assert.notEqual(policy, 'Always', `Job ${name} (retainPolicy Always) deleted`);
      if (job.phase === 'Active') {
        assert.equal(plan.hooks.find((h) => h.job === name)?.phase, 'Cancelled', `running Job ${name} deleted without being cancelled`);
      } else {
        assert.equal(before.hooks?.find((h) => h.job === name)?.phase, job.phase, `Job ${name} deleted before the status remembered it ${job.phase}`);
        if (policy === 'OnFailure') assert.equal(job.phase, 'Succeeded', `failed Job ${name} (retainPolicy OnFailure) deleted`);
      }
    }
    for (const name of plan.suspendJobs) {
      assert.equal(this.retain(world.jobs.get(name)?.hook ?? ''), 'Always', `Job ${name} suspended rather than deleted`);
      assert.equal(plan.hooks.find((h) => h.job === name)?.phase, 'Cancelled', `Job ${name} suspended without being cancelled`);
    }

    const events = this.events.get(this.hash) ?? [];
    this.events.set(this.hash, events);
    for (const event of plan.events.filter((e) => e.reason !== 'RolloutCancelled')) {
      const key = `${event.reason} ${event.reason === 'PointReached' ? event.message.replace(/ \(.*$/, '') : event.message}`;
      assert.ok(!events.includes(key) || this.scenario.crashes, `event twice: ${key}`);
      events.push(key);
    }
  };

  /** After podops acted on a plan. */
  applied({ plan }: Reconcile): void {
    if (!plan.hold) return;
    this.allowed = level(plan.hold);
    const strategy = (this.world.spec.strategy ?? {}) as JsonObject;
    const step = (strategy.rollingUpdate ?? {}) as JsonObject;
    if (this.world.kind === 'Deployment' && plan.hold.type === 'step' && this.world.spec.paused === false && strategy.type === 'RollingUpdate') {
      this.largestStep = Math.max(this.largestStep, Number(step.maxSurge ?? 0) || Number(step.maxUnavailable ?? 0));
    }
    // What moved before podops first held an unseen change is not the hold's doing.
    if (this.unseen) this.baseline = Math.max(this.baseline, this.inFlight());
    this.unseen = false;
  }

  /** The most pods of the new revision the user's own settings allow: their pause holds all, their partition some. */
  userAllows(): number {
    if (this.userDrives) return Infinity;
    if (this.user.paused === true) return 0;
    const strategy = (this.user.updateStrategy ?? {}) as JsonObject;
    const partition = ((strategy.rollingUpdate ?? {}) as JsonObject).partition;
    return this.world.kind === 'StatefulSet' && typeof partition === 'number' ? Math.max(0, this.world.replicas - partition) : Infinity;
  }

  /** After every step. */
  state(): void {
    const inFlight = this.inFlight();
    if (!this.rollback) assert.ok(inFlight <= Math.max(this.userAllows(), this.baseline), `${inFlight} pods of the new revision, the user's own settings allow ${this.userAllows()}`);
    if (this.exact) assert.ok(inFlight <= Math.max(this.allowed, this.baseline), `${inFlight} pods of the new revision, the hold allows ${this.allowed}`);
    if (this.boundedOvershoot) {
      assert.ok(inFlight <= Math.max(this.newAvailable() + this.largestStep, this.baseline), `${inFlight} new pods, ${this.newAvailable()} available, and podops' largest step was ${this.largestStep}`);
    }
    if (this.aborted?.hash === this.hash && !this.userDrives && this.podopsSeesScaleUps) {
      assert.ok(inFlight <= Math.max(this.aborted.point, this.aborted.inFlight), `${inFlight} pods of the new revision after a hook failed at point ${this.aborted.point}`);
    }
  }

  jobFinished(name: string): void {
    const job = this.world.jobs.get(name);
    const record = this.world.status.hooks?.find((h) => h.job === name);
    if (job?.phase === 'Failed' && this.scenario.failurePolicy === 'Abort' && record?.templateHash === this.hash && !this.aborted) {
      this.aborted = { hash: this.hash, point: record.point, inFlight: this.inFlight() };
    }
  }
}

function run(scenario: Scenario): void {
  const hooks: LifecycleHook[] = scenario.hooks.map((h, i) => ({
    name: `h${i}`,
    trigger: { type: 'ProgressAvailable', progressAvailableParams: { progressPoint: h.point } },
    failurePolicy: scenario.failurePolicy,
    retainPolicy: h.retain,
    jobSpec: { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'hook', image: 'hook:1' }] } } },
  }));
  const world = new World(scenario.kind, scenario.replicas, scenario.user, hooks);
  const check = new Checker(world, scenario);
  const reconcile = (): void => {
    check.applied(world.reconcile(check.plan));
    check.state();
  };
  const native = (): void => {
    const newReplicas = () => world.sets.find((rs) => rs.template === world.target)?.replicas ?? 0;
    const before = newReplicas();
    const paused = world.spec.paused === true;
    world.native();
    if (paused && check.podopsSeesScaleUps) assert.ok(newReplicas() <= before, `a paused Deployment's new ReplicaSet grew from ${before} to ${newReplicas()}`);
    check.state();
    if (scenario.prompt && newReplicas() > before) reconcile();
  };

  world.changeTemplate(1);
  check.started(false);
  check.state();
  for (const action of scenario.actions) {
    switch (action.kind) {
      case 'native':
        native();
        break;
      case 'available':
        world.podAvailable(action.pick);
        break;
      case 'job': {
        const name = world.finishJob(action.pick, check.succeeds);
        if (name) check.jobFinished(name);
        break;
      }
      case 'reconcile':
        reconcile();
        break;
      case 'delete':
        // Only OnDelete waits for someone to delete pods: elsewhere a deletion would move a pod past any hold.
        if (check.userDrives) world.deletePod(action.pick);
        break;
      case 'crash':
        // Killed before it wrote the hold: the hold the last full reconcile wrote still applies.
        world.reconcile(check.plan, action.where);
        check.state();
        break;
      case 'rollover':
        world.changeTemplate(action.back ? 0 : 2, action.seen);
        check.started(action.back, action.seen);
        break;
    }
    check.state();
  }

  // Everyone cooperates until nothing moves; the user lowers their own partition or resumes their own pause
  // when that is what the rollout waits for.
  const snapshot = () => JSON.stringify([world.pods, world.sets, world.spec, world.annotations, [...world.jobs], world.status, world.revisions]);
  const settle = (): void => {
    for (let round = 0; ; round++) {
      assert.ok(round < 400, `no end after ${round} rounds: ${JSON.stringify(world.status.rollout)}`);
      const before = snapshot();
      native();
      while (world.podAvailable(0)) check.state();
      for (let name = world.finishJob(0, check.succeeds); name; name = world.finishJob(0, check.succeeds)) check.jobFinished(name);
      if (check.userDrives) world.deletePod(0);
      check.state();
      reconcile();
      if (snapshot() === before) return;
    }
  };
  settle();
  const strategy = (check.user.updateStrategy ?? {}) as JsonObject;
  const partition = ((strategy.rollingUpdate ?? {}) as JsonObject).partition;
  if (world.status.rollout?.phase !== 'Complete' && !check.aborted && (check.user.paused === true || (typeof partition === 'number' && partition > 0))) {
    const mine: Settings = check.user.paused === true ? { ...check.user, paused: false } : { updateStrategy: { ...strategy, rollingUpdate: { ...(strategy.rollingUpdate as JsonObject), partition: 0 } } };
    const field = check.user.paused === true ? 'paused' : 'updateStrategy';
    world.userWrite((spec) => {
      spec[field] = structuredClone(mine[field] as Json);
    });
    check.user = { ...check.user, [field]: mine[field] };
    check.state();
    settle();
  }

  const rollout = world.status.rollout;
  assert.ok(rollout);
  const records = (world.status.hooks ?? []).filter((h) => h.templateHash === check.hash);
  if (check.aborted) {
    assert.equal(rollout.phase, 'Failed', 'an Abort failure holds the rollout');
    assert.equal(world.status.conditions?.find((c) => c.type === 'Failed')?.status, 'True');
    assert.ok(records.some((h) => h.phase === 'Failed' && h.point === check.aborted?.point));
    assert.ok(!records.some((h) => h.point > (check.aborted?.point ?? 0) && h.phase !== 'Pending'), 'no hook past the failed point ran');
    return;
  }
  assert.equal(rollout.phase, 'Complete', `the rollout ends complete: ${rollout.message}`);
  assert.equal(rollout.pointReached, `${rollout.points.length}/${rollout.points.length}`);
  assert.ok(check.complete(), 'every pod runs the new template and is available');
  assert.deepEqual(
    records.map((h) => [h.name, h.phase]),
    records.map((h) => [h.name, check.succeeds(h.name) ? 'Succeeded' : 'Failed']),
  );
  // The user's settings back, byte for byte, and podops' annotations gone.
  assert.equal(world.annotations?.[RL_USER_SETTINGS_ANNOTATION], undefined);
  assert.equal(world.annotations?.[RL_ROLLOUT_ANNOTATION], undefined);
  for (const field of HOLD_FIELDS[scenario.kind]) assert.equal(JSON.stringify(world.spec[field]), JSON.stringify(check.user[field]), `${field} restored`);
  // Retention, once the status remembers how every Job ended.
  for (const record of records) {
    const policy = check.retain(record.name);
    const kept = policy === 'Always' || (policy === 'OnFailure' && record.phase === 'Failed');
    assert.equal(world.jobs.has(record.job), kept, `Job ${record.job} (${record.phase}, retainPolicy ${policy}) ${kept ? 'kept' : 'deleted'}`);
  }
  // Nothing of an earlier rollout still runs, and its finished Jobs had their retention too.
  for (const [name, job] of world.jobs) {
    assert.ok(job.phase !== 'Active' || job.suspended || records.some((h) => h.job === name), `Job ${name} of a cancelled rollout still runs`);
    const policy = check.retain(job.hook);
    assert.ok(policy === 'Always' || (policy === 'OnFailure' && job.phase !== 'Succeeded'), `Job ${name} (${job.phase}, retainPolicy ${policy}) left behind`);
  }
  if (scenario.crashes) return;
  const events = check.events.get(check.hash) ?? [];
  const count = (reason: string) => events.filter((e) => e.startsWith(`${reason} `)).length;
  assert.deepEqual(
    ['RolloutStarted', 'PointReached', 'HookStarted', 'RolloutComplete'].map(count),
    [1, rollout.points.length, records.length, 1],
  );
}

// Each CI run draws new seeds: breadth accumulates across runs, so one run stays short.
const RUNS = 60;

describe('rollouts under random interleavings', () => {
  for (const kind of ['Deployment', 'StatefulSet', 'DaemonSet'] as const) {
    test(`${kind}: failurePolicy Ignore, every rollout completes with the user's settings back`, () => {
      fc.assert(fc.property(scenarioArb(kind, 'Ignore'), run), { numRuns: RUNS });
    });

    test(`${kind}: failurePolicy Abort, no pod moves past a failed point`, () => {
      fc.assert(fc.property(scenarioArb(kind, 'Abort'), run), { numRuns: RUNS });
    });

    test(`${kind}: a rollover or a rollback in the middle`, () => {
      fc.assert(fc.property(scenarioArb(kind, 'Ignore', { rollover: 'seen' }), run), { numRuns: RUNS });
    });

    test(`${kind}: a rollover the webhook may not have seen, podops killed mid-reconcile now and then: never a second Job for a hook`, () => {
      fc.assert(fc.property(scenarioArb(kind, 'Ignore', { rollover: 'maybe-unseen', crashes: true }), run), { numRuns: RUNS });
    });
  }
});
