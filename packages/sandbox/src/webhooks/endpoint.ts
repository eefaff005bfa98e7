// Where a webhook's clientConfig points. A URL is used as written. A Service is resolved as
// kube-apiserver's default resolver does (the Service must exist and expose the port; a headless
// one cannot be routed to); the URL in errors and the name the certificate must carry are
// `<name>.<namespace>.svc`, while the connection goes to the local address the sandbox maps the
// Service to (`webhookServices`), or, unmapped, to the Service's cluster IP, where nothing listens.

import { posix } from 'node:path';
import { isJsonObject, type KubeObject } from '../meta/object.ts';
import { asArray, asNumber, asObject, asString } from '../validation/json.ts';
import type { ServiceReference, Webhook } from './configuration.ts';
import type { WebhookTarget } from './transport.ts';

/** `namespace/name` (or `namespace/name:port`) of a Service → the local `https://host:port` serving it. */
export type WebhookServiceAddresses = Readonly<Record<string, string>>;

/** The webhook's endpoint cannot be resolved; the message is the failure's reason, as after `failed calling webhook "NAME": `. */
export class EndpointError extends Error {
  override readonly name = 'EndpointError';
}

interface Authority {
  host: string;
  port: number;
}

/** host[:port] as url.URL keeps it (`[::1]:8443`), with Go's default port for https. */
function parseAuthority(authority: string): Authority {
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(authority);
  if (bracketed) return { host: bracketed[1] ?? '', port: Number(bracketed[2] ?? 443) };
  const colon = authority.lastIndexOf(':');
  if (colon >= 0 && /^\d+$/.test(authority.slice(colon + 1))) return { host: authority.slice(0, colon), port: Number(authority.slice(colon + 1)) };
  return { host: authority, port: 443 };
}

/** rest.Config.APIPath handling: joined onto `/` and cleaned (so an empty path is `/`). */
const requestPath = (path: string, timeoutSeconds: number): string => `${posix.join('/', path)}?timeout=${timeoutSeconds}s`;

function urlTarget(url: string, webhook: Webhook): WebhookTarget {
  const rest = url.replace(/^https:\/\//i, '');
  const slash = rest.indexOf('/');
  const authority = slash < 0 ? rest : rest.slice(0, slash);
  const { host, port } = parseAuthority(authority);
  const path = requestPath(slash < 0 ? '' : rest.slice(slash), webhook.timeoutSeconds);
  // net.JoinHostPort(u.Host, "443") when the URL names no port (which brackets a bracketed IPv6 host again).
  const explicitPort = /^\[[^\]]*\]:\d+$|^[^:[\]]*:\d+$/.test(authority);
  return {
    url: `https://${authority}${path}`,
    dialHost: host,
    dialPort: port,
    serverName: host,
    path,
    hostHeader: authority,
    caBundle: webhook.caBundle,
    hostPort: explicitPort ? authority : `${authority.includes(':') ? `[${authority}]` : authority}:443`,
  };
}

/** ResolveCluster: the address of a Service's port, or why there is none. */
function resolveService(service: KubeObject | undefined, ref: ServiceReference, addresses: WebhookServiceAddresses): Authority {
  if (!service) throw new EndpointError(`service "${ref.name}" not found`);
  const spec = asObject(service.spec);
  const type = asString(spec.type) || 'ClusterIP';
  if (type === 'ClusterIP' && spec.clusterIP === 'None') throw new EndpointError('cannot route to service with ClusterIP "None"');
  if (!['ClusterIP', 'NodePort', 'LoadBalancer', 'ExternalName'].includes(type)) throw new EndpointError(`unsupported service type ${JSON.stringify(type)}`);
  if (type !== 'ExternalName' && !asArray(spec.ports).some((p) => isJsonObject(p) && asNumber(p.port) === ref.port)) {
    throw new EndpointError(`no service port ${ref.port} found for service "${ref.name}"`);
  }
  const mapped = addresses[`${ref.namespace}/${ref.name}:${ref.port}`] ?? addresses[`${ref.namespace}/${ref.name}`];
  if (mapped) return parseAuthority(mapped.replace(/^https?:\/\//i, '').replace(/\/.*$/, ''));
  return { host: type === 'ExternalName' ? asString(spec.externalName) : asString(spec.clusterIP), port: ref.port };
}

/** The target of a webhook call. Throws an EndpointError when a Service cannot be resolved. */
export function webhookTarget(webhook: Webhook, lookupService: (namespace: string, name: string) => KubeObject | undefined, addresses: WebhookServiceAddresses): WebhookTarget {
  const ref = webhook.service;
  if (!ref) {
    if (!webhook.url) throw new EndpointError('could not get REST client: webhook configuration must have either service or URL');
    return urlTarget(webhook.url, webhook);
  }
  const serverName = `${ref.name}.${ref.namespace}.svc`;
  const authority = `${serverName}:${ref.port}`;
  const path = requestPath(ref.path, webhook.timeoutSeconds);
  const url = `https://${authority}${path}`;
  let address: Authority;
  try {
    address = resolveService(lookupService(ref.namespace, ref.name), ref, addresses);
  } catch (err) {
    // The resolver runs when the client dials, so its error reads as the POST's.
    throw err instanceof EndpointError ? new EndpointError(`failed to call webhook: Post ${JSON.stringify(url)}: ${err.message}`) : err;
  }
  return {
    url,
    dialHost: address.host,
    dialPort: address.port,
    serverName,
    path,
    hostHeader: authority,
    caBundle: webhook.caBundle,
    hostPort: authority,
  };
}
