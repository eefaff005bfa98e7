// POST pods/NAME/eviction, as the pod registry's EvictionREST serves it: the Eviction (policy/v1, or
// v1beta1) is admitted as a CREATE of pods/eviction; a pod that is not running (Pending, Succeeded,
// Failed, or already being deleted) is deleted at once; otherwise the one PodDisruptionBudget that
// selects it must allow a disruption, which the eviction takes from its status before deleting the
// pod (429 when none is left or the budget's status is older than its spec; a status write that
// conflicts is tried again, as EvictionsRetry does). The deletion is the registry's own: a
// DisruptionTarget condition, then a DELETE that passes no admission of its own.

import { badRequestStatus, conflictStatus, failure, notFoundStatus, StatusError, type Status } from '../errors.ts';
import { isJsonObject, keyOf, type JsonObject, type KubeObject } from '../meta/object.ts';
import { formatTimestamp } from '../meta/time.ts';
import { budgetSelects, readBudgetStatus, renderBudgetStatus, updateDisruptionAllowedCondition, type BudgetStatus } from '../policy/budget-status.ts';
import { inEncodedOrder } from './encoded-order.ts';
import { StorageError } from '../storage/store.ts';
import type { ServerContext } from './context.ts';
import { deleteOne } from './delete.ts';
import { LocalClient } from './local-client.ts';
import { parseDeleteOptions, parseWriteOptions, type DeleteOptions } from './options.ts';
import type { ApiRequest, StatusResult } from './request.ts';
import { requestKey } from './storage-key.ts';
import { writeOrigin } from './write-origin.ts';

const evictionKind = { group: 'policy', version: 'v1', kind: 'Eviction' };
const pdbResource = { group: 'policy', version: 'v1', resource: 'poddisruptionbudgets' };
/** MaxDisruptedPodSize: evictions the disruption controller has not confirmed yet. */
const maxDisruptedPods = 2000;

/** The kube-apiserver's own client, as the registry updates a budget's status through it. */
const loopback = { username: 'system:apiserver', groups: ['system:masters', 'system:authenticated'] };

function decodeEviction(body: unknown): KubeObject {
  if (!isJsonObject(body)) throw new StatusError(badRequestStatus('the object provided is unrecognized (must be of type Eviction)'));
  const kind = typeof body.kind === 'string' && body.kind ? body.kind : 'Eviction';
  const apiVersion = typeof body.apiVersion === 'string' && body.apiVersion ? body.apiVersion : 'policy/v1';
  if (kind !== 'Eviction' || !['policy/v1', 'policy/v1beta1'].includes(apiVersion)) {
    const version = apiVersion.includes('/') ? apiVersion.slice(apiVersion.indexOf('/') + 1) : apiVersion;
    throw new StatusError(badRequestStatus(`${kind} in version "${version}" cannot be handled as a Eviction: converting (${version}.${kind}) to (policy.Eviction): unknown conversion`));
  }
  return { ...body, apiVersion, kind, metadata: isJsonObject(body.metadata) ? { ...body.metadata } : {} };
}

/** The budget's 429: Details carry a DisruptionBudget cause, and a Retry-After when one is suggested. */
function tooManyRequests(cause: string, retryAfterSeconds: number): StatusError {
  const details = { causes: [{ reason: 'DisruptionBudget', message: cause }], ...(retryAfterSeconds ? { retryAfterSeconds } : {}) };
  return new StatusError(failure(429, 'TooManyRequests', "Cannot evict pod as it would violate the pod's disruption budget.", details));
}

const stillProcessing = (pdb: string): StatusError => tooManyRequests(`The disruption budget ${pdb} is still being processed by the server.`, 10);

const statusOf = (o: KubeObject): JsonObject => (isJsonObject(o.status) ? o.status : {});
const isConflict = (err: unknown): boolean => err instanceof StatusError && err.status.code === 409;

/** EvictionsRetry: 20 attempts, 500 ms apart (plus up to 10% jitter), for writes that conflict. */
const retryAttempts = 20;
const retryPause = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 500 * (1 + Math.random() * 0.1)));

/** canIgnorePDB: a pod whose eviction cannot disrupt anything; the budget is not consulted. */
function canIgnoreBudget(pod: KubeObject): boolean {
  return ['Succeeded', 'Failed', 'Pending'].includes(String(statusOf(pod).phase)) || Boolean(pod.metadata.deletionTimestamp);
}

/** shouldEnforceResourceVersion: the deletion is guarded by the version read unless the pod is terminal or going. */
const shouldEnforceResourceVersion = (pod: KubeObject): boolean =>
  !['Succeeded', 'Failed'].includes(String(statusOf(pod).phase)) && !pod.metadata.deletionTimestamp;

function isReady(pod: KubeObject): boolean {
  const conditions = Array.isArray(statusOf(pod).conditions) ? (statusOf(pod).conditions as unknown[]).filter(isJsonObject) : [];
  return conditions.some((c) => c.type === 'Ready' && c.status === 'True');
}

/** The budgets of the pod's namespace that cover it. */
function budgetsOf(ctx: ServerContext, pod: KubeObject): KubeObject[] {
  return ctx.store
    .list('poddisruptionbudgets.policy', `${pod.metadata.namespace}/`)
    .map((e) => e.object)
    .filter((pdb) => budgetSelects(pdb, pod.metadata.labels));
}

/** checkAndDecrement: takes one allowed disruption from the budget's status, or refuses. */
async function checkAndDecrement(ctx: ServerContext, pdb: KubeObject, podName: string, dryRun: boolean): Promise<void> {
  const name = pdb.metadata.name ?? '';
  const status = readBudgetStatus(pdb);
  if (status.observedGeneration < (pdb.metadata.generation ?? 0)) throw stillProcessing(name);
  // NewForbidden of policy.Resource("poddisruptionbudget"): the singular resource, as the registry names it.
  const forbidden = (why: string): StatusError =>
    new StatusError(failure(403, 'Forbidden', `poddisruptionbudget.policy "${name}" is forbidden: ${why}`, { name, group: 'policy', kind: 'poddisruptionbudget' }));
  if (status.disruptionsAllowed < 0) throw forbidden('pdb disruptions allowed is negative');
  if (Object.keys(status.disruptedPods).length > maxDisruptedPods) {
    throw forbidden('DisruptedPods map too big - too many evictions not confirmed by PDB controller');
  }
  if (status.disruptionsAllowed === 0) {
    throw tooManyRequests(`The disruption budget ${name} needs ${status.desiredHealthy} healthy pods and has ${status.currentHealthy} currently`, 0);
  }
  if (dryRun) return;
  const now = ctx.clock();
  const updated: BudgetStatus = { ...status, disruptionsAllowed: status.disruptionsAllowed - 1, disruptedPods: { ...status.disruptedPods, [podName]: formatTimestamp(now) } };
  if (updated.disruptionsAllowed === 0) updated.conditions = updateDisruptionAllowedCondition(updated, now);
  const client = new LocalClient(ctx, { user: loopback, userAgent: 'kube-apiserver/v1.32.0 (linux/amd64) kubernetes/0000000' });
  await client.update(pdbResource, { ...pdb, status: renderBudgetStatus(updated) }, { namespace: pdb.metadata.namespace, subresource: 'status' });
}

/** RetryOnConflict around checkAndDecrement: a conflicting status write reads the budget again. */
async function takeDisruption(ctx: ServerContext, budget: KubeObject, podName: string, dryRun: boolean): Promise<void> {
  let pdb = budget;
  for (let attempt = 1; ; attempt++) {
    try {
      await checkAndDecrement(ctx, pdb, podName, dryRun);
      return;
    } catch (err) {
      if (!isConflict(err) || attempt >= retryAttempts) throw err;
    }
    await retryPause();
    const fresh = ctx.store.get('poddisruptionbudgets.policy', keyOf(budget))?.object;
    if (!fresh) throw new StatusError(notFoundStatus({ resource: 'poddisruptionbudgets', group: 'policy', name: budget.metadata.name ?? '' }));
    pdb = fresh;
  }
}

/** The registry's deletion: a DisruptionTarget condition (not on a dry run), then the delete itself. */
async function evict(ctx: ServerContext, req: ApiRequest, name: string, options: DeleteOptions): Promise<void> {
  const podsReq: ApiRequest = { ...req, subresource: undefined };
  if (!options.dryRun) {
    const key = requestKey(req, name);
    for (;;) {
      const entry = ctx.store.get('pods', key);
      if (!entry) break;
      const pod = entry.object;
      const { uid, resourceVersion } = options.preconditions;
      if (uid && uid !== pod.metadata.uid) {
        throw new StatusError(conflictStatus({ resource: 'Pod', group: '', name }, `the UID in the precondition (${uid}) does not match the UID in record (${pod.metadata.uid ?? ''}). The object might have been deleted and then recreated`));
      }
      if (resourceVersion && resourceVersion !== pod.metadata.resourceVersion) {
        throw new StatusError(conflictStatus({ resource: 'Pod', group: '', name }, `the ResourceVersion in the precondition (${resourceVersion}) does not match the ResourceVersion in record (${pod.metadata.resourceVersion ?? ''}). The object might have been modified`));
      }
      const status = statusOf(pod);
      const conditions = Array.isArray(status.conditions) ? status.conditions.filter(isJsonObject) : [];
      const previous = conditions.find((c) => c.type === 'DisruptionTarget');
      const condition = {
        type: 'DisruptionTarget',
        status: 'True',
        lastProbeTime: null,
        lastTransitionTime: previous?.status === 'True' ? previous.lastTransitionTime : formatTimestamp(ctx.clock()),
        reason: 'EvictionByEvictionAPI',
        message: 'Eviction API: evicting',
      };
      // The metadata is the stored pod's: the store writes the new version into a copy of it.
      const updated = inEncodedOrder(
        { ...pod, metadata: { ...pod.metadata }, status: { ...status, conditions: previous ? conditions.map((c) => (c === previous ? condition : c)) : [...conditions, condition] } },
        false,
      );
      try {
        const stored = ctx.store.update('pods', key, updated, writeOrigin(req), entry.rv);
        // The condition's own write moved the version a precondition named.
        if (resourceVersion) options = { ...options, preconditions: { ...options.preconditions, resourceVersion: stored.object.metadata.resourceVersion } };
        break;
      } catch (err) {
        if (!(err instanceof StorageError && err.code === 'conflict')) throw err;
      }
    }
  }
  await deleteOne(ctx, podsReq, name, options, false);
}

/** propagateDryRun: the Eviction's delete options take the request's dryRun; both given must agree. */
function deleteOptionsOf(eviction: KubeObject, requestDryRun: boolean): DeleteOptions {
  const requested = isJsonObject(eviction.deleteOptions) ? eviction.deleteOptions : {};
  const given = Array.isArray(requested.dryRun) ? requested.dryRun.map(String) : [];
  if (given.length && requestDryRun && !(given.length === 1 && given[0] === 'All')) {
    // A plain error in the registry: the handler answers 500 with reason Unknown.
    throw new StatusError(failure(500, 'Unknown', `Non-matching dry-run options in request and content: [All] and [${given.join(' ')}]`, undefined));
  }
  return parseDeleteOptions(new URLSearchParams(), given.length || !requestDryRun ? requested : { ...requested, dryRun: ['All'] });
}

const withResourceVersion = (options: DeleteOptions, pod: KubeObject): DeleteOptions => ({
  ...options,
  preconditions: { ...options.preconditions, resourceVersion: pod.metadata.resourceVersion },
});

export async function createEviction(ctx: ServerContext, req: ApiRequest): Promise<StatusResult> {
  const createOptions = parseWriteOptions(req.query, 'CreateOptions');
  const eviction = decodeEviction(req.body);
  const name = req.name ?? '';
  const given = eviction.metadata.namespace;
  if (given && given !== req.namespace) throw new StatusError(badRequestStatus('the namespace of the provided object does not match the namespace sent on the request'));
  eviction.metadata.namespace = req.namespace;
  if ((eviction.metadata.name ?? '') !== name) throw new StatusError(badRequestStatus('name in URL does not match name in Eviction object'));
  const options = deleteOptionsOf(eviction, createOptions.dryRun);

  const attributes = {
    operation: 'CREATE' as const,
    kind: evictionKind,
    resource: { group: '', version: 'v1', resource: 'pods' },
    subresource: 'eviction',
    namespace: req.namespace,
    name,
    object: eviction,
    oldObject: undefined,
    dryRun: options.dryRun,
    options: { kind: 'CreateOptions', apiVersion: 'meta.k8s.io/v1', ...(options.dryRun ? { dryRun: ['All'] } : {}) },
    userInfo: req.user,
  };
  const warnings = await ctx.admission.admit(attributes);
  warnings.push(...(await ctx.admission.validate(attributes)));

  const success = (): StatusResult => ({ type: 'status', code: 201, status: { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 }, warnings });
  const rvGiven = Boolean(options.preconditions.resourceVersion);
  // A pod whose eviction cannot disrupt anything is deleted at once; a conflict reads it again.
  let pod: KubeObject;
  for (let attempt = 1; ; attempt++) {
    const current = ctx.store.get('pods', requestKey(req, name))?.object;
    if (!current) throw new StatusError(notFoundStatus({ resource: 'pods', group: '', name }));
    pod = current;
    if (!canIgnoreBudget(pod)) break;
    try {
      await evict(ctx, req, name, shouldEnforceResourceVersion(pod) && !rvGiven ? withResourceVersion(options, pod) : options);
      return success();
    } catch (err) {
      if (rvGiven || !isConflict(err) || attempt >= retryAttempts) throw err;
    }
    await retryPause();
  }
  const budgets = budgetsOf(ctx, pod);
  if (budgets.length > 1) {
    const status: Status = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.', code: 500 };
    return { type: 'status', code: 500, status, warnings };
  }
  // An unready pod of a budget that is not disrupted (or allows it always) goes without taking a disruption,
  // guarded by the version read: should it become ready meanwhile, the client is asked to retry.
  let guard = false;
  const budget = budgets[0];
  if (budget) {
    const spec = isJsonObject(budget.spec) ? budget.spec : {};
    const status = readBudgetStatus(budget);
    const unhealthyMayGo = spec.unhealthyPodEvictionPolicy === 'AlwaysAllow' || (status.currentHealthy >= status.desiredHealthy && status.desiredHealthy > 0);
    if (!isReady(pod) && unhealthyMayGo) guard = true;
    else await takeDisruption(ctx, budget, name, options.dryRun);
  }
  try {
    await evict(ctx, req, name, guard ? withResourceVersion(options, pod) : options);
  } catch (err) {
    if (guard && !rvGiven && isConflict(err)) throw stillProcessing(budget?.metadata.name ?? '');
    throw err;
  }
  return success();
}
