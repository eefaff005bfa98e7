// The request pipeline's entry: routes a decoded request to its handler by verb and subresource,
// and counts every request for /metrics once it is answered.

import { failure, StatusError } from '../errors.ts';
import { apiVersionOf } from '../registry/types.ts';
import { createAccessReview } from './access-review.ts';
import { createBinding } from './binding.ts';
import type { ServerContext } from './context.ts';
import { createObject, updateObject } from './create-update.ts';
import { deleteOne } from './delete.ts';
import { parseDeleteOptions, parseListOptions } from './options.ts';
import { patchObject } from './patch.ts';
import { createEviction } from './eviction.ts';
import { connectPod, connectSubresources } from './pod-connect.ts';
import { podLogs } from './pod-logs.ts';
import { getObject, listObjects, toView } from './read.ts';
import type { ApiRequest, ApiResult, ListResult, WatchSink } from './request.ts';
import { requestLabels } from './metrics.ts';
import { getScale, writeScale } from './scale.ts';
import { deletedStatus, notFoundPath } from './status.ts';
import { watchObjects } from './watch.ts';
import { objectFilter } from './selection.ts';
import { notFoundStatus } from '../errors.ts';
import { targetOf } from './write.ts';

const methodNotAllowed = (): StatusError =>
  new StatusError(failure(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource', {}));

/** Subresources each resource serves; anything else is 404. */
function checkSubresource(req: ApiRequest): void {
  const { def, subresource } = req;
  if (!subresource) return;
  if (!req.name) throw notFoundPath();
  if (subresource === 'status' && def.strategy.hasStatusSubresource) return;
  if (subresource === 'scale' && def.scale) return;
  if (subresource === 'finalize' && def.strategy.prepareForFinalizeUpdate) return;
  if (def.subresources.some((s) => s.name === subresource)) return;
  // A custom resource without the subresource answers as if the object were missing.
  if (def.custom) throw new StatusError(notFoundStatus(targetOf(def, req.name)));
  throw notFoundPath();
}

export async function handleRequest(ctx: ServerContext, req: ApiRequest): Promise<ApiResult> {
  // A subresource the resource does not serve is answered uncounted, as by kube-apiserver (which has no route
  // for it): the path is the client's text, and a series per distinct one would grow /metrics without bound.
  checkSubresource(req);
  const count = (code: number): void =>
    ctx.requests.record(
      requestLabels({ ...req, dryRun: req.query.get('dryRun') === 'All', group: req.def.group, version: req.def.version, resource: req.def.resource }, code),
    );
  let result: ApiResult;
  try {
    result = await answer(ctx, req);
  } catch (err) {
    count(err instanceof StatusError ? err.status.code : 500);
    throw err;
  }
  if (result.type !== 'watch') {
    count(result.type === 'stream' ? (result.start ? 200 : 204) : result.code);
    return result;
  }
  // A watch counts once it ends, whichever side ends it.
  const { start } = result;
  return {
    ...result,
    start(sink: WatchSink) {
      let counted = false;
      const ended = (): void => {
        if (!counted) count(200);
        counted = true;
      };
      const stop = start({ send: (event) => sink.send(event), end: () => (ended(), sink.end()) });
      return () => (ended(), stop());
    },
  };
}

async function answer(ctx: ServerContext, req: ApiRequest): Promise<ApiResult> {
  const result = await route(ctx, req);
  // Writes answer with the stored object; a view of another storage shape (events.k8s.io) converts it.
  const { toExternal, storageApiVersion } = req.def;
  if (toExternal && result.type === 'object' && result.object.apiVersion === storageApiVersion && req.subresource !== 'scale') {
    return { type: 'object', code: result.code, object: toExternal(result.object), warnings: result.warnings };
  }
  return result;
}

async function route(ctx: ServerContext, req: ApiRequest): Promise<ApiResult> {
  const sub = req.subresource;
  const handled = req.def.subresources.find((s) => s.name === sub);
  if (handled && !handled.verbs.includes(req.verb)) throw methodNotAllowed();
  if (sub && connectSubresources.has(sub)) return connectPod(ctx, req);
  switch (req.verb) {
    case 'get':
      if (sub === 'log') return podLogs(ctx, req);
      if (sub === 'finalize') throw methodNotAllowed();
      return sub === 'scale' ? getScale(ctx, req) : getObject(ctx, req);
    case 'list':
      return listObjects(ctx, req);
    case 'watch':
      return watchObjects(ctx, req);
    case 'create':
      if (sub === 'binding') return createBinding(ctx, req);
      if (sub === 'eviction') return createEviction(ctx, req);
      if (sub || req.name) throw methodNotAllowed();
      // authorization.k8s.io holds questions, not objects: each create is answered at once, nothing is stored.
      if (req.def.group === 'authorization.k8s.io') return createAccessReview(ctx, req);
      return createObject(ctx, req);
    case 'update':
      if (sub === 'scale') return writeScale(ctx, req, 'update');
      return updateObject(ctx, req);
    case 'patch':
      if (sub === 'scale') return writeScale(ctx, req, 'patch');
      if (sub === 'finalize') throw methodNotAllowed();
      return patchObject(ctx, req);
    case 'delete':
      if (sub) throw methodNotAllowed();
      return deleteObject(ctx, req);
    case 'deletecollection':
      if (!req.def.verbs.includes('deletecollection')) throw methodNotAllowed();
      return deleteCollection(ctx, req);
  }
}

async function deleteObject(ctx: ServerContext, req: ApiRequest): Promise<ApiResult> {
  const options = parseDeleteOptions(req.query, req.body);
  const name = req.name ?? '';
  const outcome = await deleteOne(ctx, req, name, options);
  const { def } = req;
  const shown = def.toExternal ? def.toExternal(outcome.object) : outcome.object;
  const { warnings } = outcome;
  if (outcome.state === 'pending') {
    return { type: 'object', code: options.orphanDependents === false ? 202 : 200, object: shown, warnings };
  }
  if (def.deleteReturnsObject) return { type: 'object', code: 200, object: shown, warnings };
  return { type: 'status', code: 200, status: deletedStatus(def, name, outcome.object.metadata.uid), warnings };
}

/** DELETE on a collection: deletes every selected object and answers the list as it was. */
async function deleteCollection(ctx: ServerContext, req: ApiRequest): Promise<ListResult> {
  const { def } = req;
  const options = parseDeleteOptions(req.query, req.body);
  const list = parseListOptions(req.query, false);
  const matches = objectFilter(def, list.labelSelector, list.fieldSelector);
  const prefix = def.namespaced && req.namespace ? `${req.namespace}/` : undefined;
  const selected = ctx.store.list(def.storageKey, prefix).filter((e) => !matches || matches(e.object));
  const rv = ctx.store.currentRv;
  const warnings: string[] = [];
  for (const entry of selected) {
    try {
      warnings.push(...(await deleteOne(ctx, { ...req, namespace: entry.object.metadata.namespace }, entry.object.metadata.name ?? '', options)).warnings);
    } catch (err) {
      if (!(err instanceof StatusError && err.status.code === 404)) throw err;
    }
  }
  return {
    type: 'list',
    code: 200,
    kind: def.listKind,
    apiVersion: apiVersionOf(def.group, def.version),
    metadata: { resourceVersion: String(rv) },
    items: selected.map((entry) => toView(def, entry)),
    warnings,
  };
}
