// client-go's RealPodControl as the workload controllers use it: a pod made from a template
// (GetPodFromTemplate), created, deleted or patched through the API, with the events kube-controller-
// manager records on the owner (`SuccessfulCreate` "Created pod: NAME", `FailedCreate` "Error creating:
// …", `SuccessfulDelete` "Deleted pod: NAME", `FailedDelete` "Error deleting: …").

import type { LocalClient } from '../../apiserver/local-client.ts';
import { StatusError } from '../../errors.ts';
import { cloneJson, isJsonObject, type KubeObject, type OwnerReference } from '../../meta/object.ts';
import type { EventRecorder } from '../event-recorder.ts';

export const podsResource = { group: '', version: 'v1', resource: 'pods' };

/** A string map with its keys in order, as Go serializes maps (controllers send them that way). */
export function sortedMap(map: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(map).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

const stringMap = (value: unknown): Record<string, string> | undefined =>
  isJsonObject(value) && Object.keys(value).length ? sortedMap(value as Record<string, string>) : undefined;

/** The error text Go's `%v` prints for an API error. */
export const errorText = (err: unknown): string => (err instanceof StatusError ? (err.status.message ?? '') : err instanceof Error ? err.message : String(err));

/**
 * GetPodFromTemplate: the template's labels, annotations, finalizers and spec, `generateName`
 * `<owner>-`, and the controller reference.
 */
export function podFromTemplate(template: unknown, owner: KubeObject, controllerRef: OwnerReference | undefined): KubeObject {
  const tpl = isJsonObject(template) ? template : {};
  const meta = isJsonObject(tpl.metadata) ? tpl.metadata : {};
  const pod: KubeObject = { apiVersion: 'v1', kind: 'Pod', metadata: { generateName: `${owner.metadata.name}-` }, spec: cloneJson(tpl.spec ?? {}) };
  const labels = stringMap(meta.labels);
  const annotations = stringMap(meta.annotations);
  if (labels) pod.metadata.labels = labels;
  if (annotations) pod.metadata.annotations = annotations;
  if (Array.isArray(meta.finalizers) && meta.finalizers.length) pod.metadata.finalizers = [...(meta.finalizers as string[])];
  if (controllerRef) pod.metadata.ownerReferences = [controllerRef];
  return pod;
}

export class PodControl {
  readonly #client: LocalClient;
  readonly #recorder: EventRecorder;

  constructor(client: LocalClient, recorder: EventRecorder) {
    this.#client = client;
    this.#recorder = recorder;
  }

  /** CreatePods(WithGenerateName): a pod from `template` owned by `owner`. */
  async createPod(namespace: string, template: unknown, owner: KubeObject, controllerRef: OwnerReference, generateName?: string): Promise<KubeObject> {
    const pod = podFromTemplate(template, owner, controllerRef);
    if (generateName) pod.metadata.generateName = generateName;
    if (!pod.metadata.labels) throw new Error('unable to create pods, no labels');
    let created: KubeObject;
    try {
      created = await this.#client.create(podsResource, pod, { namespace });
    } catch (err) {
      if (!namespaceTerminating(err)) this.#recorder.warning(owner, 'FailedCreate', `Error creating: ${errorText(err)}`);
      throw err;
    }
    this.#recorder.normal(owner, 'SuccessfulCreate', `Created pod: ${created.metadata.name}`);
    return created;
  }

  /** DeletePod; a pod that is already gone rejects with the 404 and records nothing. */
  async deletePod(namespace: string, name: string, owner: KubeObject): Promise<void> {
    try {
      await this.#client.delete(podsResource, name, { namespace });
    } catch (err) {
      if (err instanceof StatusError && err.status.code === 404) throw err;
      this.#recorder.warning(owner, 'FailedDelete', `Error deleting: ${errorText(err)}`);
      throw new Error(`unable to delete pods: ${errorText(err)}`, { cause: err });
    }
    this.#recorder.normal(owner, 'SuccessfulDelete', `Deleted pod: ${name}`);
  }

  /** PatchPod: a strategic merge patch. */
  patchPod(namespace: string, name: string, patch: unknown): Promise<KubeObject> {
    return this.#client.patch(podsResource, name, 'strategic', patch, { namespace });
  }
}

/** The create failed because the namespace is being terminated (no event, nothing to retry). */
export function namespaceTerminating(err: unknown): boolean {
  return err instanceof StatusError && (err.status.details?.causes ?? []).some((c) => c.reason === 'NamespaceTerminating');
}

export const isNotFound = (err: unknown): boolean => err instanceof StatusError && err.status.code === 404;
