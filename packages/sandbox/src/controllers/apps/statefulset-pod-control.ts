// StatefulPodControl: the StatefulSet controller's pod writes and the events it records on the set,
// `SuccessfulCreate` "create Pod db-0 in StatefulSet db successful", `SuccessfulDelete` "delete Pod
// …", `SuccessfulUpdate` "update Pod …", and `Failed<Verb>` "<verb> Pod … failed error: ERR".
// The sandbox serves no PersistentVolumeClaims, so claims of volumeClaimTemplates are referenced by
// the pods but never created.

import type { LocalClient } from '../../apiserver/local-client.ts';
import { StatusError } from '../../errors.ts';
import { cloneJson, type KubeObject } from '../../meta/object.ts';
import type { EventRecorder } from '../event-recorder.ts';
import { errorText, podsResource } from './pod-control.ts';
import { identityMatches, storageMatches, updateIdentity, updateStorage } from './statefulset-identity.ts';

type Verb = 'create' | 'delete' | 'update';

const title = (verb: Verb): string => verb[0]?.toUpperCase() + verb.slice(1);

export class StatefulPodControl {
  readonly #client: LocalClient;
  readonly #recorder: EventRecorder;

  constructor(client: LocalClient, recorder: EventRecorder) {
    this.#client = client;
    this.#recorder = recorder;
  }

  #event(verb: Verb, set: KubeObject, pod: KubeObject, err?: unknown): void {
    const subject = `${verb} Pod ${pod.metadata.name} in StatefulSet ${set.metadata.name}`;
    if (err === undefined) this.#recorder.normal(set, `Successful${title(verb)}`, `${subject} successful`);
    else this.#recorder.warning(set, `Failed${title(verb)}`, `${subject} failed error: ${errorText(err)}`);
  }

  /** CreateStatefulPod; AlreadyExists is returned without an event. */
  async create(set: KubeObject, pod: KubeObject): Promise<void> {
    try {
      await this.#client.create(podsResource, pod, { namespace: set.metadata.namespace });
    } catch (err) {
      if (!(err instanceof StatusError && err.status.reason === 'AlreadyExists')) this.#event('create', set, pod, err);
      throw err;
    }
    this.#event('create', set, pod);
  }

  async delete(set: KubeObject, pod: KubeObject): Promise<void> {
    try {
      await this.#client.delete(podsResource, pod.metadata.name ?? '', { namespace: set.metadata.namespace });
    } catch (err) {
      this.#event('delete', set, pod, err);
      throw err;
    }
    this.#event('delete', set, pod);
  }

  /** UpdateStatefulPod: restores identity and storage, retrying conflicts against the latest pod. */
  async update(set: KubeObject, pod: KubeObject): Promise<void> {
    let current = cloneJson(pod);
    let attempted = false;
    for (let attempt = 0; ; attempt++) {
      let consistent = true;
      if (!identityMatches(set, current)) {
        updateIdentity(set, current);
        consistent = false;
      }
      if (!storageMatches(set, current)) {
        updateStorage(set, current);
        consistent = false;
      }
      if (consistent) break;
      attempted = true;
      try {
        await this.#client.update(podsResource, current, { namespace: set.metadata.namespace });
        break;
      } catch (err) {
        if (!(err instanceof StatusError && err.status.code === 409) || attempt >= 4) {
          this.#event('update', set, current, err);
          throw err;
        }
        current = await this.#client.get(podsResource, current.metadata.name ?? '', { namespace: set.metadata.namespace });
      }
    }
    if (attempted) this.#event('update', set, current);
  }
}
