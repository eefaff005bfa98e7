// POST pods/NAME/binding, as the pod registry's BindingREST serves it (what kube-scheduler calls):
// the Binding is validated and admitted (resource pods, subresource binding, kind Binding), then the
// pod gets spec.nodeName, the Binding's annotations and PodScheduled=True in one storage update. The
// answer is `Status Success` with code 201.

import { badRequestStatus, failure, fieldNotSupported, fieldRequired, notFoundStatus, StatusError, type FieldError } from '../errors.ts';
import { isJsonObject, type JsonObject, type KubeObject } from '../meta/object.ts';
import { formatTimestamp } from '../meta/time.ts';
import { inEncodedOrder } from './encoded-order.ts';
import { StorageError } from '../storage/store.ts';
import type { ServerContext } from './context.ts';
import { uidPreconditionFailed } from './create-update.ts';
import { parseWriteOptions } from './options.ts';
import type { ApiRequest, StatusResult } from './request.ts';
import { reasonlessFailure } from './status.ts';
import { requestKey } from './storage-key.ts';
import { goFieldErrorString } from '../validation/index.ts';
import { writeOrigin } from './write-origin.ts';

const bindingKind = { group: '', version: 'v1', kind: 'Binding' };

function decodeBinding(body: unknown): KubeObject {
  if (!isJsonObject(body)) throw new StatusError(badRequestStatus('the object provided is unrecognized (must be of type Binding)'));
  const kind = typeof body.kind === 'string' && body.kind ? body.kind : 'Binding';
  const apiVersion = typeof body.apiVersion === 'string' && body.apiVersion ? body.apiVersion : 'v1';
  if (kind !== 'Binding' || apiVersion !== 'v1') {
    const version = apiVersion.includes('/') ? apiVersion.slice(apiVersion.indexOf('/') + 1) : apiVersion;
    throw new StatusError(badRequestStatus(`${kind} in version "${version}" cannot be handled as a Binding: converting (${version}.${kind}) to (core.Binding): unknown conversion`));
  }
  return { ...body, apiVersion, kind, metadata: isJsonObject(body.metadata) ? { ...body.metadata } : {} };
}

/** ValidatePodBinding. */
function validateBinding(binding: KubeObject): FieldError[] {
  const target = isJsonObject(binding.target) ? binding.target : {};
  const errors: FieldError[] = [];
  const kind = typeof target.kind === 'string' ? target.kind : '';
  if (kind && kind !== 'Node') errors.push(fieldNotSupported('target.kind', kind, ['Node', '<empty>']));
  if (typeof target.name !== 'string' || !target.name) errors.push(fieldRequired('target.name'));
  return errors;
}

/** A failed assignment that is no API error becomes a Conflict on `pods/binding`. */
const assignmentConflict = (name: string, why: string): StatusError =>
  new StatusError(failure(409, 'Conflict', `Operation cannot be fulfilled on pods/binding "${name}": ${why}`, { name, kind: 'pods/binding' }));

export async function createBinding(ctx: ServerContext, req: ApiRequest): Promise<StatusResult> {
  const options = parseWriteOptions(req.query, 'CreateOptions');
  const binding = decodeBinding(req.body);
  const name = req.name ?? '';
  const given = binding.metadata.namespace;
  if (given && given !== req.namespace) {
    throw new StatusError(badRequestStatus('the namespace of the provided object does not match the namespace sent on the request'));
  }
  binding.metadata.namespace = req.namespace;
  if ((binding.metadata.name ?? '') !== name) throw new StatusError(badRequestStatus('name in URL does not match name in Binding object'));
  const errors = validateBinding(binding);
  // The registry returns the aggregate as a plain error: a 500 without a reason.
  if (errors.length) throw reasonlessFailure(500, errors.length === 1 ? goFieldErrorString(errors[0] as FieldError) : `[${errors.map(goFieldErrorString).join(', ')}]`);

  const attributes = {
    operation: 'CREATE' as const,
    kind: bindingKind,
    resource: { group: '', version: 'v1', resource: 'pods' },
    subresource: 'binding',
    namespace: req.namespace,
    name,
    object: binding,
    oldObject: undefined,
    dryRun: options.dryRun,
    options: { kind: 'CreateOptions', apiVersion: 'meta.k8s.io/v1', ...(options.dryRun ? { dryRun: ['All'] } : {}) },
    userInfo: req.user,
  };
  const warnings = await ctx.admission.admit(attributes);
  warnings.push(...(await ctx.admission.validate(attributes)));

  const target = isJsonObject(binding.target) ? binding.target : {};
  const annotations = isJsonObject(binding.metadata.annotations) ? (binding.metadata.annotations as Record<string, string>) : {};
  await assignPod(ctx, req, name, String(target.name), binding.metadata.uid, binding.metadata.resourceVersion, annotations, options.dryRun);
  return { type: 'status', code: 201, status: { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 }, warnings };
}

async function assignPod(
  ctx: ServerContext,
  req: ApiRequest,
  name: string,
  node: string,
  uid: string | undefined,
  resourceVersion: string | undefined,
  annotations: Record<string, string>,
  dryRun: boolean,
): Promise<void> {
  const key = requestKey(req, name);
  for (;;) {
    const entry = ctx.store.get('pods', key);
    if (!entry) throw new StatusError(notFoundStatus({ resource: 'pods', group: '', name }));
    const pod = entry.object;
    if (uid && uid !== pod.metadata.uid) throw uidPreconditionFailed(req, uid, pod);
    const spec = isJsonObject(pod.spec) ? pod.spec : {};
    if (pod.metadata.deletionTimestamp) throw assignmentConflict(name, `pod ${name} is being deleted, cannot be assigned to a host`);
    if (resourceVersion && resourceVersion !== pod.metadata.resourceVersion) {
      throw assignmentConflict(name, `pod ${name} has resourceVersion ${pod.metadata.resourceVersion ?? ''}, expected ${resourceVersion}`);
    }
    if (typeof spec.nodeName === 'string' && spec.nodeName) throw assignmentConflict(name, `pod ${name} is already assigned to node "${spec.nodeName}"`);
    if (Array.isArray(spec.schedulingGates) && spec.schedulingGates.length) throw assignmentConflict(name, `pod ${name} has non-empty .spec.schedulingGates`);
    const status = isJsonObject(pod.status) ? pod.status : {};
    const conditions = Array.isArray(status.conditions) ? status.conditions.filter(isJsonObject) : [];
    const previous = conditions.find((c) => c.type === 'PodScheduled');
    const scheduled: JsonObject = {
      type: 'PodScheduled',
      status: 'True',
      lastProbeTime: null,
      lastTransitionTime: previous?.status === 'True' ? previous.lastTransitionTime : formatTimestamp(ctx.clock()),
    };
    const updated = inEncodedOrder({
      ...pod,
      metadata: { ...pod.metadata, annotations: { ...(pod.metadata.annotations ?? {}), ...annotations } },
      spec: { ...spec, nodeName: node },
      status: { ...status, conditions: previous ? conditions.map((c) => (c === previous ? scheduled : c)) : [...conditions, scheduled] },
    }, false);
    if (!Object.keys(updated.metadata.annotations ?? {}).length) delete updated.metadata.annotations;
    if (dryRun) return;
    try {
      ctx.store.update('pods', key, updated, writeOrigin(req), entry.rv);
      return;
    } catch (err) {
      if (!(err instanceof StorageError && err.code === 'conflict')) throw err;
    }
  }
}
