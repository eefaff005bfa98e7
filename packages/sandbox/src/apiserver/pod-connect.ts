// The pods' connect subresources, exec, attach, portforward and proxy, up to where a real apiserver
// hands the connection to the kubelet or the pod: the pod, its container and its node are checked
// with the registry's errors, and exec, attach and portforward need an upgrade request. Past that the
// simulation has nothing to connect to: no server listens in a simulated pod, so proxy fails as a dial
// to the pod's address fails, and the simulated containers run no process to exec into or attach to.

import { badRequestStatus, failure, internalErrorStatus, notFoundStatus, StatusError } from '../errors.ts';
import { isJsonObject, type KubeObject } from '../meta/object.ts';
import type { ServerContext } from './context.ts';
import { chooseContainer } from './pod-containers.ts';
import type { ApiRequest } from './request.ts';
import { requestKey } from './storage-key.ts';

export const connectSubresources: ReadonlySet<string> = new Set(['exec', 'attach', 'portforward', 'proxy']);

const serviceUnavailable = (why: string): StatusError => new StatusError(failure(503, 'ServiceUnavailable', `error trying to reach service: ${why}`, undefined));

function getPod(ctx: ServerContext, req: ApiRequest, name: string): KubeObject {
  const pod = ctx.store.get('pods', requestKey(req, name))?.object;
  if (!pod) throw new StatusError(notFoundStatus({ resource: 'pods', group: '', name }));
  return pod;
}

/** pod.ResourceLocation's `name`, `name:port` or `scheme:name:port`, then the pod's first container port. */
function proxy(ctx: ServerContext, req: ApiRequest): never {
  const id = req.name ?? '';
  const parts = id.split(':');
  const valid = parts.length <= 3 && (parts.length < 3 || ['', 'http', 'https'].includes(parts[0] ?? ''));
  if (!valid) throw new StatusError(badRequestStatus(`invalid pod request ${JSON.stringify(id)}`));
  const name = parts.length === 3 ? (parts[1] ?? '') : (parts[0] ?? '');
  const pod = getPod(ctx, req, name);
  const spec = isJsonObject(pod.spec) ? pod.spec : {};
  const ports = (Array.isArray(spec.containers) ? spec.containers.filter(isJsonObject) : []).flatMap((c) => (Array.isArray(c.ports) ? c.ports.filter(isJsonObject) : []));
  const port = (parts.length === 3 ? parts[2] : parts[1]) || (ports[0] ? String(ports[0].containerPort) : '80');
  const status = isJsonObject(pod.status) ? pod.status : {};
  const podIPs = Array.isArray(status.podIPs) ? status.podIPs.filter(isJsonObject) : [];
  const ip = typeof podIPs[0]?.ip === 'string' ? podIPs[0].ip : '';
  if (!/^\d+\.\d+\.\d+\.\d+$/.test(ip) || /^(0|127)\./.test(ip)) throw new StatusError(badRequestStatus('address not allowed'));
  throw serviceUnavailable(`dial tcp ${ip}:${port}: connect: connection refused`);
}

/** exec, attach (streamLocation) and portforward (PortForwardLocation). */
function stream(ctx: ServerContext, req: ApiRequest, kind: string): never {
  const name = req.name ?? '';
  const pod = getPod(ctx, req, name);
  const container = kind === 'portforward' ? '' : chooseContainer(pod, req.query.get('container') ?? '');
  const nodeName = isJsonObject(pod.spec) && typeof pod.spec.nodeName === 'string' ? pod.spec.nodeName : '';
  if (!nodeName) throw new StatusError(badRequestStatus(`pod ${name} does not have a host assigned`));
  if (!ctx.store.get('nodes', nodeName)) throw new StatusError(notFoundStatus({ resource: 'nodes', group: '', name: nodeName }));
  if (!req.upgrade) throw new StatusError(badRequestStatus('Upgrade request required'));
  const what = kind === 'portforward' ? `forward ports of pod ${JSON.stringify(name)}` : `${kind} in container ${JSON.stringify(container)}`;
  throw new StatusError(internalErrorStatus(`the sandbox's simulated containers run no processes: cannot ${what}`));
}

export function connectPod(ctx: ServerContext, req: ApiRequest): never {
  if (req.subresource === 'proxy') return proxy(ctx, req);
  return stream(ctx, req, req.subresource ?? '');
}
