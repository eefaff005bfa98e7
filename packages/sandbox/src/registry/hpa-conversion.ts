// autoscaling/v1 HorizontalPodAutoscalers are the stored autoscaling/v2 objects shown another way, as
// the autoscaling conversion does it: v1 has one CPU utilization target (and the current CPU
// utilization), everything else travels in round-trip annotations: the other metrics and the current
// metrics in v1's metric shapes, the behavior as the JSON of the internal Go type (capitalized field
// names), the conditions as they are. Reading the annotations back gives the v2 object again.

import { isJsonObject, type JsonObject, type KubeObject } from '../meta/object.ts';

const metricsAnnotation = 'autoscaling.alpha.kubernetes.io/metrics';
const currentMetricsAnnotation = 'autoscaling.alpha.kubernetes.io/current-metrics';
const behaviorAnnotation = 'autoscaling.alpha.kubernetes.io/behavior';
const conditionsAnnotation = 'autoscaling.alpha.kubernetes.io/conditions';
const roundTripAnnotations = [metricsAnnotation, currentMetricsAnnotation, behaviorAnnotation, conditionsAnnotation];

const obj = (v: unknown): JsonObject => (isJsonObject(v) ? v : {});
const list = (v: unknown): JsonObject[] => (Array.isArray(v) ? v.filter(isJsonObject) : []);

/** Go's encoding of a struct: the fields in order, `omitempty` ones (listed) left out when unset. */
function struct(fields: [string, unknown, boolean?][]): JsonObject {
  const out: JsonObject = {};
  for (const [key, value, omitEmpty] of fields) if (!(omitEmpty && (value === undefined || value === null))) out[key] = value ?? null;
  return out;
}

const isCPUUtilization = (m: JsonObject): boolean =>
  m.type === 'Resource' && obj(m.resource).name === 'cpu' && obj(obj(m.resource).target).averageUtilization !== undefined;

/** v2 MetricSpec → v1 MetricSpec (the annotation's shape). */
function metricSpecToV1(m: JsonObject): JsonObject {
  const target = (source: JsonObject): JsonObject => obj(source.target);
  const metric = (source: JsonObject): JsonObject => obj(source.metric);
  const o = obj(m.object);
  const p = obj(m.pods);
  const r = obj(m.resource);
  const c = obj(m.containerResource);
  const e = obj(m.external);
  return struct([
    ['type', m.type],
    ['object', isJsonObject(m.object) ? struct([['target', o.describedObject], ['metricName', metric(o).name], ['targetValue', target(o).value ?? '0'], ['selector', metric(o).selector, true], ['averageValue', target(o).averageValue, true]]) : undefined, true],
    ['pods', isJsonObject(m.pods) ? struct([['metricName', metric(p).name], ['targetAverageValue', target(p).averageValue ?? '0'], ['selector', metric(p).selector, true]]) : undefined, true],
    ['resource', isJsonObject(m.resource) ? struct([['name', r.name], ['targetAverageUtilization', target(r).averageUtilization, true], ['targetAverageValue', target(r).averageValue, true]]) : undefined, true],
    [
      'containerResource',
      isJsonObject(m.containerResource)
        ? struct([['name', c.name], ['targetAverageUtilization', target(c).averageUtilization, true], ['targetAverageValue', target(c).averageValue, true], ['container', c.container]])
        : undefined,
      true,
    ],
    ['external', isJsonObject(m.external) ? struct([['metricName', metric(e).name], ['metricSelector', metric(e).selector, true], ['targetValue', target(e).value, true], ['targetAverageValue', target(e).averageValue, true]]) : undefined, true],
  ]);
}

/** v1 MetricSpec → v2 MetricSpec. */
function metricSpecToV2(m: JsonObject): JsonObject {
  const metric = (name: unknown, selector: unknown): JsonObject => struct([['name', name], ['selector', selector, true]]);
  const target = (type: string, fields: [string, unknown][]): JsonObject => struct([['type', type], ...fields.map(([k, v]) => [k, v, true] as [string, unknown, boolean])]);
  const byKind = (value: unknown, utilization: unknown): JsonObject =>
    utilization !== undefined ? target('Utilization', [['averageUtilization', utilization]]) : target('AverageValue', [['averageValue', value]]);
  const o = obj(m.object);
  const p = obj(m.pods);
  const r = obj(m.resource);
  const c = obj(m.containerResource);
  const e = obj(m.external);
  return struct([
    ['type', m.type],
    [
      'object',
      isJsonObject(m.object)
        ? struct([['describedObject', o.target], ['target', o.averageValue !== undefined ? target('AverageValue', [['averageValue', o.averageValue]]) : target('Value', [['value', o.targetValue]])], ['metric', metric(o.metricName, o.selector)]])
        : undefined,
      true,
    ],
    ['pods', isJsonObject(m.pods) ? struct([['metric', metric(p.metricName, p.selector)], ['target', target('AverageValue', [['averageValue', p.targetAverageValue]])]]) : undefined, true],
    ['resource', isJsonObject(m.resource) ? struct([['name', r.name], ['target', byKind(r.targetAverageValue, r.targetAverageUtilization)]]) : undefined, true],
    ['containerResource', isJsonObject(m.containerResource) ? struct([['name', c.name], ['target', byKind(c.targetAverageValue, c.targetAverageUtilization)], ['container', c.container]]) : undefined, true],
    [
      'external',
      isJsonObject(m.external)
        ? struct([['metric', metric(e.metricName, e.metricSelector)], ['target', e.targetAverageValue !== undefined ? target('AverageValue', [['averageValue', e.targetAverageValue]]) : target('Value', [['value', e.targetValue]])]])
        : undefined,
      true,
    ],
  ]);
}

/** v2 MetricStatus → v1 MetricStatus. */
function metricStatusToV1(m: JsonObject): JsonObject {
  const current = (source: JsonObject): JsonObject => obj(source.current);
  const metric = (source: JsonObject): JsonObject => obj(source.metric);
  const o = obj(m.object);
  const p = obj(m.pods);
  const r = obj(m.resource);
  const c = obj(m.containerResource);
  const e = obj(m.external);
  return struct([
    ['type', m.type],
    ['object', isJsonObject(m.object) ? struct([['target', o.describedObject], ['metricName', metric(o).name], ['currentValue', current(o).value ?? '0'], ['selector', metric(o).selector, true], ['averageValue', current(o).averageValue, true]]) : undefined, true],
    ['pods', isJsonObject(m.pods) ? struct([['metricName', metric(p).name], ['currentAverageValue', current(p).averageValue ?? '0'], ['selector', metric(p).selector, true]]) : undefined, true],
    ['resource', isJsonObject(m.resource) ? struct([['name', r.name], ['currentAverageUtilization', current(r).averageUtilization, true], ['currentAverageValue', current(r).averageValue ?? '0']]) : undefined, true],
    [
      'containerResource',
      isJsonObject(m.containerResource)
        ? struct([['name', c.name], ['currentAverageUtilization', current(c).averageUtilization, true], ['currentAverageValue', current(c).averageValue ?? '0'], ['container', c.container]])
        : undefined,
      true,
    ],
    ['external', isJsonObject(m.external) ? struct([['metricName', metric(e).name], ['metricSelector', metric(e).selector, true], ['currentValue', current(e).value ?? '0'], ['currentAverageValue', current(e).averageValue, true]]) : undefined, true],
  ]);
}

/** v1 MetricStatus → v2 MetricStatus. */
function metricStatusToV2(m: JsonObject): JsonObject {
  const metric = (name: unknown, selector: unknown): JsonObject => struct([['name', name], ['selector', selector, true]]);
  const o = obj(m.object);
  const p = obj(m.pods);
  const r = obj(m.resource);
  const c = obj(m.containerResource);
  const e = obj(m.external);
  const current = (fields: [string, unknown][]): JsonObject => struct(fields.map(([k, v]) => [k, v, true] as [string, unknown, boolean]));
  return struct([
    ['type', m.type],
    ['object', isJsonObject(m.object) ? struct([['metric', metric(o.metricName, o.selector)], ['current', current([['value', o.currentValue], ['averageValue', o.averageValue]])], ['describedObject', o.target]]) : undefined, true],
    ['pods', isJsonObject(m.pods) ? struct([['metric', metric(p.metricName, p.selector)], ['current', current([['averageValue', p.currentAverageValue]])]]) : undefined, true],
    ['resource', isJsonObject(m.resource) ? struct([['name', r.name], ['current', current([['averageValue', r.currentAverageValue], ['averageUtilization', r.currentAverageUtilization]])]]) : undefined, true],
    [
      'containerResource',
      isJsonObject(m.containerResource)
        ? struct([['name', c.name], ['current', current([['averageValue', c.currentAverageValue], ['averageUtilization', c.currentAverageUtilization]])], ['container', c.container]])
        : undefined,
      true,
    ],
    ['external', isJsonObject(m.external) ? struct([['metric', metric(e.metricName, e.metricSelector)], ['current', current([['value', e.currentValue], ['averageValue', e.currentAverageValue]])]]) : undefined, true],
  ]);
}

/** The internal behavior type has no JSON tags: its encoding uses the Go field names, nil pointers as null. */
function behaviorToInternal(behavior: JsonObject): JsonObject {
  const rules = (r: unknown): unknown =>
    isJsonObject(r)
      ? { StabilizationWindowSeconds: r.stabilizationWindowSeconds ?? null, SelectPolicy: r.selectPolicy ?? null, Policies: list(r.policies).map((p) => ({ Type: p.type, Value: p.value, PeriodSeconds: p.periodSeconds })) }
      : null;
  return { ScaleUp: rules(behavior.scaleUp), ScaleDown: rules(behavior.scaleDown) };
}

function behaviorFromInternal(internal: JsonObject): JsonObject | undefined {
  const rules = (r: unknown): JsonObject | undefined =>
    isJsonObject(r)
      ? struct([
          ['stabilizationWindowSeconds', r.StabilizationWindowSeconds, true],
          ['selectPolicy', r.SelectPolicy, true],
          ['policies', list(r.Policies).map((p) => ({ type: p.Type, value: p.Value, periodSeconds: p.PeriodSeconds }))],
        ])
      : undefined;
  const behavior = struct([['scaleUp', rules(internal.ScaleUp), true], ['scaleDown', rules(internal.ScaleDown), true]]);
  return Object.keys(behavior).length ? behavior : undefined;
}

const parsed = (text: string | undefined): unknown => {
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    // A round-trip annotation that does not decode is ignored, as the conversion ignores it.
    return undefined;
  }
};

export function hpaToV1(stored: KubeObject): KubeObject {
  const spec = obj(stored.spec);
  const status = obj(stored.status);
  const annotations: Record<string, string> = { ...(stored.metadata.annotations ?? {}) };
  for (const key of roundTripAnnotations) delete annotations[key];
  const metrics = list(spec.metrics);
  const others = metrics.filter((m) => !isCPUUtilization(m));
  if (others.length) annotations[metricsAnnotation] = JSON.stringify(others.map(metricSpecToV1));
  const currentMetrics = list(status.currentMetrics);
  if (currentMetrics.length) annotations[currentMetricsAnnotation] = JSON.stringify(currentMetrics.map(metricStatusToV1));
  if (isJsonObject(spec.behavior)) annotations[behaviorAnnotation] = JSON.stringify(behaviorToInternal(spec.behavior));
  const conditions = list(status.conditions);
  if (conditions.length) annotations[conditionsAnnotation] = JSON.stringify(conditions);
  const cpu = metrics.find(isCPUUtilization);
  const currentCPU = currentMetrics.filter((m) => m.type === 'Resource' && obj(m.resource).name === 'cpu').map((m) => obj(obj(m.resource).current).averageUtilization).findLast((v) => v !== undefined);
  const metadata = { ...stored.metadata };
  if (Object.keys(annotations).length) metadata.annotations = annotations;
  else delete metadata.annotations;
  return {
    kind: 'HorizontalPodAutoscaler',
    apiVersion: 'autoscaling/v1',
    metadata,
    spec: struct([
      ['scaleTargetRef', spec.scaleTargetRef],
      ['minReplicas', spec.minReplicas, true],
      ['maxReplicas', spec.maxReplicas ?? 0],
      ['targetCPUUtilizationPercentage', cpu ? obj(obj(cpu.resource).target).averageUtilization : undefined, true],
    ]),
    status: struct([
      ['observedGeneration', status.observedGeneration, true],
      ['lastScaleTime', status.lastScaleTime, true],
      ['currentReplicas', status.currentReplicas ?? 0],
      ['desiredReplicas', status.desiredReplicas ?? 0],
      ['currentCPUUtilizationPercentage', currentCPU, true],
    ]),
  };
}

export function hpaToV2(external: KubeObject): KubeObject {
  const spec = obj(external.spec);
  const status = obj(external.status);
  const annotations = external.metadata.annotations ?? {};
  const metrics: JsonObject[] = [];
  const others = parsed(annotations[metricsAnnotation]);
  if (Array.isArray(others)) metrics.push(...others.filter(isJsonObject).map(metricSpecToV2));
  if (typeof spec.targetCPUUtilizationPercentage === 'number') {
    metrics.push({ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: spec.targetCPUUtilizationPercentage } } });
  }
  const internalBehavior = parsed(annotations[behaviorAnnotation]);
  const behavior = isJsonObject(internalBehavior) ? behaviorFromInternal(internalBehavior) : undefined;
  const currentMetrics = parsed(annotations[currentMetricsAnnotation]);
  const conditions = parsed(annotations[conditionsAnnotation]);
  const kept = Object.fromEntries(Object.entries(annotations).filter(([k]) => !roundTripAnnotations.includes(k)));
  const metadata = { ...external.metadata };
  if (Object.keys(kept).length) metadata.annotations = kept;
  else delete metadata.annotations;
  return {
    kind: 'HorizontalPodAutoscaler',
    apiVersion: 'autoscaling/v2',
    metadata,
    spec: struct([
      ['scaleTargetRef', spec.scaleTargetRef],
      ['minReplicas', spec.minReplicas, true],
      ['maxReplicas', spec.maxReplicas ?? 0],
      ['metrics', metrics.length ? metrics : undefined, true],
      ['behavior', behavior, true],
    ]),
    ...(external.status === undefined
      ? {}
      : {
          status: struct([
            ['observedGeneration', status.observedGeneration, true],
            ['lastScaleTime', status.lastScaleTime, true],
            ['currentReplicas', status.currentReplicas, true],
            ['desiredReplicas', status.desiredReplicas ?? 0],
            ['currentMetrics', Array.isArray(currentMetrics) ? currentMetrics.filter(isJsonObject).map(metricStatusToV2) : undefined, true],
            ['conditions', Array.isArray(conditions) ? conditions : undefined, true],
          ]),
        }),
  };
}
