// The webhook rule, pure (Kuperator's behaviour, docs/podtransitionrule.md): it reads the rule's task states from the previous
// status, the poll manager's results and the state of the rule's first request (all passed in), decides
// every subject, and says which first request to start and which poll tasks to start or forget. The
// first request runs in the background (webhook/call-manager.ts): its pods wait until a later evaluation
// is given the answer. A rejection or a failed call stands for REJECTED_RETRY_MS, then the pods are asked
// again; any other answer is turned into status (passes, a poll task) by the evaluation that reads it.

import type { RuleState, TaskInfo, TransitionRule, WebhookRequest, WebhookResponse } from '../api/podtransitionrule.ts';
import type { TransitionStage } from '../api/protocol.ts';
import { millisFromNanos, nanosFromMillis, rfc3339FromNanos, type Nanos } from '../lifecycle/time.ts';
import { effectivePoll, failurePolicyOf } from './defaults.ts';
import { ParameterError } from './parameters.ts';
import type { RuleContext, RuleResult } from './result.ts';
import { buildWebhookRequest, pollUrl, responseTaskId, wantsPolling } from './wire.ts';

/** Finished tasks stay in `history` this long after their last poll. */
export const HISTORY_RETENTION_MS = 10 * 60 * 1000;
/** A `success: false` answer (as upstream's requeue) or a failed call (under Fail) stands this long; then the pods are asked again. */
export const REJECTED_RETRY_MS = 5000;
/** Message of a task whose failure failurePolicy Ignore let pass. */
export const IGNORED_PREFIX = 'ignored by failurePolicy Ignore: ';

/** What the poll manager knows of a task (its in-memory state; lost on restart). */
export interface PollResult {
  /** Polls done so far. */
  count: number;
  /** No more polls: approved all, `stop` answered, or timed out. */
  stopped: boolean;
  timedOut: boolean;
  /** `success && finished` answered: every pod of the task is approved. */
  approveAll: boolean;
  /** Pods approved by some poll (only grows). */
  approved: ReadonlySet<string>;
  lastMessage: string;
  /** The error of the last poll, when it failed (transport, status, body). */
  lastError?: string;
  lastQueryTime?: Nanos;
}

/** Reads the poll manager's result of a task of a rule (`<ns>/<ptr>/<rule>`). */
export type PollResults = (ruleKey: string, taskId: string) => PollResult | undefined;

/** A poll task to register with the poll manager. */
export interface PollTaskSpec {
  namespace: string;
  /** The PodTransitionRule, to requeue after each poll. */
  name: string;
  rule: string;
  taskId: string;
  /** The full poll URL, query included. */
  url: string;
  caBundle: string;
  intervalSeconds: number;
  timeoutSeconds: number;
}

export interface PollTaskRef {
  ruleKey: string;
  taskId: string;
}

/** A first request to start. */
export interface WebhookCall {
  stage: TransitionStage;
  /** Position of the rule in spec.rules (identifies it even when names repeat). */
  ruleIndex: number;
  ruleKey: string;
  url: string;
  caBundle: string;
  /** Sorted pod names of the request. */
  pods: string[];
  request: WebhookRequest;
}

/** The parsed answer to a first request, or why there is none. */
export type WebhookAnswer = { response: WebhookResponse } | { error: string };

/** What became of a rule's first request: still in flight (`pending`), or its answer, received at `answeredAt` (default: now). */
export type WebhookCallOutcome = { traceId: string; pods: readonly string[] } & ({ pending: true } | ({ answeredAt?: Nanos } & WebhookAnswer));

/** Pods let through by failurePolicy Ignore despite a failed call: the controller emits an event. */
export interface IgnoredFailure {
  stage: TransitionStage;
  rule: string;
  pods: string[];
  error: string;
}

export interface WebhookRuleInput {
  rule: TransitionRule;
  ruleIndex: number;
  stage: TransitionStage;
  /** Name of the PodTransitionRule. */
  ptrName: string;
  context: RuleContext;
  previous: RuleState | undefined;
  now: Nanos;
  polls: PollResults;
  /** The rule's first request, if one is in flight or answered. */
  outcome: WebhookCallOutcome | undefined;
  newTraceId: () => string;
}

export interface WebhookRuleResult extends RuleResult {
  ruleState: RuleState;
  /** A first request to start (it replaces the rule's answered call, if any). */
  call?: WebhookCall;
  /** The answered call stands (a rejection or failure within its retry delay): keep it for the next evaluations. */
  keepAnswer: boolean;
  /** Subjects rejected only while they wait for an answer (not a decision). */
  waiting: Set<string>;
  startPolls: PollTaskSpec[];
  forgetPolls: PollTaskRef[];
  ignored: IgnoredFailure[];
}

const sorted = (names: Iterable<string>): string[] => [...names].sort();
const nanosOf = (time: string | undefined): Nanos | undefined => {
  const ms = time === undefined ? NaN : Date.parse(time);
  return Number.isNaN(ms) ? undefined : nanosFromMillis(ms);
};

export function webhookRule(input: WebhookRuleInput): WebhookRuleResult {
  const { rule, context, now } = input;
  const webhook = rule.webhook ?? {};
  const key = context.ruleKey;
  const poll = effectivePoll(webhook.clientConfig?.poll);
  const ignoreFailures = failurePolicyOf(webhook) === 'Ignore';
  const out: WebhookRuleResult = {
    passed: new Set(),
    rejected: new Map(),
    ruleState: { name: context.ruleName },
    keepAnswer: false,
    waiting: new Set(),
    startPolls: [],
    forgetPolls: [],
    ignored: [],
  };
  const ignore = (pods: readonly string[], error: string): void => {
    for (const pod of pods) out.passed.add(pod);
    if (pods.length > 0) out.ignored.push({ stage: input.stage, rule: context.ruleName, pods: [...pods], error });
  };

  const effective = new Set(context.subjects);
  for (const name of context.subjects) {
    if (context.passedBefore(name)) {
      out.passed.add(name);
      effective.delete(name);
    }
  }

  const previous = input.previous?.webhookStatus ?? {};
  const history = new Map<string, TaskInfo>();
  for (const info of previous.history ?? []) {
    const last = nanosOf(info.lastTime);
    if (last !== undefined && millisFromNanos(now - last) < HISTORY_RETENTION_MS) history.set(info.taskId ?? '', info);
  }
  const tasks: TaskInfo[] = [];
  const tracing = new Set<string>();
  const forget = (taskId: string): void => {
    out.forgetPolls.push({ ruleKey: key, taskId });
  };

  for (const task of previous.taskStates ?? []) {
    const taskId = task.taskId ?? '';
    const current = (task.processing ?? []).filter((name) => effective.has(name));
    if (current.length === 0 || poll === undefined) {
      history.set(taskId, task);
      forget(taskId);
      continue;
    }
    for (const name of task.approved ?? []) if (effective.has(name)) out.passed.add(name);
    for (const name of current) tracing.add(name);
    const result = input.polls(key, taskId);
    if (result === undefined) {
      // Restarted: the in-memory result is gone. Poll the task again and keep tracking it.
      out.startPolls.push(pollSpec(input, taskId));
      for (const name of current) out.rejected.set(name, `Task ${key} polling result not found, try polling again, ${taskId}`);
      tasks.push(task);
      continue;
    }
    if (result.approveAll) {
      for (const name of current) out.passed.add(name);
      history.set(taskId, refreshTask(task, result, task.processing ?? []));
      forget(taskId);
      continue;
    }
    if (ignoreFailures && (result.lastError !== undefined || result.timedOut)) {
      const error = result.lastError ?? result.lastMessage;
      for (const name of current) if (result.approved.has(name)) out.passed.add(name);
      ignore(current.filter((name) => !result.approved.has(name)), error);
      history.set(taskId, { ...refreshTask(task, result, [...result.approved]), message: `${IGNORED_PREFIX}${error}` });
      forget(taskId);
      continue;
    }
    const error = result.lastError !== undefined ? `polling task ${taskId} error, ${result.lastError}` : '';
    const refreshed = refreshTask(task, result, [...result.approved]);
    const state = result.stopped ? 'stopped' : 'is running';
    const reason = `Not approved by webhook ${key}, polling task ${taskId} ${state} ${result.lastMessage} ${error}`;
    for (const name of current) {
      if (result.approved.has(name)) {
        out.passed.add(name);
      } else {
        out.rejected.set(name, reason);
        // A stopped task's unapproved pods are asked again in this evaluation.
        if (result.stopped) tracing.delete(name);
      }
    }
    if (result.stopped) {
      history.set(taskId, refreshed);
      forget(taskId);
    } else {
      tasks.push(refreshed);
    }
  }

  for (const name of [...tracing, ...out.passed]) effective.delete(name);
  const finish = (): WebhookRuleResult => {
    out.ruleState = {
      name: context.ruleName,
      webhookStatus: {
        ...(tasks.length > 0 ? { taskStates: tasks } : {}),
        ...(history.size > 0 ? { history: [...history.values()] } : {}),
      },
    };
    return out;
  };
  if (effective.size === 0) return finish();

  const pods = sorted(effective);
  const outcome = input.outcome;
  const asked = new Set(outcome?.pods ?? []);
  const ask = (subjects: string[]): void => {
    const traceId = input.newTraceId();
    try {
      const request = buildWebhookRequest(rule, key, subjects, context.targets, traceId);
      const url = webhook.clientConfig?.url ?? '';
      out.call = { stage: input.stage, ruleIndex: input.ruleIndex, ruleKey: key, url, caBundle: webhook.clientConfig?.caBundle ?? '', pods: subjects, request };
      for (const name of subjects) {
        out.rejected.set(name, `Waiting for webhook ${key} response, traceId ${traceId}`);
        out.waiting.add(name);
      }
    } catch (err) {
      if (!(err instanceof ParameterError)) throw err;
      const reason = `Fail to do webhook request ${key}, ${err.message}, traceId ${traceId}`;
      for (const name of subjects) out.rejected.set(name, reason);
      out.error = reason;
    }
  };
  if (outcome === undefined) {
    ask(pods);
    return finish();
  }
  if ('pending' in outcome) {
    // One request per rule at a time: pods that came after it are asked once it is answered.
    for (const name of pods) {
      const reason = asked.has(name) ? `Waiting for webhook ${key} response, traceId ${outcome.traceId}` : `Waiting for webhook ${key} to answer traceId ${outcome.traceId} before asking`;
      out.rejected.set(name, reason);
      out.waiting.add(name);
    }
    return finish();
  }
  const answered = pods.filter((name) => asked.has(name));
  const unasked = pods.filter((name) => !asked.has(name));
  if (standsForRetry(outcome, ignoreFailures, poll !== undefined)) {
    const dueInMs = millisFromNanos((outcome.answeredAt ?? now) - now) + REJECTED_RETRY_MS;
    // Due, or new pods to ask: one new request for every subject replaces the answer.
    if (dueInMs <= 0 || unasked.length > 0) {
      ask(pods);
      return finish();
    }
    out.keepAnswer = true;
    out.intervalMs = Math.min(dueInMs, REJECTED_RETRY_MS);
  } else if (unasked.length > 0) {
    ask(unasked);
  }
  applyAnswer(input, outcome, answered, out, tasks, ignoreFailures ? ignore : undefined);
  return finish();
}

/** A rejection, or a failure the failurePolicy does not ignore: it stands until its retry, then the pods are asked again. */
function standsForRetry(answer: WebhookAnswer, ignoreFailures: boolean, canPoll: boolean): boolean {
  if ('error' in answer) return !ignoreFailures;
  const { response } = answer;
  if (!response.success) return true;
  if (!wantsPolling(response)) return false;
  return responseTaskId(response) === '' ? !ignoreFailures : !canPoll;
}

/** Decides the answered `pods` of the rule by the answer to their request. */
function applyAnswer(
  input: WebhookRuleInput,
  answer: { traceId: string } & WebhookAnswer,
  pods: readonly string[],
  out: WebhookRuleResult,
  tasks: TaskInfo[],
  /** Under failurePolicy Ignore: lets failed pods pass. */
  ignore: ((pods: readonly string[], error: string) => void) | undefined,
): void {
  if (pods.length === 0) return;
  const key = input.context.ruleKey;
  const { traceId } = answer;
  const failAll = (reason: string): void => {
    for (const name of pods) out.rejected.set(name, reason);
    out.error = reason;
  };
  if ('error' in answer) {
    if (ignore) ignore(pods, answer.error);
    else failAll(`Fail to do webhook request ${key}, ${answer.error}, traceId ${traceId}`);
    return;
  }
  const response = answer.response;
  const finished = new Set(response.finishedNames ?? []);
  const approved = pods.filter((name) => finished.has(name));
  const processing = pods.filter((name) => !finished.has(name));
  const taskId = responseTaskId(response);
  if (!response.success) {
    for (const name of approved) out.passed.add(name);
    for (const name of processing) out.rejected.set(name, `Webhook check ${key} rejected, traceId ${traceId}, taskId ${taskId}, msg: ${response.message}`);
    return;
  }
  if (!wantsPolling(response)) {
    for (const name of pods) out.passed.add(name);
    return;
  }
  if (taskId === '') {
    const reason = `Invalid empty taskID, request trace ${traceId}`;
    if (ignore) ignore(pods, reason);
    else failAll(reason);
    return;
  }
  if (effectivePoll(input.rule.webhook?.clientConfig?.poll) === undefined) {
    failAll(`Fail to get ${key} polling config , null polling config in rule ${key}`);
    return;
  }
  for (const name of approved) out.passed.add(name);
  if (processing.length > 0) {
    out.startPolls.push(pollSpec(input, taskId));
    tasks.push({ taskId, processing, approved, beginTime: rfc3339FromNanos(input.now), message: response.message });
    for (const name of processing) {
      out.rejected.set(name, `Polling task ${key} initialized, will polling by taskId ${taskId}, msg: ${response.message}`);
    }
  }
}

function pollSpec(input: WebhookRuleInput, taskId: string): PollTaskSpec {
  const poll = effectivePoll(input.rule.webhook?.clientConfig?.poll);
  if (poll === undefined) throw new Error(`rule ${input.context.ruleKey} has no poll configuration`);
  return {
    namespace: input.context.namespace,
    name: input.ptrName,
    rule: input.context.ruleName,
    taskId,
    url: pollUrl(poll, taskId),
    caBundle: poll.caBundle,
    intervalSeconds: poll.intervalSeconds,
    timeoutSeconds: poll.timeoutSeconds,
  };
}

/**
 * The task after a poll result: `approved` grows by the newly approved pods of the task, `processing`
 * shrinks, `lastTime` is the last poll when it is after the task began (upstream's recordTaskInfo).
 * Upstream overwrites `processing` with the approved list when a stopped task moves to history; here
 * the pods still unapproved stay in `processing`.
 */
function refreshTask(task: TaskInfo, result: PollResult, newlyApproved: readonly string[]): TaskInfo {
  const processing = new Set(task.processing ?? []);
  const approved = new Set(task.approved ?? []);
  for (const name of newlyApproved) {
    if (processing.has(name)) {
      approved.add(name);
      processing.delete(name);
    }
  }
  const begin = nanosOf(task.beginTime) ?? 0n;
  const last = result.lastQueryTime !== undefined && result.lastQueryTime > begin ? rfc3339FromNanos(result.lastQueryTime) : undefined;
  return {
    taskId: task.taskId ?? '',
    ...(processing.size > 0 ? { processing: sorted(processing) } : {}),
    ...(approved.size > 0 ? { approved: sorted(approved) } : {}),
    ...(task.beginTime !== undefined ? { beginTime: task.beginTime } : {}),
    ...(last !== undefined ? { lastTime: last } : {}),
    message: result.lastMessage,
  };
}
