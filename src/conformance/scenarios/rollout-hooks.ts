// Rollout hooks (RolloutLifecycle): a Deployment's template change is held in the write that makes it, the
// hook Job of point 0 runs, and the rollout goes on once it succeeded; a hook that fails under Abort keeps
// the rollout held until the RolloutLifecycle is deleted. Hook Jobs need no image that exits: one completes
// at once (completions 0), the other fails by its deadline while its pod still runs.

import { RL_API_VERSION, RL_JOB_HOOK_LABEL, RL_KIND, RL_ROLLOUT_ANNOTATION, RL_USER_SETTINGS_ANNOTATION, RL_WORKLOAD_LABEL, type LifecycleHook, type RolloutLifecycle } from '../../api/rolloutlifecycle.ts';
import type { Deployment, ObjectMeta } from '../../api/kube.ts';
import type { KubeObject } from '../../kube/client.ts';
import { DEPLOYMENTS, JOBS, ROLLOUTLIFECYCLES } from '../../kube/resources.ts';
import type { ScenarioContext } from '../context.ts';
import { StepFailure } from '../observe.ts';
import type { Scenario } from '../scenario.ts';

/** The Deployment and its RolloutLifecycle. */
const nameIn = (ctx: ScenarioContext): string => ctx.name('web');
const REVISION_ANNOTATION = 'conformance.podops.io/revision';

async function hookedDeployment(ctx: ScenarioContext, hook: LifecycleHook): Promise<void> {
  const name = nameIn(ctx);
  const labels = { app: name };
  await ctx.client.create(DEPLOYMENTS, {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace: ctx.namespace },
    spec: { replicas: 1, selector: { matchLabels: labels }, template: { metadata: { labels, annotations: { [REVISION_ANNOTATION]: '1' } }, spec: ctx.podSpec() } },
  }, { signal: ctx.signal });
  const rl: RolloutLifecycle = { apiVersion: RL_API_VERSION, kind: RL_KIND, metadata: { name, namespace: ctx.namespace }, spec: { targetRef: { kind: 'Deployment', name }, hooks: [hook] } };
  await ctx.client.create(ROLLOUTLIFECYCLES, rl, { signal: ctx.signal });
  await ctx.waitForObject<Deployment>(DEPLOYMENTS, name, 'the Deployment labelled for its RolloutLifecycle and available', (d) => [
    ...(d.metadata.labels?.[RL_WORKLOAD_LABEL] === name ? [] : [`label ${RL_WORKLOAD_LABEL} is ${d.metadata.labels?.[RL_WORKLOAD_LABEL] ?? 'missing'}, expected ${name}`]),
    ...rolledOutMismatches(d),
  ]);
}

function rolledOutMismatches(d: Deployment): string[] {
  const { observedGeneration, updatedReplicas = 0, availableReplicas = 0 } = d.status ?? {};
  if (observedGeneration !== d.metadata.generation) return [`status.observedGeneration ${observedGeneration}, generation ${d.metadata.generation}`];
  return updatedReplicas === 1 && availableReplicas === 1 ? [] : [`${updatedReplicas} updated and ${availableReplicas} available replicas, expected 1 and 1`];
}

/** Changes the pod template; the answer must already be held: paused, with the rollout recorded. */
async function changeTemplate(ctx: ScenarioContext): Promise<void> {
  const changed = await ctx.client.patch<Deployment>(DEPLOYMENTS, ctx.namespace, nameIn(ctx), 'merge', { spec: { template: { metadata: { annotations: { [REVISION_ANNOTATION]: '2' } } } } }, { signal: ctx.signal });
  const wrong = [...(changed.spec?.paused === true ? [] : [`spec.paused is ${changed.spec?.paused}, expected true`]), ...(changed.metadata.annotations?.[RL_ROLLOUT_ANNOTATION] ? [] : [`annotation ${RL_ROLLOUT_ANNOTATION} is missing`])];
  if (wrong.length > 0) throw new StepFailure(`the answer to the template change: ${wrong.join('; ')}`, { kind: 'Object', name: `Deployment ${nameIn(ctx)}`, state: { metadata: changed.metadata, spec: { paused: changed.spec?.paused } } });
}

const waitForHookJob = (ctx: ScenarioContext, hook: string) =>
  ctx.waitFor(
    `a Job labelled ${RL_JOB_HOOK_LABEL}=${hook}`,
    () => ctx.client.list<KubeObject>(JOBS, { namespace: ctx.namespace }, ctx.signal),
    (list) => (list.items.some((job) => (job.metadata as ObjectMeta).labels?.[RL_JOB_HOOK_LABEL] === hook) ? [] : ['no such Job']),
    (list) => ({ kind: 'Object', name: 'the Jobs of the namespace', state: list.items.map((job) => job.metadata.name) }),
  );

const waitForPhase = (ctx: ScenarioContext, rolloutPhase: string, hookPhase: string) =>
  ctx.waitForObject<RolloutLifecycle>(ROLLOUTLIFECYCLES, nameIn(ctx), `the rollout ${rolloutPhase}, its hook ${hookPhase}`, (rl) => {
    const phases = `rollout ${rl.status?.rollout?.phase ?? 'none'}, hooks ${JSON.stringify((rl.status?.hooks ?? []).map((h) => `${h.name}:${h.phase}`))}`;
    return rl.status?.rollout?.phase === rolloutPhase && rl.status.hooks?.[0]?.phase === hookPhase ? [] : [phases];
  });

const released = (ctx: ScenarioContext) =>
  ctx.waitForObject<Deployment>(DEPLOYMENTS, nameIn(ctx), 'the Deployment released and rolled out', (d) => [
    ...(d.spec?.paused ? ['spec.paused is true'] : []),
    ...(d.metadata.annotations?.[RL_USER_SETTINGS_ANNOTATION] ? [`annotation ${RL_USER_SETTINGS_ANNOTATION} is still there`] : []),
    ...rolledOutMismatches(d),
  ]);

const jobSpec = (ctx: ScenarioContext, extra: Record<string, unknown>) => ({ backoffLimit: 0, ...extra, template: { spec: { ...ctx.podSpec(), restartPolicy: 'Never' } } });

const holdAndRelease: Scenario = {
  name: 'rollout-hooks/hold-and-release',
  title: 'a template change is held in its own write until the hook Job of point 0 succeeded, then the rollout completes',
  requires: ['rolloutHooks'],
  async run(ctx) {
    await ctx.step('a Deployment with a RolloutLifecycle: one hook at point 0', () =>
      hookedDeployment(ctx, { name: 'before', trigger: { progressAvailableParams: { progressPoint: 0 } }, jobSpec: jobSpec(ctx, { completions: 0 }) }),
    );
    await ctx.step('change the pod template: the Deployment is held in that write', () => changeTemplate(ctx));
    await ctx.step('the hook runs as a Job', () => waitForHookJob(ctx, 'before'));
    await ctx.step('the hook succeeded: the rollout completes', () => waitForPhase(ctx, 'Complete', 'Succeeded'));
    await ctx.step("the Deployment is released with the user's settings, and rolled out", () => released(ctx));
  },
};

const abortHolds: Scenario = {
  name: 'rollout-hooks/abort',
  title: 'a hook that fails under failurePolicy Abort keeps the rollout held until the RolloutLifecycle is deleted',
  requires: ['rolloutHooks'],
  async run(ctx) {
    await ctx.step('a Deployment with a RolloutLifecycle: one hook at point 0 whose Job fails after 1 s (Abort)', () =>
      hookedDeployment(ctx, { name: 'check', trigger: { progressAvailableParams: { progressPoint: 0 } }, failurePolicy: 'Abort', jobSpec: jobSpec(ctx, { activeDeadlineSeconds: 1 }) }),
    );
    await ctx.step('change the pod template: the Deployment is held in that write', () => changeTemplate(ctx));
    await ctx.step('the hook fails: the rollout is Failed and stays held', async () => {
      await waitForPhase(ctx, 'Failed', 'Failed');
      const held = await ctx.client.get<Deployment>(DEPLOYMENTS, ctx.namespace, nameIn(ctx), ctx.signal);
      if (!held.spec?.paused) throw new StepFailure('the Deployment of a failed rollout is not held: spec.paused is not true', { kind: 'Object', name: `Deployment ${held.metadata.name}`, state: held.spec });
    });
    await ctx.step('delete the RolloutLifecycle: the Deployment is released and rolls out', async () => {
      await ctx.client.delete(ROLLOUTLIFECYCLES, ctx.namespace, nameIn(ctx), { signal: ctx.signal });
      await released(ctx);
    });
  },
};

export const rolloutHookScenarios: readonly Scenario[] = [holdAndRelease, abortHolds];
