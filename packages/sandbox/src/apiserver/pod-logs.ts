// GET pods/NAME/log, as the pod registry's LogREST serves it: the PodLogOptions decoded from the
// query (a value that does not convert is a 400) and validated (422), the container chosen
// (LogLocation's validateContainer), then the node's kubelet is asked for the log, which is streamed
// as text/plain. A pod not yet on a node has no log location: 204 with no body. The kubelet's refusals
// come back as the apiserver's response checker words them (400 BadRequest with the kubelet's text).

import { badRequestStatus, failure, fieldForbidden, fieldInvalid, invalidStatus, notFoundStatus, StatusError, type FieldError } from '../errors.ts';
import { isJsonObject, type KubeObject } from '../meta/object.ts';
import type { ServerContext } from './context.ts';
import { KubeletError, type ContainerLogOptions, type ContainerLogStream } from './kubelet-connections.ts';
import { chooseContainer } from './pod-containers.ts';
import type { ApiRequest, StreamResult } from './request.ts';
import { reasonlessFailure } from './status.ts';
import { requestKey } from './storage-key.ts';

const int64Max = 2n ** 63n - 1n;

/** runtime.Convert_Slice_string_To_bool: anything but `0`, `f` and `false` (any case) is true. */
const queryBool = (query: URLSearchParams, name: string): boolean => {
  const value = query.get(name);
  return value !== null && value !== '0' && !['f', 'false'].includes(value.toLowerCase());
};

/** Convert_Slice_string_To_Pointer_int64: strconv.ParseInt's errors are the 400's message. */
function queryInt64(query: URLSearchParams, name: string): number | undefined {
  const value = query.get(name);
  if (value === null) return undefined;
  if (!/^[+-]?\d+$/.test(value)) throw new StatusError(badRequestStatus(`strconv.ParseInt: parsing ${JSON.stringify(value)}: invalid syntax`));
  const n = BigInt(value);
  if (n > int64Max || n < -int64Max - 1n) throw new StatusError(badRequestStatus(`strconv.ParseInt: parsing ${JSON.stringify(value)}: value out of range`));
  return Number(n);
}

/** metav1.Time.UnmarshalQueryParameter: RFC 3339 (empty and `null` are the zero time, i.e. unset). */
function queryTime(query: URLSearchParams, name: string): number | undefined {
  const value = query.get(name);
  if (value === null || value === '' || value === 'null') return undefined;
  const ms = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/.test(value) ? Date.parse(value) : NaN;
  if (Number.isNaN(ms)) {
    throw new StatusError(badRequestStatus(`parsing time ${JSON.stringify(value)} as "2006-01-02T15:04:05Z07:00": cannot parse ${JSON.stringify(value)} as "2006"`));
  }
  return ms;
}

interface PodLogOptions {
  container: string;
  follow: boolean;
  previous: boolean;
  timestamps: boolean;
  sinceSeconds: number | undefined;
  sinceTime: number | undefined;
  tailLines: number | undefined;
  limitBytes: number | undefined;
}

function parsePodLogOptions(query: URLSearchParams): PodLogOptions {
  return {
    container: query.get('container') ?? '',
    follow: queryBool(query, 'follow'),
    previous: queryBool(query, 'previous'),
    timestamps: queryBool(query, 'timestamps'),
    sinceSeconds: queryInt64(query, 'sinceSeconds'),
    sinceTime: queryTime(query, 'sinceTime'),
    tailLines: queryInt64(query, 'tailLines'),
    limitBytes: queryInt64(query, 'limitBytes'),
  };
}

/** ValidatePodLogOptions. */
function validatePodLogOptions(o: PodLogOptions): FieldError[] {
  const errors: FieldError[] = [];
  if (o.tailLines !== undefined && o.tailLines < 0) errors.push(fieldInvalid('tailLines', o.tailLines, 'must be greater than or equal to 0'));
  if (o.limitBytes !== undefined && o.limitBytes < 1) errors.push(fieldInvalid('limitBytes', o.limitBytes, 'must be greater than 0'));
  if (o.sinceSeconds !== undefined && o.sinceTime !== undefined) errors.push(fieldForbidden('', 'at most one of `sinceTime` or `sinceSeconds` may be specified'));
  else if (o.sinceSeconds !== undefined && o.sinceSeconds < 1) errors.push(fieldInvalid('sinceSeconds', o.sinceSeconds, 'must be greater than 0'));
  return errors;
}

/** GenericHttpResponseChecker: the kubelet's 400 keeps its text; a 404 becomes NewGenericServerResponse's. */
function kubeletFailure(err: KubeletError, name: string): StatusError {
  if (err.code === 400) return new StatusError(badRequestStatus(err.message));
  return new StatusError(failure(404, 'NotFound', `the server could not find the requested resource ( pods/log ${name})`, { name, kind: 'pods/log' }));
}

/** The kubelet's address as the apiserver picks it (Hostname first), for the error of a node nothing listens on. */
function unreachableKubelet(node: KubeObject, path: string, query: string): StatusError {
  const status = isJsonObject(node.status) ? node.status : {};
  const addresses = Array.isArray(status.addresses) ? status.addresses.filter(isJsonObject) : [];
  const address = ['Hostname', 'InternalDNS', 'InternalIP', 'ExternalDNS', 'ExternalIP']
    .map((type) => addresses.find((a) => a.type === type)?.address)
    .find((a): a is string => typeof a === 'string' && a !== '');
  const endpoint = isJsonObject(status.daemonEndpoints) && isJsonObject(status.daemonEndpoints.kubeletEndpoint) ? status.daemonEndpoints.kubeletEndpoint : {};
  const port = typeof endpoint.Port === 'number' && endpoint.Port > 0 ? endpoint.Port : 10250;
  const host = address ?? node.metadata.name ?? '';
  const url = `https://${host}:${port}${path}${query ? `?${query}` : ''}`;
  const dial = /^[\d.]+$/.test(host) ? `dial tcp ${host}:${port}: connect: connection refused` : `dial tcp: lookup ${host}: no such host`;
  return reasonlessFailure(500, `Get ${JSON.stringify(url)}: ${dial}`);
}

/** LogLocation's query for the kubelet, in its order. */
function kubeletQuery(o: PodLogOptions): string {
  const params = new URLSearchParams();
  if (o.follow) params.append('follow', 'true');
  if (o.previous) params.append('previous', 'true');
  if (o.timestamps) params.append('timestamps', 'true');
  if (o.sinceSeconds !== undefined) params.append('sinceSeconds', String(o.sinceSeconds));
  if (o.sinceTime !== undefined) params.append('sinceTime', new Date(o.sinceTime).toISOString().replace(/\.\d{3}Z$/, 'Z'));
  if (o.tailLines !== undefined) params.append('tailLines', String(o.tailLines));
  if (o.limitBytes !== undefined) params.append('limitBytes', String(o.limitBytes));
  params.sort();
  return params.toString();
}

export function podLogs(ctx: ServerContext, req: ApiRequest): StreamResult {
  const name = req.name ?? '';
  const options = parsePodLogOptions(req.query);
  const errors = validatePodLogOptions(options);
  if (errors.length) throw new StatusError(invalidStatus({ kind: 'PodLogOptions', group: '', name }, errors));
  const pod = ctx.store.get('pods', requestKey(req, name))?.object;
  if (!pod) throw new StatusError(notFoundStatus({ resource: 'pods', group: '', name }));
  const container = chooseContainer(pod, options.container);
  const nodeName = isJsonObject(pod.spec) && typeof pod.spec.nodeName === 'string' ? pod.spec.nodeName : '';
  if (!nodeName) return { type: 'stream', contentType: 'text/plain', warnings: [] };
  const node = ctx.store.get('nodes', nodeName)?.object;
  if (!node) throw new StatusError(notFoundStatus({ resource: 'nodes', group: '', name: nodeName }));
  const kubelet = ctx.kubelets.get(nodeName);
  if (!kubelet) throw unreachableKubelet(node, `/containerLogs/${req.namespace ?? ''}/${name}/${container}`, kubeletQuery(options));
  // The kubelet turns sinceSeconds into a time on its own clock.
  const sinceMs = options.sinceSeconds !== undefined ? ctx.clock() - options.sinceSeconds * 1000 : options.sinceTime;
  const logOptions: ContainerLogOptions = { ...options, sinceMs };
  let stream: ContainerLogStream;
  try {
    stream = kubelet.containerLogs(req.namespace ?? '', name, container, logOptions);
  } catch (err) {
    throw err instanceof KubeletError ? kubeletFailure(err, name) : err;
  }
  return { type: 'stream', contentType: 'text/plain', start: (sink) => stream.start(sink), warnings: [] };
}
