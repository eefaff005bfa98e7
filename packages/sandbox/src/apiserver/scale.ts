// The `/scale` subresource: an autoscaling/v1 Scale view of a workload (or of a custom resource
// through its CRD's replica paths). Writing it updates the parent's replicas as a main-resource
// update, so generation bumps as it does for the real server.

import { failure, StatusError } from '../errors.ts';
import { cloneJson, isJsonObject, objectKey, readPath, type KubeObject } from '../meta/object.ts';
import type { ResourceDefinition, ScaleSubresource } from '../registry/types.ts';
import type { ServerContext } from './context.ts';
import { checkName } from './decode.ts';
import { parseWriteOptions } from './options.ts';
import { applyPatch, requestPatchType } from './patch.ts';
import type { ApiRequest, ObjectResult } from './request.ts';
import { getObject } from './read.ts';
import { guaranteedUpdate } from './write.ts';

const steps = (dotPath: string): string[] => dotPath.replace(/^\./, '').split('.').filter(Boolean);

function scaleSpec(def: ResourceDefinition): ScaleSubresource {
  if (!def.scale) throw new StatusError(failure(404, 'NotFound', 'the server could not find the requested resource', {}));
  return def.scale;
}

export function scaleOf(def: ResourceDefinition, parent: KubeObject): KubeObject {
  const spec = scaleSpec(def);
  const meta = parent.metadata;
  const specReplicas = readPath(parent, steps(spec.specReplicasPath));
  const statusReplicas = readPath(parent, steps(spec.statusReplicasPath));
  const selector = spec.selectorOf
    ? spec.selectorOf(parent)
    : spec.labelSelectorPath
      ? readPath(parent, steps(spec.labelSelectorPath))
      : undefined;
  const status: Record<string, unknown> = { replicas: typeof statusReplicas === 'number' ? statusReplicas : 0 };
  if (typeof selector === 'string' && selector) status.selector = selector;
  return {
    kind: 'Scale',
    apiVersion: 'autoscaling/v1',
    metadata: {
      name: meta.name,
      ...(meta.namespace ? { namespace: meta.namespace } : {}),
      uid: meta.uid,
      resourceVersion: meta.resourceVersion,
      creationTimestamp: meta.creationTimestamp,
    },
    // autoscaling/v1 ScaleSpec.replicas is an int32 with omitempty: 0 replicas is `spec: {}`.
    spec: typeof specReplicas === 'number' && specReplicas !== 0 ? { replicas: specReplicas } : {},
    status,
  };
}

export async function getScale(ctx: ServerContext, req: ApiRequest): Promise<ObjectResult> {
  scaleSpec(req.def);
  const parent = await getObject(ctx, { ...req, subresource: undefined });
  return { type: 'object', code: 200, object: scaleOf(req.def, parent.object), warnings: [] };
}

function setPath(object: KubeObject, dotPath: string, value: unknown): void {
  const path = steps(dotPath);
  let cur: Record<string, unknown> = object;
  for (const step of path.slice(0, -1)) {
    if (!isJsonObject(cur[step])) cur[step] = {};
    cur = cur[step] as Record<string, unknown>;
  }
  const last = path.at(-1);
  if (last) cur[last] = value;
}

function invalidReplicas(name: string, replicas: unknown): StatusError {
  const message = `Scale.autoscaling "${name}" is invalid: spec.replicas: Invalid value: ${JSON.stringify(replicas)}: must be greater than or equal to 0`;
  return new StatusError(
    failure(422, 'Invalid', message, {
      name,
      group: 'autoscaling',
      kind: 'Scale',
      causes: [{ reason: 'FieldValueInvalid', message: `Invalid value: ${JSON.stringify(replicas)}: must be greater than or equal to 0`, field: 'spec.replicas' }],
    }),
  );
}

/** PUT or PATCH of `/scale`. */
export async function writeScale(ctx: ServerContext, req: ApiRequest, verb: 'update' | 'patch'): Promise<ObjectResult> {
  const { def } = req;
  const spec = scaleSpec(def);
  const name = req.name ?? '';
  const options = parseWriteOptions(req.query, verb === 'update' ? 'UpdateOptions' : 'PatchOptions');
  const patchType = verb === 'patch' ? requestPatchType(def, req.patchType) : undefined;
  if (patchType === 'apply') throw new StatusError(failure(415, 'UnsupportedMediaType', '415: Unsupported Media Type', undefined));
  const result = await guaranteedUpdate(ctx, {
    req: { ...req, subresource: undefined },
    options,
    isPut: false,
    recordFields: true,
    // Admission sees Scale objects of `<resource>/scale`, and a webhook may change their replicas.
    admissionView: {
      subresource: 'scale',
      kind: { group: 'autoscaling', version: 'v1', kind: 'Scale' },
      view: (object) => scaleOf(def, object),
      fold(view, object) {
        const replicas = readPath(view, ['spec', 'replicas']) ?? 0;
        if (typeof replicas !== 'number' || replicas < 0) throw invalidReplicas(name, replicas);
        const parent = cloneJson(object);
        setPath(parent, spec.specReplicasPath, replicas);
        return parent;
      },
    },
    attempt(current) {
      const currentScale = scaleOf(def, current);
      let desired: KubeObject;
      if (patchType) {
        const document = typeof req.body === 'string' || req.body instanceof Uint8Array ? JSON.parse(Buffer.from(req.body).toString()) : req.body;
        desired = applyPatch(def, patchType, currentScale, document, 'Scale', 'autoscaling/v1');
      } else {
        desired = isJsonObject(req.body) ? (cloneJson(req.body) as KubeObject) : currentScale;
        if (!isJsonObject(desired.metadata)) desired.metadata = {};
        checkName(desired, name);
      }
      const replicas = readPath(desired, ['spec', 'replicas']) ?? 0;
      if (typeof replicas !== 'number' || replicas < 0) throw invalidReplicas(name, replicas);
      const parent = cloneJson(current);
      setPath(parent, spec.specReplicasPath, replicas);
      const rv = desired.metadata.resourceVersion;
      return { object: parent, precondition: rv && rv !== current.metadata.resourceVersion ? rv : undefined, warnings: [] };
    },
  });
  const stored = ctx.store.get(def.storageKey, objectKey(req.namespace, name))?.object ?? result.object;
  return { type: 'object', code: 200, object: scaleOf(def, options.dryRun ? result.object : stored), warnings: result.warnings };
}
