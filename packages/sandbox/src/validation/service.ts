// Services, as ValidateService / ValidateServiceUpdate / ValidateServiceStatusUpdate check them,
// after the REST layer has allocated the cluster IP, IP families and node ports.

import { fieldDuplicate, fieldForbidden, fieldInvalid, fieldNotSupported, fieldRequired, type FieldError } from '../errors.ts';
import { goQuote } from '../crd/go-format.ts';
import { validatePortNumOrName } from './containers.ts';
import { goLiteral, goStringSliceText } from './golang.ts';
import { asArray, asNumber, asObject, asString, isPresent, objectList } from './json.ts';
import { validateLabels, validateObjectMetaCreate, validateObjectMetaUpdate } from './meta.ts';
import { isIPv6String, isValidCIDR, isValidIP, parseIP, validateNonSpecialIP } from './network.ts';
import { isDNS1123Label, isDNS1123Subdomain, isQualifiedName, isValidPortNum, nameIsDNS1035Label } from './names.ts';

type Obj = Record<string, unknown>;

const serviceTypes = ['ClusterIP', 'ExternalName', 'LoadBalancer', 'NodePort'];
const protocols = ['SCTP', 'TCP', 'UDP'];
const MAX_CLIENT_IP_AFFINITY_SECONDS = 86400;

const isHeadless = (spec: Obj): boolean => {
  const ips = asArray(spec.clusterIPs);
  return ips.length === 1 && ips[0] === 'None';
};
const externallyAccessible = (spec: Obj): boolean =>
  spec.type === 'LoadBalancer' || spec.type === 'NodePort' || (spec.type === 'ClusterIP' && asArray(spec.externalIPs).length > 0);
const needsHealthCheck = (spec: Obj): boolean => spec.type === 'LoadBalancer' && spec.externalTrafficPolicy === 'Local';
const ipFamiliesLiteral = (families: unknown): unknown =>
  goLiteral(Array.isArray(families) ? `[]core.IPFamily{${families.map((f) => goQuote(asString(f))).join(', ')}}` : '[]core.IPFamily(nil)');
const clusterIPsLiteral = (ips: unknown): unknown => goLiteral(goStringSliceText(ips));

function servicePortLiteral(port: Obj): string {
  return `core.ServicePort{Name:"", Protocol:${goQuote(asString(port.protocol))}, AppProtocol:(*string)(nil), Port:${asNumber(port.port) ?? 0}, TargetPort:intstr.IntOrString{Type:0, IntVal:0, StrVal:""}, NodePort:0}`;
}

function validateServicePort(port: Obj, requireName: boolean, names: Set<string>, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const name = asString(port.name);
  if (requireName && name === '') errs.push(fieldRequired(`${path}.name`));
  else if (name !== '') {
    errs.push(...isDNS1123Label(name).map((msg) => fieldInvalid(`${path}.name`, name, msg)));
    if (names.has(name)) errs.push(fieldDuplicate(`${path}.name`, name));
    else names.add(name);
  }
  const num = asNumber(port.port) ?? 0;
  errs.push(...isValidPortNum(num).map((msg) => fieldInvalid(`${path}.port`, num, msg)));
  const protocol = asString(port.protocol);
  if (protocol === '') errs.push(fieldRequired(`${path}.protocol`));
  else if (!protocols.includes(protocol)) errs.push(fieldNotSupported(`${path}.protocol`, protocol, protocols));
  errs.push(...validatePortNumOrName(port.targetPort, `${path}.targetPort`));
  if (isPresent(port.appProtocol)) {
    const app = asString(port.appProtocol);
    errs.push(...isQualifiedName(app).map((msg) => fieldInvalid(`${path}.appProtocol`, app, msg)));
  }
  return errs;
}

/** ValidateServiceClusterIPsRelatedFields: clusterIP(s), ipFamilies and ipFamilyPolicy agree. */
function validateClusterIPs(spec: Obj): FieldError[] {
  if (spec.type === 'ExternalName') return [];
  const errs: FieldError[] = [];
  const clusterIP = asString(spec.clusterIP);
  const clusterIPs = asArray(spec.clusterIPs).map(asString);
  if (clusterIP !== '') {
    if (clusterIPs.length === 0) errs.push(fieldRequired('spec.clusterIPs'));
    else if (clusterIPs[0] !== clusterIP) errs.push(fieldInvalid('spec.clusterIPs', clusterIPsLiteral(clusterIPs), 'first value must match `clusterIP`'));
  } else if (clusterIPs.length > 0) {
    errs.push(fieldInvalid('spec.clusterIPs', clusterIPsLiteral(clusterIPs), 'must be empty when `clusterIP` is not specified'));
  }
  const families = asArray(spec.ipFamilies).map(asString);
  const seen = new Set<string>();
  families.forEach((f, i) => {
    if (f !== 'IPv4' && f !== 'IPv6') errs.push(fieldNotSupported(`spec.ipFamilies[${i}]`, f, ['IPv4', 'IPv6']));
    if (seen.has(f)) errs.push(fieldDuplicate(`spec.ipFamilies[${i}]`, f));
    seen.add(f);
  });
  if (isPresent(spec.ipFamilyPolicy)) {
    const policy = asString(spec.ipFamilyPolicy);
    const policies = ['PreferDualStack', 'RequireDualStack', 'SingleStack'];
    if (!policies.includes(policy)) errs.push(fieldNotSupported('spec.ipFamilyPolicy', policy, policies));
  }
  let invalidIPs = false;
  clusterIPs.forEach((ip, i) => {
    if (i === 0 && ip === 'None') {
      if (clusterIPs.length > 1) {
        invalidIPs = true;
        errs.push(fieldInvalid('spec.clusterIPs', clusterIPsLiteral(clusterIPs), "'None' must be the first and only value"));
      }
      return;
    }
    const ipErrs = isValidIP(`spec.clusterIPs[${i}]`, ip);
    if (ipErrs.length > 0) invalidIPs = true;
    errs.push(...ipErrs);
  });
  if (clusterIPs.length > 2) errs.push(fieldInvalid('spec.clusterIPs', clusterIPsLiteral(clusterIPs), 'may only hold up to 2 values'));
  if (invalidIPs) return errs;
  if (clusterIPs.length > 1) {
    const v6 = clusterIPs.map(isIPv6String);
    if (clusterIPs.length !== 2 || v6[0] === v6[1])
      errs.push(fieldInvalid('spec.clusterIPs', clusterIPsLiteral(clusterIPs), 'may specify no more than one IP for each IP family'));
  }
  if (!isHeadless(spec)) {
    clusterIPs.slice(0, families.length).forEach((ip, i) => {
      if (families[i] === 'IPv4' && isIPv6String(ip))
        errs.push(fieldInvalid(`spec.clusterIPs[${i}]`, ip, `expected an IPv4 value as indicated by \`ipFamilies[${i}]\``));
      if (families[i] === 'IPv6' && !isIPv6String(ip))
        errs.push(fieldInvalid(`spec.clusterIPs[${i}]`, ip, `expected an IPv6 value as indicated by \`ipFamilies[${i}]\``));
    });
  }
  return errs;
}

function validateLoadBalancerClass(spec: Obj, oldSpec: Obj | undefined): FieldError[] {
  const errs: FieldError[] = [];
  const isLB = spec.type === 'LoadBalancer';
  if (oldSpec && oldSpec.type === 'LoadBalancer' && isLB && asString(oldSpec.loadBalancerClass) !== asString(spec.loadBalancerClass))
    errs.push(fieldInvalid('spec.loadBalancerClass', isPresent(spec.loadBalancerClass) ? asString(spec.loadBalancerClass) : 'null', 'may not change once set'));
  if (!isPresent(spec.loadBalancerClass)) return errs;
  const cls = asString(spec.loadBalancerClass);
  if (isLB) errs.push(...isQualifiedName(cls).map((msg) => fieldInvalid('spec.loadBalancerClass', cls, msg)));
  else errs.push(fieldForbidden('spec.loadBalancerClass', "may only be used when `type` is 'LoadBalancer'"));
  return errs;
}

export function validateService(service: Obj, oldSpec?: Obj): FieldError[] {
  const meta = asObject(service.metadata);
  const spec = asObject(service.spec);
  const errs = validateObjectMetaCreate(meta, { namespaced: true, nameValidator: nameIsDNS1035Label, standardFinalizerNames: true });
  const annotations = asObject(meta.annotations);
  const hints = annotations['service.kubernetes.io/topology-aware-hints'];
  const mode = annotations['service.kubernetes.io/topology-mode'];
  if (typeof hints === 'string' && typeof mode === 'string' && hints !== mode)
    errs.push(
      fieldInvalid('metadata.annotations[service.kubernetes.io/topology-mode]', mode, 'must match annotations[service.kubernetes.io/topology-aware-hints] when both are specified'),
    );
  const ports = objectList(spec.ports);
  const type = asString(spec.type);
  if (ports.length === 0 && !isHeadless(spec) && type !== 'ExternalName') errs.push(fieldRequired('spec.ports'));
  const clusterIPs = asArray(spec.clusterIPs);
  if ((type === 'LoadBalancer' || type === 'NodePort') && isHeadless(spec))
    errs.push(fieldInvalid('spec.clusterIPs[0]', asString(clusterIPs[0]), `may not be set to 'None' for ${type} services`));
  if (type === 'ExternalName') {
    if (clusterIPs.length > 0) errs.push(fieldForbidden('spec.clusterIPs', 'may not be set for ExternalName services'));
    if (asArray(spec.ipFamilies).length > 0) errs.push(fieldForbidden('spec.ipFamilies', 'may not be set for ExternalName services'));
    if (isPresent(spec.ipFamilyPolicy)) errs.push(fieldForbidden('spec.ipFamilyPolicy', 'may not be set for ExternalName services'));
    const cname = asString(spec.externalName).replace(/\.$/, '');
    if (cname !== '') errs.push(...isDNS1123Subdomain(cname).map((msg) => fieldInvalid('spec.externalName', cname, msg)));
    else errs.push(fieldRequired('spec.externalName'));
  }
  const names = new Set<string>();
  ports.forEach((port, i) => errs.push(...validateServicePort(port, ports.length > 1, names, `spec.ports[${i}]`)));
  if (isPresent(spec.selector)) errs.push(...validateLabels(spec.selector, 'spec.selector'));
  const affinity = asString(spec.sessionAffinity);
  if (affinity === '') errs.push(fieldRequired('spec.sessionAffinity'));
  else if (affinity !== 'ClientIP' && affinity !== 'None') errs.push(fieldNotSupported('spec.sessionAffinity', affinity, ['ClientIP', 'None']));
  if (affinity === 'ClientIP') {
    const why = 'when session affinity type is ClientIP';
    const config = spec.sessionAffinityConfig;
    const clientIP = asObject(config).clientIP;
    const timeout = asObject(clientIP).timeoutSeconds;
    if (!isPresent(config)) errs.push(fieldRequired('spec.sessionAffinityConfig', why));
    else if (!isPresent(clientIP)) errs.push(fieldRequired('spec.sessionAffinityConfig.clientIP', why));
    else if (!isPresent(timeout)) errs.push(fieldRequired('spec.sessionAffinityConfig.clientIP.timeoutSeconds', why));
    else if ((asNumber(timeout) ?? 0) <= 0 || (asNumber(timeout) ?? 0) > MAX_CLIENT_IP_AFFINITY_SECONDS)
      errs.push(fieldInvalid('spec.sessionAffinityConfig.clientIP.timeoutSeconds', asNumber(timeout) ?? 0, `must be greater than 0 and less than ${MAX_CLIENT_IP_AFFINITY_SECONDS}`));
  } else if (affinity === 'None' && isPresent(spec.sessionAffinityConfig)) {
    errs.push(fieldForbidden('spec.sessionAffinityConfig', 'must not be set when session affinity is None'));
  }
  errs.push(...validateClusterIPs(spec));
  asArray(spec.externalIPs).forEach((ip, i) => {
    const ipErrs = isValidIP(`spec.externalIPs[${i}]`, asString(ip));
    errs.push(...(ipErrs.length > 0 ? ipErrs : validateNonSpecialIP(`spec.externalIPs[${i}]`, asString(ip))));
  });
  if (type === '') errs.push(fieldRequired('spec.type'));
  else if (!serviceTypes.includes(type)) errs.push(fieldNotSupported('spec.type', type, serviceTypes));
  if (type === 'ClusterIP')
    ports.forEach((port, i) => {
      if ((asNumber(port.nodePort) ?? 0) !== 0) errs.push(fieldForbidden(`spec.ports[${i}].nodePort`, "may not be used when `type` is 'ClusterIP'"));
    });
  const nodePorts = new Set<string>();
  ports.forEach((port, i) => {
    const nodePort = asNumber(port.nodePort) ?? 0;
    if (nodePort === 0) return;
    const key = `${asString(port.protocol)}/${nodePort}`;
    if (nodePorts.has(key)) errs.push(fieldDuplicate(`spec.ports[${i}].nodePort`, nodePort));
    nodePorts.add(key);
  });
  const portKeys = new Set<string>();
  ports.forEach((port, i) => {
    const key = `${asString(port.protocol)}/${asNumber(port.port) ?? 0}`;
    if (portKeys.has(key)) errs.push(fieldDuplicate(`spec.ports[${i}]`, goLiteral(servicePortLiteral(port))));
    portKeys.add(key);
  });
  const ranges = asArray(spec.loadBalancerSourceRanges).map(asString);
  if (ranges.length > 0) {
    if (type !== 'LoadBalancer') errs.push(fieldForbidden('spec.LoadBalancerSourceRanges', "may only be used when `type` is 'LoadBalancer'"));
    ranges.forEach((r, i) => errs.push(...isValidCIDR(`spec.LoadBalancerSourceRanges[${i}]`, r.trim())));
  }
  if (isPresent(spec.allocateLoadBalancerNodePorts) && type !== 'LoadBalancer')
    errs.push(fieldForbidden('spec.allocateLoadBalancerNodePorts', "may only be used when `type` is 'LoadBalancer'"));
  // The real server names this path without `spec` (sic).
  if (type === 'LoadBalancer' && !isPresent(spec.allocateLoadBalancerNodePorts)) errs.push(fieldRequired('allocateLoadBalancerNodePorts'));
  errs.push(...validateLoadBalancerClass(spec, oldSpec));
  errs.push(...validateTrafficPolicies(spec));
  return errs;
}

function validateTrafficPolicies(spec: Obj): FieldError[] {
  const errs: FieldError[] = [];
  const external = asString(spec.externalTrafficPolicy);
  if (!externallyAccessible(spec)) {
    if (external !== '') errs.push(fieldInvalid('spec.externalTrafficPolicy', external, 'may only be set for externally-accessible services'));
  } else if (external === '') errs.push(fieldRequired('spec.externalTrafficPolicy'));
  else if (external !== 'Cluster' && external !== 'Local') errs.push(fieldNotSupported('spec.externalTrafficPolicy', external, ['Cluster', 'Local']));
  const healthCheck = asNumber(spec.healthCheckNodePort) ?? 0;
  if (!needsHealthCheck(spec)) {
    if (healthCheck !== 0)
      errs.push(fieldInvalid('spec.healthCheckNodePort', healthCheck, "may only be set when `type` is 'LoadBalancer' and `externalTrafficPolicy` is 'Local'"));
  } else if (healthCheck === 0) errs.push(fieldRequired('spec.healthCheckNodePort'));
  else errs.push(...isValidPortNum(healthCheck).map((msg) => fieldInvalid('spec.healthCheckNodePort', healthCheck, msg)));
  if (!isPresent(spec.internalTrafficPolicy)) {
    if (['NodePort', 'LoadBalancer', 'ClusterIP'].includes(asString(spec.type))) errs.push(fieldRequired('spec.internalTrafficPolicy'));
  } else if (!['Cluster', 'Local'].includes(asString(spec.internalTrafficPolicy))) {
    errs.push(fieldNotSupported('spec.internalTrafficPolicy', asString(spec.internalTrafficPolicy), ['Cluster', 'Local']));
  }
  if (isPresent(spec.trafficDistribution) && spec.trafficDistribution !== 'PreferClose')
    errs.push(fieldNotSupported('spec.trafficDistribution', asString(spec.trafficDistribution), ['PreferClose']));
  return errs;
}

/** clusterIPs may only gain or lose their secondary entry, and only with a matching policy. */
function validateClusterIPUpgradeDowngrade(old: Obj, spec: Obj): FieldError[] {
  if (spec.type === 'ExternalName' || old.type === 'ExternalName') return [];
  if (isHeadless(old) && isHeadless(spec)) return [];
  const oldIPs = asArray(old.clusterIPs).map(asString);
  const ips = asArray(spec.clusterIPs).map(asString);
  const value = clusterIPsLiteral(spec.clusterIPs);
  const errs: FieldError[] = [];
  if (oldIPs.length === ips.length) {
    oldIPs.forEach((ip, i) => ip !== ips[i] && errs.push(fieldInvalid(`spec.clusterIPs[${i}]`, value, 'may not change once set')));
  } else if (oldIPs.length > ips.length) {
    if (ips.length === 0) errs.push(fieldInvalid('spec.clusterIPs[0]', value, 'primary clusterIP can not be unset'));
    if (ips.length > 0 && ips[0] !== oldIPs[0]) errs.push(fieldInvalid('spec.clusterIPs[0]', value, 'may not change once set'));
    if (ips.length === 1 && spec.ipFamilyPolicy !== 'SingleStack')
      errs.push(fieldInvalid('spec.ipFamilyPolicy', isPresent(spec.ipFamilyPolicy) ? asString(spec.ipFamilyPolicy) : 'null', "must be set to 'SingleStack' when releasing the secondary clusterIP"));
  } else if (oldIPs.length > 0 && ips[0] !== oldIPs[0]) {
    errs.push(fieldInvalid('spec.clusterIPs[0]', value, 'may not change once set'));
  }
  return errs;
}

function validateIPFamilyUpgradeDowngrade(old: Obj, spec: Obj): FieldError[] {
  if (spec.type === 'ExternalName' || old.type === 'ExternalName') return [];
  if (isHeadless(old) !== isHeadless(spec) || isHeadless(spec)) return [];
  const oldFamilies = asArray(old.ipFamilies).map(asString);
  const families = asArray(spec.ipFamilies).map(asString);
  const errs: FieldError[] = [];
  if (oldFamilies.length === families.length) {
    oldFamilies.forEach((f, i) => f !== families[i] && errs.push(fieldInvalid('spec.ipFamilies[0]', ipFamiliesLiteral(spec.ipFamilies), 'may not change once set')));
  } else if (oldFamilies.length > families.length) {
    if (asArray(spec.clusterIPs).length === 0) errs.push(fieldInvalid('spec.ipFamilies[0]', ipFamiliesLiteral(spec.ipFamilies), 'primary ipFamily can not be unset'));
    if (families.length > 0 && families[0] !== oldFamilies[0]) errs.push(fieldInvalid('spec.ipFamilies[0]', clusterIPsLiteral(spec.clusterIPs), 'may not change once set'));
    if (families.length === 1 && spec.ipFamilyPolicy !== 'SingleStack')
      errs.push(fieldInvalid('spec.ipFamilyPolicy', isPresent(spec.ipFamilyPolicy) ? asString(spec.ipFamilyPolicy) : 'null', "must be set to 'SingleStack' when releasing the secondary ipFamily"));
  } else if (oldFamilies.length > 0 && families.length > 0 && families[0] !== oldFamilies[0]) {
    errs.push(fieldInvalid('spec.ipFamilies[0]', clusterIPsLiteral(spec.clusterIPs), 'may not change once set'));
  }
  return errs;
}

export function validateServiceUpdate(service: Obj, old: Obj): FieldError[] {
  const spec = asObject(service.spec);
  const oldSpec = asObject(old.spec);
  const errs = validateObjectMetaUpdate(service.metadata, old.metadata, { standardFinalizerNames: true });
  errs.push(...validateClusterIPUpgradeDowngrade(oldSpec, spec));
  errs.push(...validateIPFamilyUpgradeDowngrade(oldSpec, spec));
  if (needsHealthCheck(oldSpec) && needsHealthCheck(spec) && asNumber(spec.healthCheckNodePort) !== asNumber(oldSpec.healthCheckNodePort))
    errs.push(fieldForbidden('spec.healthCheckNodePort', 'field is immutable'));
  return [...errs, ...validateService(service, oldSpec)];
}

export function validateServiceStatusUpdate(service: Obj, old: Obj): FieldError[] {
  const errs = validateObjectMetaUpdate(service.metadata, old.metadata, { standardFinalizerNames: true });
  objectList(asObject(asObject(service.status).loadBalancer).ingress).forEach((ing, i) => {
    const p = `status.loadBalancer.ingress[${i}]`;
    const ip = asString(ing.ip);
    if (ip !== '') errs.push(...isValidIP(`${p}.ip`, ip));
    const hostname = asString(ing.hostname);
    if (hostname !== '') {
      errs.push(...isDNS1123Subdomain(hostname).map((msg) => fieldInvalid(`${p}.hostname`, hostname, msg)));
      if (parseIP(hostname)) errs.push(fieldInvalid(`${p}.hostname`, hostname, 'must be a DNS name, not an IP address'));
    }
  });
  return errs;
}
