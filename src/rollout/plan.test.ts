// planRollout, driven step by step as the controller drives it: each plan's status is fed back, the Jobs it
// creates appear (running) in the next observation, those it deletes disappear.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Condition, HookRecord, LifecycleHook, RolloutRecord } from '../api/rolloutlifecycle.ts';
import { planRollout, type JobObservation, type Observation, type Plan } from './plan.ts';
import type { RolloutStamp } from './stash.ts';

const H1 = 'aaaaaaaaaa';
const H2 = 'bbbbbbbbbb';
const H3 = 'cccccccccc';
const START = Date.parse('2025-03-01T10:00:00Z');
const at = (second: number) => new Date(START + second * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
/** A rollout's id names its Jobs; here it is the template's hash unless the test returns to a template. */
const stampOf = (templateHash: string, type: RolloutStamp['type'] = 'ROLLOUT', id = templateHash): RolloutStamp => ({ id, templateHash, type, from: 'web-v1', changedAt: at(0) });

const hook = (name: string, progressPoint: number | string, extra: Partial<LifecycleHook> = {}): LifecycleHook => ({
  name,
  trigger: { type: 'ProgressAvailable', progressAvailableParams: { progressPoint } },
  jobSpec: { template: { spec: { restartPolicy: 'Never', containers: [{ name: name, image: 'hook:1' }] } } },
  ...extra,
});
const standard = (extra: Partial<LifecycleHook> = {}) => [hook('pre', 0, extra), hook('smoke', '50%', extra), hook('notify', '100%', extra)];

/** A RolloutLifecycle's status and its hook Jobs, planned on as the controller does. */
class Driver {
  rollout: RolloutRecord | undefined;
  hookRecords: HookRecord[] | undefined;
  conditions: Condition[] | undefined;
  readonly jobs = new Map<string, JobObservation>();
  readonly created: string[] = [];
  readonly events: string[] = [];
  observation: Observation;
  second = 0;

  hooks: LifecycleHook[];

  constructor(hooks: LifecycleHook[], observation: Partial<Observation> = {}) {
    this.hooks = hooks;
    this.observation = {
      templateHash: H1,
      stamp: stampOf(H1),
      held: true,
      replicas: 4,
      reachable: 4,
      revisionReady: true,
      newAvailable: 0,
      complete: false,
      userDrives: false,
      jobs: this.jobs,
      ...observation,
    };
  }

  /** Plans on the observation changed by `change`, then does what the plan says. */
  plan(change: Partial<Observation> = {}, retry?: string[]): Plan {
    this.observation = { ...this.observation, ...change, jobs: this.jobs };
    const plan = this.peek(retry);
    this.second++;
    this.rollout = plan.rollout;
    this.hookRecords = plan.hooks;
    this.conditions = plan.conditions;
    for (const job of plan.createJobs) {
      assert.ok(!this.jobs.has(job.name), `${job.name} created twice`);
      this.jobs.set(job.name, { phase: 'Active' });
      this.created.push(job.name);
    }
    for (const name of plan.deleteJobs) this.jobs.delete(name);
    this.events.push(...plan.events.map((e) => e.reason));
    return plan;
  }

  /** The plan for now, not acted on. */
  peek(retry?: string[], second = this.second): Plan {
    return planRollout({
      now: at(second),
      workloadName: 'web',
      hooks: this.hooks,
      ...(this.rollout && { rollout: this.rollout }),
      ...(this.hookRecords && { hookRecords: this.hookRecords }),
      ...(this.conditions && { conditions: this.conditions }),
      generation: 1,
      observation: this.observation,
      ...(retry && { retry }),
    });
  }

  finish(name: string, phase: 'Succeeded' | 'Failed', message?: string): void {
    assert.ok(this.jobs.has(name), `no Job ${name}`);
    this.jobs.set(name, { phase, ...(message && { message }) });
  }

  hook(name: string): HookRecord | undefined {
    return this.hookRecords?.find((h) => h.name === name && h.templateHash === this.observation.templateHash);
  }

  condition(type: string): Condition | undefined {
    return this.conditions?.find((c) => c.type === type);
  }
}

const reasons = (plan: Plan) => plan.events.map((e) => e.reason);
const job = (hook: string, rollout = H1, attempt = 1) => `web-${hook}-${rollout}${attempt > 1 ? `-${attempt}` : ''}`;

describe('planRollout: a rollout with hooks at 0, 50% and 100%', () => {
  test('driven step by step', () => {
    const d = new Driver(standard());

    // The webhook froze the Deployment; its controller has not seen the new spec yet.
    let plan = d.plan({ revisionReady: false });
    assert.deepEqual(reasons(plan), ['RolloutStarted']);
    assert.deepEqual(plan.hold, { type: 'step', count: 0 });
    assert.deepEqual(plan.createJobs, []);
    assert.equal(plan.rollout?.phase, 'Progressing');
    assert.equal(plan.rollout?.pointReached, '0/3');
    assert.equal(plan.rollout?.startTime, at(0));
    assert.equal(plan.rollout?.fromRevision, 'web-v1');
    assert.deepEqual(
      plan.rollout?.points.map((p) => [p.progressPoint, p.count, p.hooks]),
      [
        ['0', 0, ['pre']],
        ['50%', 2, ['smoke']],
        ['100%', 4, ['notify']],
      ],
    );

    // Point 0: before any new pod exists.
    plan = d.plan({ revisionReady: true });
    assert.deepEqual(reasons(plan), ['PointReached', 'HookStarted']);
    assert.deepEqual(plan.createJobs, [{ hook: 'pre', name: job('pre'), point: 0 }]);
    assert.deepEqual(plan.hold, { type: 'step', count: 0 });
    assert.equal(plan.rollout?.phase, 'Held');
    assert.equal(d.hook('pre')?.phase, 'Running');
    assert.equal(d.hook('pre')?.startTime, at(1));
    assert.equal(d.hook('smoke')?.phase, 'Pending');

    plan = d.plan();
    assert.deepEqual([reasons(plan), plan.createJobs, plan.hold], [[], [], { type: 'step', count: 0 }]);

    // Its hooks done, the hold moves to the next point.
    d.finish(job('pre'), 'Succeeded');
    plan = d.plan();
    assert.deepEqual(reasons(plan), ['HookSucceeded']);
    assert.deepEqual(plan.hold, { type: 'step', count: 2 });
    assert.equal(plan.rollout?.phase, 'Progressing');
    assert.equal(plan.rollout?.message, 'waiting for 2 new available replicas to reach point 50%');
    assert.equal(d.hook('pre')?.completionTime, at(3));

    plan = d.plan({ newAvailable: 1 });
    assert.deepEqual([reasons(plan), plan.createJobs, plan.hold], [[], [], { type: 'step', count: 2 }]);

    // 50% of 4: reached at 2.
    plan = d.plan({ newAvailable: 2 });
    assert.deepEqual(reasons(plan), ['PointReached', 'HookStarted']);
    assert.deepEqual(plan.createJobs, [{ hook: 'smoke', name: job('smoke'), point: 2 }]);
    assert.deepEqual(plan.hold, { type: 'step', count: 2 });
    assert.equal(plan.rollout?.phase, 'Held');
    assert.equal(plan.rollout?.pointReached, '2/3');
    assert.equal(plan.rollout?.message, 'held at point 50%: waiting for hooks smoke');

    // The last point is reached with the user's settings back.
    d.finish(job('smoke'), 'Succeeded');
    plan = d.plan();
    assert.deepEqual(plan.hold, { type: 'release' });
    assert.equal(plan.rollout?.message, 'waiting for 4 new available replicas to reach point 100%');

    plan = d.plan({ newAvailable: 4 });
    assert.deepEqual([reasons(plan), plan.createJobs], [[], []], 'every replica new and available is not yet a finished rollout');

    plan = d.plan({ complete: true, held: false });
    assert.deepEqual(reasons(plan), ['PointReached', 'HookStarted']);
    assert.deepEqual(plan.createJobs, [{ hook: 'notify', name: job('notify'), point: 4 }]);
    assert.deepEqual(plan.hold, { type: 'release' });
    assert.equal(plan.rollout?.phase, 'Held');

    d.finish(job('notify'), 'Succeeded');
    plan = d.plan();
    assert.deepEqual(reasons(plan), ['HookSucceeded', 'RolloutComplete']);
    assert.deepEqual(plan.hold, { type: 'release' });
    assert.equal(plan.rollout?.phase, 'Complete');
    assert.equal(plan.rollout?.completionTime, at(9));
    assert.equal(plan.rollout?.message, undefined);
    assert.equal(plan.rollout?.pointReached, '3/3');
    assert.deepEqual(
      plan.rollout?.points.map((p) => p.reachedTime),
      [at(1), at(5), at(8)],
    );
    assert.deepEqual(
      d.conditions?.map((c) => [c.type, c.status, c.reason]),
      [
        ['Progressing', 'False', 'RolloutComplete'],
        ['Held', 'False', 'NotHeld'],
        ['Failed', 'False', 'NoFailure'],
        ['Complete', 'True', 'RolloutComplete'],
      ],
    );

    plan = d.plan();
    assert.deepEqual([reasons(plan), plan.createJobs, plan.rollout?.completionTime], [[], [], at(9)]);

    assert.deepEqual(d.created, [job('pre'), job('smoke'), job('notify')]);
    const count = (reason: string) => d.events.filter((e) => e === reason).length;
    assert.deepEqual(
      ['RolloutStarted', 'PointReached', 'HookStarted', 'HookSucceeded', 'RolloutComplete'].map(count),
      [1, 3, 3, 3, 1],
    );
  });

  test('hooks of one point run in parallel and all finish before the rollout moves on', () => {
    const d = new Driver([hook('a', 1), hook('b', '25%'), hook('c', 3)]);
    let plan = d.plan({ newAvailable: 1 });
    assert.deepEqual(
      plan.createJobs.map((j) => j.hook),
      ['a', 'b'],
    );
    d.finish(job('a'), 'Succeeded');
    plan = d.plan({ newAvailable: 3 });
    assert.deepEqual([plan.createJobs, plan.hold, plan.rollout?.message], [[], { type: 'step', count: 1 }, 'held at point 1,25%: waiting for hooks b']);
    d.finish(job('b'), 'Succeeded');
    plan = d.plan();
    assert.deepEqual(
      plan.createJobs.map((j) => j.hook),
      ['c'],
    );
  });

  test('no point is skipped: points reached at once are still taken in order', () => {
    const d = new Driver(standard(), { newAvailable: 4, complete: true });
    let plan = d.plan();
    assert.deepEqual(
      plan.createJobs.map((j) => j.hook),
      ['pre'],
    );
    d.finish(job('pre'), 'Succeeded');
    plan = d.plan();
    assert.deepEqual(
      plan.createJobs.map((j) => j.hook),
      ['smoke'],
    );
    assert.deepEqual(plan.hold, { type: 'step', count: 2 });
  });

  test("point 0 waits until the new revision can be named (a StatefulSet's or DaemonSet's ControllerRevision); later points need pods", () => {
    const d = new Driver([hook('pre', 0), hook('smoke', 1)], { revisionReady: false });
    assert.deepEqual([d.plan().createJobs, d.rollout?.message], [[], 'waiting for 0 new available replicas to reach point 0']);
    assert.deepEqual(
      d.plan({ revisionReady: true }).createJobs.map((j) => j.hook),
      ['pre'],
    );
    d.finish(job('pre'), 'Succeeded');
    assert.deepEqual(
      d.plan({ newAvailable: 1 }).createJobs.map((j) => j.hook),
      ['smoke'],
    );
  });
});

describe('planRollout: failures', () => {
  function failedSmoke(failurePolicy: 'Abort' | 'Ignore'): Driver {
    const d = new Driver(standard({ failurePolicy }));
    d.plan();
    d.finish(job('pre'), 'Succeeded');
    d.plan({ newAvailable: 2 });
    d.finish(job('smoke'), 'Failed', 'BackoffLimitExceeded: Job has reached the specified backoff limit');
    return d;
  }

  test('Abort holds the rollout where it is and sets the Failed condition', () => {
    const d = failedSmoke('Abort');
    let plan = d.plan();
    assert.deepEqual(reasons(plan), ['HookFailed']);
    assert.equal(plan.events[0]?.type, 'Warning');
    assert.match(plan.events[0]?.message ?? '', /failurePolicy Abort: the rollout is held$/);
    assert.deepEqual(plan.hold, { type: 'step', count: 2 });
    assert.equal(plan.rollout?.phase, 'Failed');
    assert.equal(
      plan.rollout?.message,
      `hook smoke failed (Job ${job('smoke')}): BackoffLimitExceeded: Job has reached the specified backoff limit; held at point 50% until a retry or a new rollout`,
    );
    assert.equal(d.hook('smoke')?.phase, 'Failed');
    assert.equal(d.hook('smoke')?.message, 'BackoffLimitExceeded: Job has reached the specified backoff limit');
    assert.deepEqual(
      d.conditions?.map((c) => [c.type, c.status, c.reason]),
      [
        ['Progressing', 'False', 'HookFailed'],
        ['Held', 'True', 'HookFailed'],
        ['Failed', 'True', 'HookFailed'],
        ['Complete', 'False', 'NotComplete'],
      ],
    );
    assert.equal(d.condition('Failed')?.message, `hook smoke failed (Job ${job('smoke')}): BackoffLimitExceeded: Job has reached the specified backoff limit`);

    // Whatever the workload does meanwhile, nothing more runs and the hold stays.
    plan = d.plan({ newAvailable: 4, complete: true });
    assert.deepEqual([reasons(plan), plan.createJobs, plan.hold, plan.rollout?.phase], [[], [], { type: 'step', count: 2 }, 'Failed']);
  });

  test('Ignore goes on', () => {
    const d = failedSmoke('Ignore');
    const plan = d.plan();
    assert.deepEqual(reasons(plan), ['HookFailed']);
    assert.match(plan.events[0]?.message ?? '', /failurePolicy Ignore: the rollout goes on$/);
    assert.deepEqual(plan.hold, { type: 'release' });
    assert.equal(plan.rollout?.phase, 'Progressing');
    assert.equal(d.condition('Failed')?.status, 'False');
    d.plan({ newAvailable: 4, complete: true });
    d.finish(job('notify'), 'Succeeded');
    assert.equal(d.plan().rollout?.phase, 'Complete');
  });

  test('a retry runs a new attempt of the failed hook under a new name', () => {
    const d = failedSmoke('Abort');
    d.plan();
    let plan = d.plan({}, ['smoke']);
    assert.equal(plan.retried, true);
    assert.deepEqual(reasons(plan), ['HookRetried', 'HookStarted']);
    assert.deepEqual(plan.createJobs, [{ hook: 'smoke', name: job('smoke', H1, 2), point: 2 }]);
    assert.equal(plan.rollout?.phase, 'Held');
    assert.deepEqual({ ...d.hook('smoke'), startTime: undefined }, { name: 'smoke', point: 2, rollout: H1, templateHash: H1, job: job('smoke', H1, 2), attempt: 2, phase: 'Running', startTime: undefined });
    assert.equal(d.condition('Failed')?.status, 'False');

    // Fails again: a third attempt with `*`.
    d.finish(job('smoke', H1, 2), 'Failed');
    assert.equal(d.plan().rollout?.phase, 'Failed');
    plan = d.plan({}, ['*']);
    assert.deepEqual(plan.createJobs, [{ hook: 'smoke', name: job('smoke', H1, 3), point: 2 }]);
    d.finish(job('smoke', H1, 3), 'Succeeded');
    assert.deepEqual(d.plan().hold, { type: 'release' });
  });

  test('a retry of a hook that has not failed changes nothing, and is answered', () => {
    const d = failedSmoke('Abort');
    d.plan();
    const plan = d.plan({}, ['pre', 'nothing']);
    assert.equal(plan.retried, true);
    assert.deepEqual([reasons(plan), plan.createJobs, plan.rollout?.phase], [[], [], 'Failed']);
  });

  test('a Job gone while its hook runs fails the hook', () => {
    const d = new Driver(standard());
    d.plan();
    d.jobs.delete(job('pre'));
    const plan = d.plan();
    assert.deepEqual(reasons(plan), ['HookFailed']);
    assert.equal(d.hook('pre')?.phase, 'Failed');
    assert.equal(d.hook('pre')?.message, `Job ${job('pre')} was deleted before it finished`);
    assert.equal(plan.rollout?.phase, 'Failed');
    assert.deepEqual(plan.hold, { type: 'step', count: 0 });
  });
});

describe('planRollout: rollover', () => {
  /** A rollout held at 50% with two hooks running there: one kept (Always), one not (Never). */
  function heldAtHalf(): Driver {
    const d = new Driver([hook('pre', 0), hook('smoke', '50%'), hook('load', '50%', { retainPolicy: 'Never' }), hook('notify', '100%')]);
    d.plan();
    d.finish(job('pre'), 'Succeeded');
    d.plan({ newAvailable: 2 });
    assert.deepEqual(d.created, [job('pre'), job('smoke'), job('load')]);
    return d;
  }

  test("a new template cancels the running hooks (suspended when kept, deleted when not) and starts from its own progress", () => {
    const d = heldAtHalf();
    let plan = d.plan({ templateHash: H2, stamp: { ...stampOf(H2), changedAt: at(30) }, newAvailable: 0, revisionReady: false });
    assert.deepEqual(reasons(plan), ['RolloutCancelled', 'RolloutStarted']);
    assert.deepEqual(plan.suspendJobs, [job('smoke')]);
    assert.deepEqual(plan.deleteJobs, [job('load')]);
    const cancelled = plan.hooks.filter((h) => h.templateHash === H1);
    assert.deepEqual(
      cancelled.map((h) => [h.name, h.phase, h.message]),
      [
        ['smoke', 'Cancelled', `cancelled: the template changed (rollout ${H2})`],
        ['load', 'Cancelled', `cancelled: the template changed (rollout ${H2})`],
        ['notify', 'Cancelled', `cancelled: the template changed (rollout ${H2})`],
      ],
    );
    assert.equal(plan.rollout?.templateHash, H2);
    assert.equal(plan.rollout?.startTime, at(30));
    assert.equal(plan.rollout?.fromRevision, 'web-v1');
    assert.equal(plan.rollout?.pointReached, '0/3');
    assert.deepEqual(plan.hold, { type: 'step', count: 0 });
    assert.ok(plan.hooks.filter((h) => h.templateHash === H2).every((h) => h.phase === 'Pending'));

    // The new rollout's own hooks, under its own names; the cancelled ones stay visible.
    plan = d.plan({ revisionReady: true });
    assert.deepEqual(plan.createJobs, [{ hook: 'pre', name: job('pre', H2), point: 0 }]);
    assert.deepEqual(
      plan.hooks.filter((h) => h.phase === 'Cancelled').map((h) => h.name),
      ['smoke', 'load', 'notify'],
    );
    assert.deepEqual(reasons(plan), ['PointReached', 'HookStarted']);

    // Until the rollout after it.
    plan = d.plan({ templateHash: H3, stamp: stampOf(H3), revisionReady: false });
    assert.deepEqual(
      plan.hooks.filter((h) => h.templateHash === H1),
      [],
    );
    assert.deepEqual(plan.suspendJobs, [job('pre', H2)]);
  });

  test('a rollback starts from the progress the earlier revision already has', () => {
    const d = heldAtHalf();
    d.plan({ templateHash: H2, stamp: { ...stampOf(H2, 'ROLLBACK'), from: 'web-v2' }, newAvailable: 3 });
    assert.equal(d.rollout?.type, 'ROLLBACK');
    // From the revision the rollback abandons, not the one the held rollout came from (where it goes back to).
    assert.equal(d.rollout?.fromRevision, 'web-v2');
    assert.deepEqual(d.created.slice(3), [job('pre', H2)]);
    d.finish(job('pre', H2), 'Succeeded');
    const plan = d.plan();
    assert.deepEqual(plan.createJobs, [{ hook: 'smoke', name: job('smoke', H2), point: 2 }, { hook: 'load', name: job('load', H2), point: 2 }]);
  });

  test('a rollback from a template that never got a revision has no from', () => {
    const d = heldAtHalf();
    const { from: _none, ...unrevisioned } = stampOf(H2, 'ROLLBACK');
    // A StatefulSet's status names the revision its pods run now: the one the rollback goes back to.
    assert.equal(d.plan({ templateHash: H2, stamp: unrevisioned, fromRevision: 'web-v1', newAvailable: 3 }).rollout?.fromRevision, undefined);
  });

  test('back to a template whose hooks a rollover cancelled: a new rollout, its hooks under new names', () => {
    const d = new Driver([hook('pre', 0, { retainPolicy: 'Never' }), hook('smoke', '50%'), hook('load', '50%', { retainPolicy: 'Never' })]);
    d.plan();
    d.finish(job('pre'), 'Succeeded');
    d.plan({ newAvailable: 2 });
    let plan = d.plan({ templateHash: H2, stamp: stampOf(H2), newAvailable: 0 });
    assert.deepEqual([plan.deleteJobs, plan.suspendJobs], [[job('pre'), job('load')], [job('smoke')]]);
    const back = 'a-again';
    plan = d.plan({ templateHash: H1, stamp: stampOf(H1, 'ROLLBACK', back), newAvailable: 2 });
    assert.equal(plan.rollout?.id, back);
    assert.deepEqual(plan.deleteJobs, [job('pre', H2)]);
    assert.deepEqual(plan.createJobs, [{ hook: 'pre', name: job('pre', back), point: 0 }]);
    d.finish(job('pre', back), 'Succeeded');
    plan = d.plan();
    // smoke's first Job is kept, suspended: never reused.
    assert.deepEqual(plan.createJobs, [
      { hook: 'smoke', name: job('smoke', back), point: 2 },
      { hook: 'load', name: job('load', back), point: 2 },
    ]);
    assert.ok(d.jobs.has(job('smoke')));
  });

  test('a template change after a finished rollout is a new rollout, nothing cancelled', () => {
    const d = new Driver([hook('smoke', 1, { retainPolicy: 'Never' })], { newAvailable: 4, complete: true });
    d.plan();
    d.finish(job('smoke'), 'Succeeded');
    assert.equal(d.plan().rollout?.phase, 'Complete');
    const plan = d.plan({ templateHash: H2, stamp: stampOf(H2), newAvailable: 0, complete: false });
    assert.deepEqual(reasons(plan), ['RolloutStarted']);
    assert.deepEqual(plan.suspendJobs, []);
  });

  test('finished hooks of the superseded rollout get their retention, since the status forgets them', () => {
    const d = new Driver([hook('pre', 0, { retainPolicy: 'Never' }), hook('smoke', '50%', { retainPolicy: 'OnFailure' }), hook('keep', 0)]);
    d.plan();
    d.finish(job('pre'), 'Succeeded');
    d.finish(job('keep'), 'Succeeded');
    d.plan();
    // The status remembers both ended; the next plan is already a rollover.
    const plan = d.plan({ templateHash: H2, stamp: stampOf(H2), revisionReady: false });
    assert.deepEqual(plan.deleteJobs, [job('pre')]);
  });

  test('a hook whose Job ended just before the rollover is recorded as it ended, and its Job left to retention', () => {
    const d = new Driver([hook('smoke', 0, { retainPolicy: 'OnFailure' }), hook('load', 0, { retainPolicy: 'Never' })]);
    d.plan();
    d.finish(job('smoke'), 'Failed', 'DeadlineExceeded');
    d.finish(job('load'), 'Succeeded');
    let plan = d.plan({ templateHash: H2, stamp: stampOf(H2), revisionReady: false });
    assert.deepEqual([plan.deleteJobs, plan.suspendJobs], [[], []]);
    assert.deepEqual(
      plan.hooks.filter((h) => h.templateHash === H1).map((h) => [h.name, h.phase]),
      [
        ['smoke', 'Failed'],
        ['load', 'Succeeded'],
      ],
    );
    // Once remembered: the failed Job is kept (OnFailure), the other goes (Never).
    plan = d.plan();
    assert.deepEqual(plan.deleteJobs, [job('load')]);
    assert.equal(plan.rollout?.phase, 'Progressing');
  });
});

describe('planRollout: retention', () => {
  function finishedBoth(retainPolicy: 'Always' | 'OnFailure' | 'Never'): { d: Driver; first: Plan; second: Plan; third: Plan } {
    const d = new Driver([hook('ok', 0, { retainPolicy, failurePolicy: 'Ignore' }), hook('ko', 0, { retainPolicy, failurePolicy: 'Ignore' })]);
    d.plan();
    d.finish(job('ok'), 'Succeeded');
    d.finish(job('ko'), 'Failed');
    const first = d.plan();
    const second = d.plan();
    const third = d.plan();
    return { d, first, second, third };
  }

  test('Always keeps every Job', () => {
    const { first, second } = finishedBoth('Always');
    assert.deepEqual([first.deleteJobs, second.deleteJobs], [[], []]);
  });

  test('OnFailure deletes the successful Job, once the status remembers it succeeded', () => {
    const { first, second, third } = finishedBoth('OnFailure');
    assert.deepEqual([first.deleteJobs, second.deleteJobs, third.deleteJobs], [[], [job('ok')], []]);
  });

  test('Never deletes every finished Job, once the status remembers how it ended', () => {
    const { d, first, second, third } = finishedBoth('Never');
    assert.deepEqual([first.deleteJobs, second.deleteJobs, third.deleteJobs], [[], [job('ok'), job('ko')], []]);
    assert.deepEqual(
      d.hookRecords?.map((h) => h.phase),
      ['Succeeded', 'Failed'],
    );
  });

  test('the Job of the last hook goes after the rollout is complete', () => {
    const d = new Driver([hook('notify', '100%', { retainPolicy: 'Never' })], { newAvailable: 4, complete: true });
    d.plan();
    d.finish(job('notify'), 'Succeeded');
    assert.deepEqual(d.plan({ held: false }).deleteJobs, []);
    assert.deepEqual(d.plan().deleteJobs, [job('notify')]);
  });
});

describe('planRollout: conditions and idempotence', () => {
  test('conditions keep their lastTransitionTime while their status is unchanged', () => {
    const d = new Driver(standard());
    d.plan({ revisionReady: false });
    const progressing = d.condition('Progressing');
    assert.deepEqual([progressing?.status, progressing?.lastTransitionTime, progressing?.observedGeneration], ['True', at(0), 1]);
    d.plan({ revisionReady: true });
    assert.equal(d.condition('Progressing')?.lastTransitionTime, at(0));
    assert.equal(d.condition('Progressing')?.message, 'held at point 0: waiting for hooks pre');
    assert.equal(d.condition('Held')?.lastTransitionTime, at(1));
    d.finish(job('pre'), 'Succeeded');
    d.plan();
    assert.equal(d.condition('Progressing')?.lastTransitionTime, at(0));
    assert.deepEqual([d.condition('Held')?.status, d.condition('Held')?.lastTransitionTime], ['False', at(2)]);
    assert.equal(d.condition('Complete')?.lastTransitionTime, at(0));
  });

  for (const retainPolicy of ['Always', 'Never'] as const) {
    test(`planning twice on the same observation plans nothing new (retainPolicy ${retainPolicy})`, () => {
      const d = new Driver(standard({ retainPolicy, failurePolicy: 'Ignore' }));
      const steps: Partial<Observation>[] = [{ revisionReady: false }, { revisionReady: true }, {}, { newAvailable: 2 }, {}, { newAvailable: 4, complete: true }, {}, {}];
      const finishes = [[], [], [job('pre')], [], [job('smoke')], [], [job('notify')], []];
      for (const [i, step] of steps.entries()) {
        for (const name of finishes[i] ?? []) d.finish(name, i === 4 ? 'Failed' : 'Succeeded');
        const first = d.plan(step);
        const again = d.peek(undefined, d.second + 100);
        assert.deepEqual([again.createJobs, again.suspendJobs, again.events], [[], [], []], `step ${i}`);
        assert.deepEqual([again.rollout, again.hooks, again.conditions, again.hold], [first.rollout, first.hooks, first.conditions, first.hold], `step ${i}`);
        // Retention's second step only: the Jobs whose end the status now remembers.
        const ended = d.hookRecords?.filter((h) => (h.phase === 'Succeeded' || h.phase === 'Failed') && d.jobs.has(h.job)).map((h) => h.job);
        assert.deepEqual(again.deleteJobs, retainPolicy === 'Never' ? ended : [], `step ${i}`);
      }
      assert.equal(d.rollout?.phase, 'Complete');
    });
  }

  test('no rollout seen: no hold, and the conditions say so', () => {
    const d = new Driver(standard(), { held: false });
    const plan = d.plan();
    assert.equal(plan.hold, undefined);
    assert.equal(plan.rollout, undefined);
    assert.deepEqual(
      plan.conditions.map((c) => [c.type, c.status, c.reason, c.message]),
      [
        ['Progressing', 'False', 'NoRollout', 'no rollout seen yet'],
        ['Held', 'False', 'NotHeld', ''],
        ['Failed', 'False', 'NoFailure', ''],
        ['Complete', 'False', 'NotComplete', ''],
      ],
    );
  });
});

describe('planRollout: a rollout the webhook did not stamp', () => {
  /** A rollout of H1 under way, then a template change to H2 the webhook did not see (no stamp for H2). */
  function unstampedRollover(): { d: Driver; plan: Plan } {
    const d = new Driver([hook('pre', 0), hook('smoke', '50%')]);
    d.plan();
    const { stamp: _stamp, ...observation } = d.observation;
    d.observation = { ...observation, templateHash: H2, jobs: d.jobs };
    return { d, plan: d.peek() };
  }

  test('it is stamped with the hold, and no hook runs before the stamp is on the workload', () => {
    const { d, plan } = unstampedRollover();
    assert.deepEqual(plan.stamp, { id: plan.rollout?.id, templateHash: H2, type: 'ROLLOUT', from: 'web-v1', changedAt: at(1) });
    assert.deepEqual(plan.createJobs, []);
    assert.deepEqual(plan.hold, { type: 'step', count: 0 });
    assert.equal(plan.rollout?.message, 'point 0 reached: its hooks run once the rollout is stamped on the workload');
    // podops restarted before the stamp was written: another id, and still no Job under it.
    const later = d.peek(undefined, d.second + 7);
    assert.notEqual(later.stamp?.id, plan.stamp?.id);
    assert.deepEqual(later.createJobs, []);
    // The stamp written (and the status lost): the Jobs are named after the stamp, whenever they are planned.
    d.observation = { ...d.observation, stamp: plan.stamp };
    const stamped = d.peek(undefined, d.second + 9);
    assert.equal(stamped.stamp, undefined);
    assert.deepEqual(stamped.createJobs, [{ hook: 'pre', name: job('pre', plan.stamp?.id), point: 0 }]);
  });

  test('once the status records it, the Jobs are named after the status whether the stamp was written or not', () => {
    const { d } = unstampedRollover();
    const first = d.plan();
    d.second += 5;
    const plan = d.plan();
    assert.equal(plan.stamp, undefined);
    assert.deepEqual(plan.createJobs, [{ hook: 'pre', name: job('pre', first.rollout?.id), point: 0 }]);
  });
});

describe('planRollout: what is not a rollout, and what the user drives', () => {
  function complete(hooks: LifecycleHook[]): Driver {
    const d = new Driver(hooks, { newAvailable: 4, complete: true });
    for (let i = 0; i < 6 && d.rollout?.phase !== 'Complete'; i++) {
      d.plan();
      for (const name of d.created) if (d.jobs.get(name)?.phase === 'Active') d.finish(name, 'Succeeded');
    }
    d.plan({ held: false });
    assert.equal(d.rollout?.phase, 'Complete');
    return d;
  }

  test('a scale change after a finished rollout is no rollout: nothing held, nothing run, nothing announced', () => {
    const d = complete([hook('pre', 0), hook('smoke', '75%'), hook('notify', '100%')]);
    const before = structuredClone(d.rollout);
    for (const change of [{ replicas: 8, reachable: 8, newAvailable: 5, complete: false }, { newAvailable: 8 }, { complete: true }, { replicas: 2, reachable: 2, newAvailable: 2 }]) {
      const plan = d.plan(change);
      assert.deepEqual([plan.hold, plan.createJobs, plan.events], [{ type: 'release' }, [], []], JSON.stringify(change));
      assert.deepEqual(plan.rollout, before);
      assert.equal(d.condition('Complete')?.status, 'True');
    }
  });

  test('hooks added after a finished rollout wait for the next one', () => {
    const d = complete([hook('smoke', '50%')]);
    d.hooks = [hook('smoke', '50%'), hook('late', 1, { failurePolicy: 'Abort' })];
    const plan = d.plan();
    assert.deepEqual([plan.hold, plan.createJobs, plan.rollout?.phase], [{ type: 'release' }, [], 'Complete']);
  });

  test("with the user's OnDelete, podops holds nothing but still runs the hooks at their points", () => {
    const d = new Driver(standard(), { userDrives: true });
    let plan = d.plan();
    assert.deepEqual(plan.hold, { type: 'release' });
    assert.deepEqual(plan.createJobs.map((j) => j.hook), ['pre']);
    d.finish(job('pre'), 'Succeeded');
    plan = d.plan({ newAvailable: 3 });
    assert.deepEqual(plan.hold, { type: 'release' });
    assert.deepEqual(plan.createJobs.map((j) => j.hook), ['smoke']);
  });

  test("the last point waits for every replica while the user's partition keeps some old", () => {
    const d = new Driver([hook('notify', '100%')], { reachable: 3, newAvailable: 3 });
    const plan = d.plan();
    assert.deepEqual(plan.hold, { type: 'release' });
    assert.equal(plan.rollout?.message, "waiting for every replica to be new: the user's partition keeps 1 at the old revision");
    assert.deepEqual(plan.createJobs, []);
  });

  test('no replicas: every point is the last, reached when the rollout is complete', () => {
    const d = new Driver(standard(), { replicas: 0, reachable: 0 });
    assert.deepEqual(d.plan().createJobs, []);
    const plan = d.plan({ complete: true });
    assert.deepEqual(plan.createJobs.map((j) => j.hook), ['pre', 'smoke', 'notify']);
    assert.equal(plan.rollout?.points.length, 1);
  });
});
