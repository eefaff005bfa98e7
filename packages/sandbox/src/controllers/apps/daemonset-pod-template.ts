// A DaemonSet's pods and its template (CreatePodTemplate, GetTemplateGeneration, IsPodUpdated in
// pkg/controller/daemon/util): pods get the daemon tolerations, `controller-revision-hash` and
// `pod-template-generation` (the `deprecated.daemonset.template.generation` annotation, which the API
// server moves on every template change). A pod is up to date when either label matches: the real
// controller still honours the generation alone, so a pod of another template that carries the current
// generation (one adopted from a DaemonSet deleted with orphan, say) is never replaced.

import { cloneJson, isJsonObject, readPath, type JsonObject, type KubeObject } from '../../meta/object.ts';
import { daemonRevisionLabel } from './daemonset-history.ts';
import { addDaemonTolerations } from './daemonset-scheduling.ts';
import { sortedMap } from './pod-control.ts';

const templateGenerationAnnotation = 'deprecated.daemonset.template.generation';
const templateGenerationLabel = 'pod-template-generation';
const int64 = { min: -(2n ** 63n), max: 2n ** 63n - 1n };

/** GetTemplateGeneration: the annotation as strconv.ParseInt reads it, printed back as fmt.Sprint does. */
export function templateGeneration(ds: KubeObject): string | undefined {
  const text = ds.metadata.annotations?.[templateGenerationAnnotation];
  if (text === undefined || !/^[+-]?\d+$/.test(text)) return undefined;
  const value = BigInt(text);
  return value >= int64.min && value <= int64.max ? String(value) : undefined;
}

/** CreatePodTemplate: the daemon tolerations and the generation and revision-hash labels. */
export function daemonPodTemplate(ds: KubeObject, hash: string): JsonObject {
  const template = cloneJson(readPath(ds, ['spec', 'template']) ?? {}) as JsonObject;
  const spec = isJsonObject(template.spec) ? template.spec : (template.spec = {});
  addDaemonTolerations(spec);
  const metadata = isJsonObject(template.metadata) ? template.metadata : (template.metadata = {});
  const labels: Record<string, string> = isJsonObject(metadata.labels) ? { ...(metadata.labels as Record<string, string>) } : {};
  const generation = templateGeneration(ds);
  if (generation !== undefined) labels[templateGenerationLabel] = generation;
  if (hash) labels[daemonRevisionLabel] = hash;
  metadata.labels = sortedMap(labels);
  return template;
}

/** IsPodUpdated: the pod carries the current revision hash or the current template generation. */
export function isPodUpdated(pod: KubeObject, hash: string, generation: string | undefined): boolean {
  const labels = pod.metadata.labels ?? {};
  return (hash !== '' && labels[daemonRevisionLabel] === hash) || (generation !== undefined && labels[templateGenerationLabel] === generation);
}
