// RolloutLifecycle (apps.kusionstack.io/v1alpha1): lifecycle hooks for the rollouts of one Deployment,
// StatefulSet or DaemonSet, from outside the tree. Its hooks are the Kubernetes lifecycle-hooks proposal's
// LifecycleHook list in JSON form (a Job run when the rollout reaches a progress point), the status tells
// where the current rollout is. The label, annotation and finalizer keys podops writes for it are here too.

import type { ObjectMeta } from './kube.ts';
import { PTR_API_VERSION, PTR_GROUP, PTR_VERSION } from './podtransitionrule.ts';
import { array, conditions, customResourceDefinition, int64, intOrString, object, resourceSchema, str, strings, time, type CustomResource, type Schema } from './schema.ts';

export const RL_API_VERSION = PTR_API_VERSION;
export const RL_KIND = 'RolloutLifecycle';
export const RL_LIST_KIND = 'RolloutLifecycleList';
export const RL_PLURAL = 'rolloutlifecycles';
export const RL_SINGULAR = 'rolloutlifecycle';
export const RL_SHORT_NAME = 'rlc';
export const RL_CRD_NAME = `${RL_PLURAL}.${PTR_GROUP}`;

const DOMAIN = 'rolloutlifecycle.kusionstack.io';
/** On a targeted workload: the RolloutLifecycle's name. Podops' workload webhook sees only workloads with it. */
export const RL_WORKLOAD_LABEL = `${DOMAIN}/name`;
/** On a held workload: the user's own values of the fields the hold changes, as JSON, restored exactly. */
export const RL_USER_SETTINGS_ANNOTATION = `${DOMAIN}/user-settings`;
/** On a held workload: the rollout the webhook saw start (template hash, ROLLOUT or ROLLBACK, from which revision, when). */
export const RL_ROLLOUT_ANNOTATION = `${DOMAIN}/rollout`;
/** On a RolloutLifecycle: hook names (or `*`) whose failed Job `podops rollout retry` asks to run again. */
export const RL_RETRY_ANNOTATION = `${DOMAIN}/retry`;
/** On a RolloutLifecycle: released and cleaned up (hooks cancelled, workload restored) before it goes. */
export const RL_FINALIZER = `${DOMAIN}/release`;
// On hook Jobs.
export const RL_JOB_HOOK_LABEL = `${DOMAIN}/hook`;
export const RL_JOB_TEMPLATE_LABEL = `${DOMAIN}/template-hash`;
export const RL_JOB_ROLLOUT_LABEL = `${DOMAIN}/rollout-id`;
export const RL_JOB_POINT_LABEL = `${DOMAIN}/point`;
/** The workload the hook runs for: its kind and name. */
export const RL_JOB_WORKLOAD_KIND_LABEL = `${DOMAIN}/workload-kind`;
export const RL_JOB_WORKLOAD_NAME_LABEL = `${DOMAIN}/workload-name`;
/** The ReplicaSet or ControllerRevision the rollout goes to (absent before it exists: a Deployment's point 0). */
export const RL_JOB_REVISION_LABEL = `${DOMAIN}/to-revision`;
/** The field manager of podops' writes to workloads: the workload webhook lets them through as they are. */
export const RL_FIELD_MANAGER = 'podops-rollout';

/** The environment variables every hook container gets, unless it defines them itself. */
export const ROLLOUT_FROM_OBJECT_ENV = 'K8S_ROLLOUT_FROM_OBJECT';
export const ROLLOUT_TO_OBJECT_ENV = 'K8S_ROLLOUT_TO_OBJECT';
export const ROLLOUT_TYPE_ENV = 'K8S_ROLLOUT_TYPE';

export const WORKLOAD_KINDS = ['Deployment', 'StatefulSet', 'DaemonSet'] as const;
export type WorkloadKind = (typeof WORKLOAD_KINDS)[number];

export type HookFailurePolicy = 'Abort' | 'Ignore';
export type HookRetainPolicy = 'Always' | 'OnFailure' | 'Never';
export const HOOK_TRIGGER_PROGRESS_AVAILABLE = 'ProgressAvailable';
export const DEFAULT_HOOK_FAILURE_POLICY: HookFailurePolicy = 'Abort';
export const DEFAULT_HOOK_RETAIN_POLICY: HookRetainPolicy = 'Always';
/** Why a change of spec.targetRef is refused (by the schema's rule and the validating webhook alike). */
export const TARGET_REF_IMMUTABLE = 'field is immutable';
/** What the refusal adds after the workload it targets, in both places. */
export const TARGET_REF_IMMUTABLE_HINT = 'delete this RolloutLifecycle and create one for the other workload';
/**
 * The schema rule's message as a CEL expression, so that kube-apiserver (which runs the rule before any webhook)
 * names the target and the way out as the webhook does.
 */
const TARGET_REF_IMMUTABLE_EXPRESSION = `'${TARGET_REF_IMMUTABLE} (it targets ' + oldSelf.kind + '/' + oldSelf.name + ': ${TARGET_REF_IMMUTABLE_HINT})'`;
/** Hooks per RolloutLifecycle at most; a hook name at most (it is part of Job names, 63 characters). */
export const MAX_HOOKS = 32;
export const MAX_HOOK_NAME_LENGTH = 40;

export interface RolloutLifecycle {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  spec?: RolloutLifecycleSpec;
  status?: RolloutLifecycleStatus;
}

export interface RolloutLifecycleSpec {
  targetRef?: { apiVersion?: string; kind?: string; name?: string };
  hooks?: LifecycleHook[];
}

export interface LifecycleHook {
  name?: string;
  trigger?: { type?: string; progressAvailableParams?: { progressPoint?: number | string } };
  failurePolicy?: HookFailurePolicy;
  retainPolicy?: HookRetainPolicy;
  /** A batch/v1 JobSpec. */
  jobSpec?: Record<string, unknown>;
}

export type RolloutType = 'ROLLOUT' | 'ROLLBACK';
export type RolloutPhase = 'Progressing' | 'Held' | 'Failed' | 'Complete';
export type HookPhase = 'Pending' | 'Running' | 'Succeeded' | 'Failed' | 'Cancelled';

export interface RolloutLifecycleStatus {
  observedGeneration?: number;
  /** `Kind/name` of the target, for printer columns. */
  target?: string;
  conditions?: Condition[];
  rollout?: RolloutRecord;
  hooks?: HookRecord[];
}

export interface Condition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  observedGeneration?: number;
  lastTransitionTime: string;
  reason: string;
  message: string;
}

export interface RolloutRecord {
  /** This rollout (a template rolled out again later is another rollout); it names the hook Jobs. */
  id: string;
  type: RolloutType;
  /** Hash of the pod template the rollout brings (podops' identity of a revision). */
  templateHash: string;
  /** The ReplicaSet or ControllerRevision the rollout starts from and goes to, by name (to: once it exists). */
  fromRevision?: string;
  toRevision?: string;
  startTime: string;
  completionTime?: string;
  phase: RolloutPhase;
  /** Declared replicas the points are computed for. */
  replicas: number;
  /** Available replicas of the new revision, as last seen. */
  newAvailable: number;
  points: PointRecord[];
  /** `reached/points`, for printer columns. */
  pointReached: string;
  message?: string;
}

export interface PointRecord {
  /** The progress point as the hooks give it (a count, or a percentage of the declared replicas). */
  progressPoint: string;
  /** The count of new available replicas it stands for. */
  count: number;
  hooks: string[];
  reached: boolean;
  reachedTime?: string;
}

export interface HookRecord {
  name: string;
  /** The count of the point it runs at. */
  point: number;
  /** The rollout it belongs to (RolloutRecord.id). */
  rollout: string;
  templateHash: string;
  job: string;
  /** Runs of the hook for this revision: `podops rollout retry` adds one. */
  attempt: number;
  phase: HookPhase;
  startTime?: string;
  completionTime?: string;
  message?: string;
}

function specSchema(): Schema {
  return object(
    'The workload and its hooks.',
    {
      targetRef: {
        ...object(
          'The Deployment, StatefulSet or DaemonSet of this namespace whose rollouts the hooks accompany. Immutable: the workload podops holds is released only when its RolloutLifecycle goes.',
          {
            apiVersion: str('apps/v1 (default).', { default: 'apps/v1', enum: ['apps/v1'] }),
            kind: str('Deployment, StatefulSet or DaemonSet.', { enum: [...WORKLOAD_KINDS] }),
            name: str('The workload.', { minLength: 1, maxLength: 253 }),
          },
          ['kind', 'name'],
        ),
        'x-kubernetes-validations': [{ rule: 'self == oldSelf', message: TARGET_REF_IMMUTABLE, messageExpression: TARGET_REF_IMMUTABLE_EXPRESSION }],
      },
      hooks: array(
        'Jobs run at progress points of each rollout; hooks of one point run in parallel, points in order.',
        object(
          'One hook.',
          {
            name: str('Unique in the list; part of its Job names.', { minLength: 1, maxLength: MAX_HOOK_NAME_LENGTH }),
            trigger: object(
              'When the hook runs.',
              {
                type: str('ProgressAvailable (the default): when a count of new replicas is available.', { enum: [HOOK_TRIGGER_PROGRESS_AVAILABLE], default: HOOK_TRIGGER_PROGRESS_AVAILABLE }),
                progressAvailableParams: object(
                  'The progress point.',
                  { progressPoint: intOrString('New available replicas (0: before any new pod exists), or a percentage of the declared replicas (reached at the closest count at or after it).') },
                  ['progressPoint'],
                ),
              },
              ['progressAvailableParams'],
            ),
            failurePolicy: str('Abort (default): a failed hook holds the rollout; Ignore: the rollout goes on.', { enum: ['Abort', 'Ignore'], default: DEFAULT_HOOK_FAILURE_POLICY }),
            retainPolicy: str('Always (default): keep the Job (it goes with its revision); OnFailure: keep it only when it failed; Never: delete it once done.', {
              enum: ['Always', 'OnFailure', 'Never'],
              default: DEFAULT_HOOK_RETAIN_POLICY,
            }),
            jobSpec: { type: 'object', description: 'A batch/v1 JobSpec.', 'x-kubernetes-preserve-unknown-fields': true },
          },
          ['name', 'trigger', 'jobSpec'],
        ),
        MAX_HOOKS,
      ),
    },
    ['targetRef'],
  );
}

const pointSchema = object('A progress point of the rollout.', {
  progressPoint: str('As the hooks give it.'),
  count: int64('New available replicas it stands for.'),
  hooks: strings('The hooks that run at it.'),
  reached: { type: 'boolean', description: 'Reached in this rollout.' },
  reachedTime: time('When.'),
});

const hookSchema = object('A hook of the current rollout.', {
  name: str('The hook.'),
  point: int64('The count of its point.'),
  rollout: str('The rollout it belongs to.'),
  templateHash: str('The revision it runs for.'),
  job: str('Its Job.'),
  attempt: int64('Runs for this revision.'),
  phase: str('Pending, Running, Succeeded, Failed or Cancelled.'),
  startTime: time('When its Job was created.'),
  completionTime: time('When it finished.'),
  message: str('Why it failed or was cancelled.'),
});

function statusSchema(): Schema {
  return object('Where the current rollout is.', {
    observedGeneration: int64('The generation this status was computed for.'),
    target: str('Kind/name of the workload.'),
    conditions: conditions('Progressing, Held, Failed, Complete.'),
    rollout: object('The current (or last) rollout.', {
      id: str('This rollout; it names the hook Jobs.'),
      type: str('ROLLOUT, or ROLLBACK when the new template is an earlier revision\'s.'),
      templateHash: str('Identity of the new template.'),
      fromRevision: str('ReplicaSet or ControllerRevision it started from.'),
      toRevision: str('ReplicaSet or ControllerRevision it goes to.'),
      startTime: time('When the template changed.'),
      completionTime: time('When every point and hook was done.'),
      phase: str('Progressing, Held, Failed or Complete.'),
      replicas: int64('Declared replicas.'),
      newAvailable: int64('Available replicas of the new revision.'),
      points: array('The progress points, in order.', pointSchema),
      pointReached: str('reached/points.'),
      message: str('What it waits for.'),
    }),
    hooks: array('The hooks of the current rollout.', hookSchema),
  });
}

const ROLLOUT_LIFECYCLE: CustomResource = {
  group: PTR_GROUP,
  version: PTR_VERSION,
  names: { plural: RL_PLURAL, singular: RL_SINGULAR, kind: RL_KIND, listKind: RL_LIST_KIND, shortNames: [RL_SHORT_NAME] },
  description: 'RolloutLifecycle runs Jobs at progress points of the rollouts of one Deployment, StatefulSet or DaemonSet.',
  spec: specSchema(),
  status: statusSchema(),
  printerColumns: [
    { name: 'Target', type: 'string', jsonPath: '.status.target', description: 'Kind/name of the workload.' },
    { name: 'Type', type: 'string', jsonPath: '.status.rollout.type', description: 'ROLLOUT or ROLLBACK.' },
    { name: 'To-Revision', type: 'string', jsonPath: '.status.rollout.toRevision', description: 'The revision the rollout goes to.' },
    { name: 'Point', type: 'string', jsonPath: '.status.rollout.pointReached', description: 'Points reached of all.' },
    { name: 'Phase', type: 'string', jsonPath: '.status.rollout.phase', description: 'Progressing, Held, Failed or Complete.' },
  ],
};

export const rolloutLifecycleSchema = (): Schema => resourceSchema(ROLLOUT_LIFECYCLE);

/** The apiextensions.k8s.io/v1 CustomResourceDefinition of RolloutLifecycle. */
export const rolloutLifecycleCRD = (): Record<string, unknown> => customResourceDefinition(ROLLOUT_LIFECYCLE);
