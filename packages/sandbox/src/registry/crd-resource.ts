// apiextensions.k8s.io/v1 CustomResourceDefinitions as a resource: defaults, validation and status
// handling come from the CRD module; deletion marks the CRD Terminating behind the
// `customresourcecleanup.apiextensions.k8s.io` finalizer until its custom resources are gone.

import {
  applyCustomResourceDefinitionDefaults,
  prepareCustomResourceDefinitionForCreate,
  prepareCustomResourceDefinitionForUpdate,
  validateCustomResourceDefinition,
  validateCustomResourceDefinitionStatus,
} from '../crd/index.ts';
import { isJsonObject, type KubeObject } from '../meta/object.ts';
import { formatTimestamp } from '../meta/time.ts';
import { defaultPrinter } from '../tables/cluster-printers.ts';
import { defineResource } from './define.ts';
import { makeStrategy } from './strategy.ts';
import type { ResourceDefinition } from './types.ts';

export const crdCleanupFinalizer = 'customresourcecleanup.apiextensions.k8s.io';

function assignInPlace(target: KubeObject, source: unknown): void {
  if (!isJsonObject(source)) return;
  for (const key of Object.keys(target)) delete target[key];
  Object.assign(target, source);
}

const statusOf = (value: unknown): unknown => (isJsonObject(value) ? value.status : undefined);

/** Sets (or replaces) one condition of a CRD's status. */
export function setCrdCondition(crd: KubeObject, condition: { type: string; status: string; reason: string; message: string }, now: number): void {
  const status = isJsonObject(crd.status) ? { ...crd.status } : {};
  const conditions = Array.isArray(status.conditions) ? status.conditions.filter(isJsonObject) : [];
  const previous = conditions.find((c) => c.type === condition.type);
  const lastTransitionTime = previous && previous.status === condition.status ? previous.lastTransitionTime : formatTimestamp(now);
  const next = { type: condition.type, status: condition.status, lastTransitionTime, reason: condition.reason, message: condition.message };
  status.conditions = previous ? conditions.map((c) => (c === previous ? next : c)) : [...conditions, next];
  crd.status = status;
}

function beginCrdDeletion(crd: KubeObject, now: number): void {
  crd.metadata.deletionTimestamp ??= formatTimestamp(now);
  const finalizers = crd.metadata.finalizers ?? [];
  if (!finalizers.includes(crdCleanupFinalizer)) crd.metadata.finalizers = [...finalizers, crdCleanupFinalizer];
  setCrdCondition(
    crd,
    {
      type: 'Terminating',
      status: 'True',
      reason: 'InstanceDeletionPending',
      message: 'CustomResourceDefinition marked for deletion; CustomResource deletion will begin soon',
    },
    now,
  );
}

export function customResourceDefinitionResource(): ResourceDefinition {
  return defineResource({
    group: 'apiextensions.k8s.io',
    version: 'v1',
    resource: 'customresourcedefinitions',
    kind: 'CustomResourceDefinition',
    namespaced: false,
    shortNames: ['crd', 'crds'],
    categories: ['api-extensions'],
    table: defaultPrinter,
    deleteReturnsObject: true,
    strategy: makeStrategy({
      rules: {
        applyDefaults: (crd) => assignInPlace(crd, applyCustomResourceDefinitionDefaults(crd)),
        validateCreate: (crd) => validateCustomResourceDefinition(crd),
        validateUpdate: (crd, old) => validateCustomResourceDefinition(crd, old),
        validateStatusUpdate: (crd, old) => validateCustomResourceDefinitionStatus(crd, old),
      },
      generation: 'spec',
      status: 'keep-metadata',
      initialStatus: (crd) => statusOf(prepareCustomResourceDefinitionForCreate(crd)),
      prepareForUpdate: (crd, old) => {
        crd.status = statusOf(prepareCustomResourceDefinitionForUpdate(crd, old));
      },
      extras: { beginDeletion: beginCrdDeletion },
    }),
  });
}
