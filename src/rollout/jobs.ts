// Hook Jobs: one per hook, revision and attempt, under a name computed from those (a restarted operator finds
// the Job it made, and never makes a second), labelled with what they belong to (RolloutLifecycle, workload,
// hook, rollout, revision), owned by the revision they run for (pruned with it), and with the rollout's facts
// in every container's environment.

import { createHash } from 'node:crypto';
import type { OwnerReference } from '../api/kube.ts';
import {
  type LifecycleHook,
  type RolloutLifecycle,
  type RolloutRecord,
  RL_JOB_HOOK_LABEL,
  RL_JOB_POINT_LABEL,
  RL_JOB_ROLLOUT_LABEL,
  RL_JOB_REVISION_LABEL,
  RL_JOB_TEMPLATE_LABEL,
  RL_JOB_WORKLOAD_KIND_LABEL,
  RL_JOB_WORKLOAD_NAME_LABEL,
  RL_WORKLOAD_LABEL,
  ROLLOUT_FROM_OBJECT_ENV,
  ROLLOUT_TO_OBJECT_ENV,
  ROLLOUT_TYPE_ENV,
  type RolloutType,
  type WorkloadKind,
} from '../api/rolloutlifecycle.ts';

/** A Job name and a label value at most (the Job controller labels its pods with the Job's name). */
const MAX_NAME = 63;

/** `text` if it fits in `max` characters; else a readable prefix and a hash of the whole, in `max`. */
function shortened(text: string, max: number): string {
  if (text.length <= max) return text;
  const digest = createHash('sha256').update(text).digest('hex').slice(0, 6);
  return `${text.slice(0, max - digest.length - 1).replace(/[-.]+$/, '')}-${digest}`;
}

/**
 * `<workload>-<hook>-<rollout id>` (`-<attempt>` from the second attempt on). A name too long for a Job
 * (63 characters, as the job-name label) keeps a readable prefix and a hash of the whole.
 */
export function hookJobName(workload: string, hook: string, rollout: string, attempt: number): string {
  const suffix = `-${rollout}${attempt > 1 ? `-${attempt}` : ''}`;
  return shortened(`${workload}-${hook}`, MAX_NAME - suffix.length) + suffix;
}

export interface HookJobInput {
  namespace: string;
  name: string;
  rolloutLifecycle: string;
  hook: string;
  point: number;
  workload: { kind: WorkloadKind; name: string };
  /** The ReplicaSet or ControllerRevision the rollout goes to, once it exists. */
  toRevision?: string;
  /** The rollout's id (a rollback to an earlier template is a rollout of its own). */
  rollout: string;
  templateHash: string;
  /** A batch/v1 JobSpec, copied. */
  jobSpec: Record<string, unknown>;
  /** The revision it runs for; none for the dry run that validates a hook at admission. */
  owner?: OwnerReference;
  env: { type: RolloutType; from: string; to: string };
}

type Container = { env?: { name: string }[] } & Record<string, unknown>;

/** The env of a container with the rollout's variables added, except those it defines itself. */
function withRolloutEnv(container: Container, env: HookJobInput['env']): Container {
  const given = new Set((container.env ?? []).map((e) => e.name));
  const added = [
    { name: ROLLOUT_FROM_OBJECT_ENV, value: env.from },
    { name: ROLLOUT_TO_OBJECT_ENV, value: env.to },
    { name: ROLLOUT_TYPE_ENV, value: env.type },
  ].filter((e) => !given.has(e.name));
  return added.length === 0 ? container : { ...container, env: [...(container.env ?? []), ...added] };
}

/** A batch/v1 Job as podops creates it for a hook. */
export type HookJob = {
  apiVersion: 'batch/v1';
  kind: 'Job';
  metadata: { name: string; namespace: string; labels: Record<string, string>; ownerReferences?: OwnerReference[] };
  spec: Record<string, unknown>;
};

export function hookJob(input: HookJobInput): HookJob {
  const spec = structuredClone(input.jobSpec) as { template?: { spec?: Record<string, unknown>; metadata?: Record<string, unknown> } } & Record<string, unknown>;
  const podSpec = spec.template?.spec;
  if (podSpec) {
    for (const field of ['initContainers', 'containers'] as const) {
      if (Array.isArray(podSpec[field])) podSpec[field] = (podSpec[field] as Container[]).map((c) => withRolloutEnv(c, input.env));
    }
  }
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: {
      name: input.name,
      namespace: input.namespace,
      labels: {
        [RL_WORKLOAD_LABEL]: input.rolloutLifecycle,
        [RL_JOB_HOOK_LABEL]: input.hook,
        [RL_JOB_ROLLOUT_LABEL]: input.rollout,
        [RL_JOB_TEMPLATE_LABEL]: input.templateHash,
        [RL_JOB_POINT_LABEL]: String(input.point),
        [RL_JOB_WORKLOAD_KIND_LABEL]: input.workload.kind,
        // Names of up to 253 characters, in a label value of at most 63.
        [RL_JOB_WORKLOAD_NAME_LABEL]: shortened(input.workload.name, MAX_NAME),
        ...(input.toRevision && { [RL_JOB_REVISION_LABEL]: shortened(input.toRevision, MAX_NAME) }),
      },
      ...(input.owner && { ownerReferences: [input.owner] }),
    },
    spec,
  };
}

/** One run of a hook: the Job's name, the point it runs at, the rollout it runs for, and the Job's owner. */
export interface HookRun {
  name: string;
  point: number;
  rollout: Pick<RolloutRecord, 'id' | 'templateHash' | 'type' | 'fromRevision' | 'toRevision'>;
  /** The revision it runs for; none for the dry run. */
  owner?: OwnerReference;
}

/** The Job of a RolloutLifecycle's hook for one run: what the controller creates, and what admission dry-runs. */
export function hookJobFor(rl: RolloutLifecycle, hook: LifecycleHook, run: HookRun): HookJob {
  const namespace = rl.metadata.namespace ?? '';
  const target = rl.spec?.targetRef;
  const { rollout } = run;
  const revisionObject = (revision: string | undefined): string => (revision ? `${namespace}/${revision}` : '');
  return hookJob({
    namespace,
    name: run.name,
    rolloutLifecycle: rl.metadata.name ?? '',
    hook: hook.name ?? '',
    point: run.point,
    workload: { kind: target?.kind as WorkloadKind, name: target?.name ?? '' },
    ...(rollout.toRevision !== undefined && { toRevision: rollout.toRevision }),
    rollout: rollout.id,
    templateHash: rollout.templateHash,
    jobSpec: hook.jobSpec ?? {},
    ...(run.owner && { owner: run.owner }),
    env: { type: rollout.type, from: revisionObject(rollout.fromRevision), to: revisionObject(rollout.toRevision) },
  });
}

/** Stands for the rollout id and template hash in the dry run of a hook's Job. */
const DRY_RUN = 'dry0000run';

/** The Job a hook would run as, for the API server to judge at admission (a dry-run create). */
export const dryRunHookJob = (rl: RolloutLifecycle, hook: LifecycleHook): HookJob =>
  hookJobFor(rl, hook, {
    name: hookJobName(rl.spec?.targetRef?.name ?? 'workload', hook.name ?? 'hook', DRY_RUN, 1),
    point: 0,
    rollout: { id: DRY_RUN, templateHash: DRY_RUN, type: 'ROLLOUT' },
  });
