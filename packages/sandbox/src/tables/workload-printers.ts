// kubectl's column sets for apps/v1, batch/v1 and autoscaling kinds.

import { readPath, type KubeObject } from '../meta/object.ts';
import { parseTimestamp } from '../meta/time.ts';
import type { TablePrinter } from '../registry/types.ts';
import {
  ageColumn,
  ageOf,
  column,
  containersColumn,
  formatLabelSelector,
  imagesColumn,
  int,
  labelMapString,
  nameColumn,
  objects,
  orNone,
  selectorColumn,
  templateContainers,
} from './columns.ts';
import { humanDuration } from '../crd/index.ts';

const metaName = (o: KubeObject): string => o.metadata.name ?? '';
const status = (o: KubeObject, field: string): number => int(readPath(o, ['status', field]));
const specReplicas = (o: KubeObject): number => int(readPath(o, ['spec', 'replicas']));
const template = ['spec', 'template'] as const;
const selector = (o: KubeObject): string => formatLabelSelector(readPath(o, ['spec', 'selector']));

export const deploymentPrinter: TablePrinter = {
  columns: [
    nameColumn,
    column('Ready', 'string', 'Number of the ready pods out of the desired replicas.'),
    column('Up-to-date', 'string', 'Total number of non-terminated pods targeted by this deployment that have the desired template spec.'),
    column('Available', 'string', 'Total number of available pods (ready for at least minReadySeconds) targeted by this deployment.'),
    ageColumn,
    containersColumn,
    imagesColumn,
    selectorColumn,
  ],
  cells: (o, now) => {
    const [names, images] = templateContainers(o, template);
    return [
      metaName(o),
      `${status(o, 'readyReplicas')}/${specReplicas(o)}`,
      status(o, 'updatedReplicas'),
      status(o, 'availableReplicas'),
      ageOf(o, now),
      names,
      images,
      selector(o),
    ];
  },
};

export const replicaSetPrinter: TablePrinter = {
  columns: [
    nameColumn,
    column('Desired', 'integer', 'Number of desired pods.'),
    column('Current', 'integer', 'Number of actual pods.'),
    column('Ready', 'integer', 'Number of ready pods.'),
    ageColumn,
    containersColumn,
    imagesColumn,
    selectorColumn,
  ],
  cells: (o, now) => {
    const [names, images] = templateContainers(o, template);
    return [metaName(o), specReplicas(o), status(o, 'replicas'), status(o, 'readyReplicas'), ageOf(o, now), names, images, selector(o)];
  },
};

export const statefulSetPrinter: TablePrinter = {
  columns: [nameColumn, column('Ready', 'string', 'Number of the ready pods out of the desired replicas.'), ageColumn, containersColumn, imagesColumn],
  cells: (o, now) => {
    const [names, images] = templateContainers(o, template);
    return [metaName(o), `${status(o, 'readyReplicas')}/${specReplicas(o)}`, ageOf(o, now), names, images];
  },
};

export const daemonSetPrinter: TablePrinter = {
  columns: [
    nameColumn,
    column('Desired', 'integer', 'The total number of nodes that should be running the daemon pod.'),
    column('Current', 'integer', 'The number of nodes running at least one daemon pod and are supposed to.'),
    column('Ready', 'integer', 'The number of nodes that should be running the daemon pod and have one or more of the daemon pod running and ready.'),
    column('Up-to-date', 'integer', 'The total number of nodes that are running updated daemon pod.'),
    column('Available', 'integer', 'The number of nodes that should be running the daemon pod and have one or more of the daemon pod running and available.'),
    column('Node Selector', 'string', 'The node selector of the daemon pod template.'),
    ageColumn,
    containersColumn,
    imagesColumn,
    selectorColumn,
  ],
  cells: (o, now) => {
    const [names, images] = templateContainers(o, template);
    return [
      metaName(o),
      status(o, 'desiredNumberScheduled'),
      status(o, 'currentNumberScheduled'),
      status(o, 'numberReady'),
      status(o, 'updatedNumberScheduled'),
      status(o, 'numberAvailable'),
      orNone(labelMapString(readPath(o, ['spec', 'template', 'spec', 'nodeSelector']))),
      ageOf(o, now),
      names,
      images,
      selector(o),
    ];
  },
};

export const controllerRevisionPrinter: TablePrinter = {
  columns: [
    nameColumn,
    column('Controller', 'string', 'The controller of the revision.'),
    column('Revision', 'string', 'The revision number.'),
    ageColumn,
  ],
  cells: (o, now) => {
    const owner = (o.metadata.ownerReferences ?? []).find((r) => r.controller === true);
    const controller = owner ? `${owner.kind.toLowerCase()}.${owner.apiVersion.split('/')[0]}/${owner.name}` : '<none>';
    return [metaName(o), controller, int(o.revision), ageOf(o, now)];
  },
};

function jobStatus(job: KubeObject): string {
  const conditions = objects(readPath(job, ['status', 'conditions']));
  const isTrue = (type: string): boolean => conditions.some((c) => c.type === type && c.status === 'True');
  if (isTrue('Complete')) return 'Complete';
  if (isTrue('Failed')) return 'Failed';
  if (job.metadata.deletionTimestamp) return 'Terminating';
  if (isTrue('SuccessCriteriaMet')) return 'SuccessCriteriaMet';
  if (isTrue('FailureTarget')) return 'FailureTarget';
  if (isTrue('Suspended')) return 'Suspended';
  return 'Running';
}

function jobCompletions(job: KubeObject): string {
  const succeeded = status(job, 'succeeded');
  const completions = readPath(job, ['spec', 'completions']);
  if (typeof completions === 'number') return `${succeeded}/${completions}`;
  const parallelism = int(readPath(job, ['spec', 'parallelism']));
  return parallelism > 1 ? `${succeeded}/1 of ${parallelism}` : `${succeeded}/1`;
}

function jobDuration(job: KubeObject, now: number): string {
  const start = parseTimestamp(readPath(job, ['status', 'startTime']));
  if (start === undefined) return '';
  const end = parseTimestamp(readPath(job, ['status', 'completionTime'])) ?? now;
  return humanDuration(end - start);
}

export const jobPrinter: TablePrinter = {
  columns: [
    nameColumn,
    column('Status', 'string', 'Status of the job.'),
    column('Completions', 'string', 'The number of succeeded pods out of the desired completions.'),
    column('Duration', 'string', 'Time required to complete the job.'),
    ageColumn,
    containersColumn,
    imagesColumn,
    selectorColumn,
  ],
  cells: (o, now) => {
    const [names, images] = templateContainers(o, template);
    return [metaName(o), jobStatus(o), jobCompletions(o), jobDuration(o, now), ageOf(o, now), names, images, selector(o)];
  },
};

/** One metric of the Targets column: current over target, `<unknown>` before the controller reports. */
function hpaMetric(spec: Record<string, unknown>, status: Record<string, unknown> | undefined): string {
  const source = (m: Record<string, unknown> | undefined, field: string): Record<string, unknown> => {
    const value = m?.[field];
    return value !== null && typeof value === 'object' ? (value as Record<string, unknown>) : {};
  };
  const quantity = (value: unknown): string => (value === undefined || value === null ? '0' : String(value));
  const field = { External: 'external', Pods: 'pods', Object: 'object', Resource: 'resource', ContainerResource: 'containerResource' }[String(spec.type)];
  if (!field) return '<unknown type>';
  const target = source(source(spec, field), 'target');
  const current = status && status[field] ? source(source(status, field), 'current') : undefined;
  if (field === 'resource' || field === 'containerResource') {
    const name = String(source(spec, field).name ?? '');
    if (target.averageValue !== undefined) return `${name}: ${current ? quantity(current.averageValue) : '<unknown>'}/${quantity(target.averageValue)}`;
    const now = current?.averageUtilization !== undefined ? `${String(current.averageUtilization)}%` : '<unknown>';
    return `${name}: ${now}/${target.averageUtilization !== undefined ? `${String(target.averageUtilization)}%` : '<auto>'}`;
  }
  if (field === 'pods') return `${current ? quantity(current.averageValue) : '<unknown>'}/${quantity(target.averageValue)}`;
  if (target.averageValue !== undefined) {
    return `${current?.averageValue !== undefined ? quantity(current.averageValue) : '<unknown>'}/${quantity(target.averageValue)} (avg)`;
  }
  return `${current ? quantity(current.value) : '<unknown>'}/${quantity(target.value)}`;
}

/** formatHPAMetrics: the first two metrics, then how many more. */
function hpaTargets(o: KubeObject): string {
  const specs = objects(readPath(o, ['spec', 'metrics']));
  const statuses = objects(readPath(o, ['status', 'currentMetrics']));
  if (!specs.length) return '<none>';
  const shown = specs.slice(0, 2).map((m, i) => hpaMetric(m, statuses[i]));
  return specs.length > 2 ? `${shown.join(', ')} + ${specs.length - 2} more...` : shown.join(', ');
}

/** HorizontalPodAutoscalers, in the stored autoscaling/v2 form (the v1 view is printed from it too). */
export const horizontalPodAutoscalerPrinter: TablePrinter = {
  columns: [
    nameColumn,
    column('Reference', 'string', 'The object whose scale the autoscaler sets.'),
    column('Targets', 'string', 'The metrics the autoscaler tracks, current over target.'),
    column('MinPods', 'string', 'The lower limit for the number of replicas.'),
    column('MaxPods', 'string', 'The upper limit for the number of replicas.'),
    column('Replicas', 'string', 'The current number of replicas.'),
    ageColumn,
  ],
  cells: (o, now) => {
    const min = readPath(o, ['spec', 'minReplicas']);
    return [
      metaName(o),
      `${String(readPath(o, ['spec', 'scaleTargetRef', 'kind']) ?? '')}/${String(readPath(o, ['spec', 'scaleTargetRef', 'name']) ?? '')}`,
      hpaTargets(o),
      typeof min === 'number' ? String(min) : '<unset>',
      int(readPath(o, ['spec', 'maxReplicas'])),
      status(o, 'currentReplicas'),
      ageOf(o, now),
    ];
  },
};
