// Service defaults: SetDefaults_Service, the clusterIP/clusterIPs normalisation of the strategy, and
// what the REST layer allocates (cluster IP, IP family fields, node ports) on a single-stack IPv4
// cluster. Updates keep what was allocated before.

import { isJsonObject, type JsonObject } from '../meta/object.ts';
import { isIPv6String } from '../validation/network.ts';
import { child, childList, defaultField, defaultString, isUnset } from './fields.ts';

export interface ServiceAllocators {
  /** A free address from the service CIDR (single-stack IPv4). */
  allocateClusterIP?: () => string;
  /** A free port from the node port range (30000-32767). */
  allocateNodePort?: () => number;
}

const DEFAULT_CLIENT_IP_AFFINITY_SECONDS = 10800;

const externallyAccessible = (spec: JsonObject): boolean =>
  spec.type === 'LoadBalancer' || spec.type === 'NodePort' || (spec.type === 'ClusterIP' && Array.isArray(spec.externalIPs) && spec.externalIPs.length > 0);
const usesNodePorts = (spec: JsonObject): boolean => spec.type === 'NodePort' || (spec.type === 'LoadBalancer' && spec.allocateLoadBalancerNodePorts !== false);
const needsHealthCheck = (spec: JsonObject): boolean => spec.type === 'LoadBalancer' && spec.externalTrafficPolicy === 'Local';

function setDefaultsService(spec: JsonObject): void {
  defaultString(spec, 'sessionAffinity', 'None');
  if (spec.sessionAffinity === 'None') delete spec.sessionAffinityConfig;
  if (spec.sessionAffinity === 'ClientIP') {
    const config = isJsonObject(spec.sessionAffinityConfig) ? spec.sessionAffinityConfig : undefined;
    const clientIP = isJsonObject(config?.clientIP) ? config.clientIP : undefined;
    if (isUnset(clientIP?.timeoutSeconds)) spec.sessionAffinityConfig = { clientIP: { timeoutSeconds: DEFAULT_CLIENT_IP_AFFINITY_SECONDS } };
  }
  defaultString(spec, 'type', 'ClusterIP');
  for (const port of childList(spec, 'ports')) {
    defaultString(port, 'protocol', 'TCP');
    if (isUnset(port.targetPort) || port.targetPort === 0 || port.targetPort === '') port.targetPort = port.port;
  }
  if (externallyAccessible(spec)) defaultString(spec, 'externalTrafficPolicy', 'Cluster');
  if (['NodePort', 'LoadBalancer', 'ClusterIP'].includes(String(spec.type))) defaultField(spec, 'internalTrafficPolicy', 'Cluster');
  if (spec.type === 'LoadBalancer') defaultField(spec, 'allocateLoadBalancerNodePorts', true);
}

/** The strategy keeps clusterIP and clusterIPs[0] in step when only one of them was given. */
function normalizeClusterIPs(spec: JsonObject): void {
  const clusterIP = typeof spec.clusterIP === 'string' ? spec.clusterIP : '';
  const clusterIPs = Array.isArray(spec.clusterIPs) ? spec.clusterIPs : [];
  if (clusterIP !== '' && clusterIPs.length === 0) spec.clusterIPs = [clusterIP];
  else if (clusterIP === '' && clusterIPs.length > 0 && typeof clusterIPs[0] === 'string') spec.clusterIP = clusterIPs[0];
}

function allocateCreate(spec: JsonObject, alloc: ServiceAllocators): void {
  if (spec.type === 'ExternalName') return;
  const headless = spec.clusterIP === 'None';
  if (headless) {
    spec.clusterIPs = ['None'];
    // Headless services without a selector may be dual-stack; the others stay single-stack.
    const hasSelector = isJsonObject(spec.selector) && Object.keys(spec.selector).length > 0;
    defaultField(spec, 'ipFamilyPolicy', hasSelector ? 'SingleStack' : 'RequireDualStack');
    if (!Array.isArray(spec.ipFamilies) || spec.ipFamilies.length === 0) spec.ipFamilies = ['IPv4'];
  } else {
    if ((isUnset(spec.clusterIP) || spec.clusterIP === '') && alloc.allocateClusterIP) {
      const ip = alloc.allocateClusterIP();
      spec.clusterIP = ip;
      spec.clusterIPs = [ip];
    }
    if (!Array.isArray(spec.ipFamilies) || spec.ipFamilies.length === 0) {
      const ips = Array.isArray(spec.clusterIPs) ? spec.clusterIPs.filter((x): x is string => typeof x === 'string') : [];
      spec.ipFamilies = ips.length > 0 ? ips.map((ip) => (isIPv6String(ip) ? 'IPv6' : 'IPv4')) : ['IPv4'];
    }
    defaultField(spec, 'ipFamilyPolicy', 'SingleStack');
  }
  allocateNodePorts(spec, alloc, undefined);
}

function allocateNodePorts(spec: JsonObject, alloc: ServiceAllocators, oldSpec: JsonObject | undefined): void {
  const oldPorts = oldSpec ? childList(oldSpec, 'ports') : [];
  if (usesNodePorts(spec)) {
    for (const port of childList(spec, 'ports')) {
      if (!isUnset(port.nodePort) && port.nodePort !== 0) continue;
      const previous = oldPorts.find((o) => o.port === port.port && (o.protocol ?? 'TCP') === port.protocol && !isUnset(o.nodePort) && o.nodePort !== 0);
      if (previous) port.nodePort = previous.nodePort;
      else if (alloc.allocateNodePort) port.nodePort = alloc.allocateNodePort();
    }
  }
  if (needsHealthCheck(spec) && (isUnset(spec.healthCheckNodePort) || spec.healthCheckNodePort === 0)) {
    if (oldSpec && needsHealthCheck(oldSpec) && !isUnset(oldSpec.healthCheckNodePort)) spec.healthCheckNodePort = oldSpec.healthCheckNodePort;
    else if (alloc.allocateNodePort) spec.healthCheckNodePort = alloc.allocateNodePort();
  }
}

/** An update keeps the allocated addresses and ports that the new object leaves unset. */
function allocateUpdate(spec: JsonObject, oldSpec: JsonObject, alloc: ServiceAllocators): void {
  if (spec.type === 'ExternalName') {
    for (const f of ['clusterIP', 'clusterIPs', 'ipFamilies', 'ipFamilyPolicy']) if (JSON.stringify(spec[f]) === JSON.stringify(oldSpec[f])) delete spec[f];
    return;
  }
  if (oldSpec.type === 'ExternalName') {
    allocateCreate(spec, alloc);
    return;
  }
  if (isUnset(spec.clusterIP) || spec.clusterIP === '') {
    for (const f of ['clusterIP', 'clusterIPs']) if (!isUnset(oldSpec[f])) spec[f] = oldSpec[f];
  }
  for (const f of ['ipFamilies', 'ipFamilyPolicy']) if ((isUnset(spec[f]) || (Array.isArray(spec[f]) && spec[f].length === 0)) && !isUnset(oldSpec[f])) spec[f] = oldSpec[f];
  if (!usesNodePorts(spec)) for (const port of childList(spec, 'ports')) delete port.nodePort;
  allocateNodePorts(spec, alloc, oldSpec);
}

export function defaultService(obj: JsonObject, operation: 'create' | 'update', old: JsonObject | undefined, alloc: ServiceAllocators): void {
  const spec = child(obj, 'spec');
  setDefaultsService(spec);
  normalizeClusterIPs(spec);
  if (operation === 'create') {
    allocateCreate(spec, alloc);
    obj.status = { loadBalancer: {} };
  } else {
    allocateUpdate(spec, isJsonObject(old?.spec) ? old.spec : {}, alloc);
  }
}
