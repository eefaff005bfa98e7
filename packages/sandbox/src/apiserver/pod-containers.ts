// Which container of a pod a log, exec or attach request addresses: LogLocation's validateContainer.

import { badRequestStatus, StatusError } from '../errors.ts';
import { isJsonObject, type JsonObject, type KubeObject } from '../meta/object.ts';

const containersOf = (spec: JsonObject, field: string): JsonObject[] => (Array.isArray(spec[field]) ? spec[field].filter(isJsonObject) : []);

/** The named container, or the only regular one; init and ephemeral containers may be named too. */
export function chooseContainer(pod: KubeObject, container: string): string {
  const spec = isJsonObject(pod.spec) ? pod.spec : {};
  const name = pod.metadata.name ?? '';
  const all = ['initContainers', 'containers', 'ephemeralContainers'].flatMap((f) => containersOf(spec, f)).map((c) => String(c.name));
  if (container) {
    if (!all.includes(container)) throw new StatusError(badRequestStatus(`container ${container} is not valid for pod ${name}`));
    return container;
  }
  const regular = containersOf(spec, 'containers');
  if (regular.length === 1) return String(regular[0]?.name);
  if (regular.length === 0) throw new StatusError(badRequestStatus(`a container name must be specified for pod ${name}`));
  throw new StatusError(badRequestStatus(`a container name must be specified for pod ${name}, choose one of: [${all.join(' ')}]`));
}
