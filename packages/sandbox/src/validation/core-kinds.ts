// The small core/v1 kinds: Namespace, Node, ConfigMap, Secret, ServiceAccount and Endpoints, as
// pkg/apis/core/validation checks them on create, update and status update.

import { fieldForbidden, fieldInvalid, fieldNotSupported, fieldRequired, fieldTooLong, type FieldError } from '../errors.ts';
import { goQuote } from '../crd/go-format.ts';
import { goLiteral } from './golang.ts';
import { asArray, asNumber, asObject, asString, isPresent, objectList, semanticEqual } from './json.ts';
import { FIELD_IMMUTABLE, validateLabelName, validateObjectMetaCreate, validateObjectMetaUpdate, validateStandardFinalizerName } from './meta.ts';
import { isValidCIDR, isValidIP, validateNonSpecialIP } from './network.ts';
import { isConfigMapKey, isDNS1123Label, isQualifiedName, isValidLabelValue, isValidPortNum, nameIsDNSLabel, nameIsDNSSubdomain } from './names.ts';
import { validateResourceList } from './resources.ts';

type Obj = Record<string, unknown>;

const MAX_SECRET_SIZE = 1024 * 1024;
const metaUpdate = (obj: Obj, old: Obj): FieldError[] => validateObjectMetaUpdate(obj.metadata, old.metadata, { standardFinalizerNames: true });

// ---- Namespace ----

export function validateNamespace(ns: Obj): FieldError[] {
  const errs = validateObjectMetaCreate(ns.metadata, { namespaced: false, nameValidator: nameIsDNSLabel, standardFinalizerNames: true });
  for (const f of asArray(asObject(ns.spec).finalizers).map(asString))
    errs.push(...isQualifiedName(f).map((msg) => fieldInvalid('spec.finalizers', f, msg)), ...validateStandardFinalizerName(f, 'spec.finalizers'));
  return errs;
}

export const validateNamespaceUpdate = metaUpdate;

export function validateNamespaceStatusUpdate(ns: Obj, old: Obj): FieldError[] {
  const errs = metaUpdate(ns, old);
  const phase = asString(asObject(ns.status).phase);
  if (!isPresent(asObject(ns.metadata).deletionTimestamp)) {
    if (phase !== 'Active') errs.push(fieldInvalid('status.Phase', phase, "may only be 'Active' if `deletionTimestamp` is empty"));
  } else if (phase !== 'Terminating') {
    errs.push(fieldInvalid('status.Phase', phase, "may only be 'Terminating' if `deletionTimestamp` is not empty"));
  }
  return errs;
}

// ---- Node ----

const taintEffects = ['NoSchedule', 'PreferNoSchedule', 'NoExecute'];

function validateNodeTaints(taints: unknown, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Map<string, Set<string>>();
  objectList(taints).forEach((taint, i) => {
    const p = `${path}[${i}]`;
    const key = asString(taint.key);
    const value = asString(taint.value);
    const effect = asString(taint.effect);
    errs.push(...validateLabelName(key, `${p}.key`));
    const valueErrs = isValidLabelValue(value);
    if (valueErrs.length > 0) errs.push(fieldInvalid(`${p}.value`, value, valueErrs.join(';')));
    if (effect === '') errs.push(fieldRequired(`${p}.effect`));
    else if (!taintEffects.includes(effect)) errs.push(fieldNotSupported(`${p}.effect`, effect, taintEffects));
    const keys = seen.get(effect) ?? new Set<string>();
    if (keys.has(key)) {
      errs.push({
        type: 'FieldValueDuplicate',
        field: p,
        value: goLiteral(`core.Taint{Key:${goQuote(key)}, Value:${goQuote(value)}, Effect:${goQuote(effect)}, TimeAdded:(*v1.Time)(nil)}`),
        detail: 'taints must be unique by key and effect pair',
      });
      return;
    }
    keys.add(key);
    seen.set(effect, keys);
  });
  return errs;
}

function validateNodeResources(node: Obj): FieldError[] {
  const status = asObject(node.status);
  return [
    ...validateResourceList(status.capacity, (name) => `status.capacity.${name}`),
    ...validateResourceList(status.allocatable, (name) => `status.allocatable.${name}`),
  ];
}

export function validateNode(node: Obj): FieldError[] {
  const spec = asObject(node.spec);
  const errs = validateObjectMetaCreate(node.metadata, { namespaced: false, standardFinalizerNames: true });
  // The real server reports node taints under metadata (sic).
  errs.push(...validateNodeTaints(spec.taints, 'metadata.taints'));
  errs.push(...validateNodeResources(node));
  const cidrs = asArray(spec.podCIDRs).map(asString);
  cidrs.forEach((cidr, i) => errs.push(...isValidCIDR(`spec.podCIDRs[${i}]`, cidr)));
  return errs;
}

export function validateNodeUpdate(node: Obj, old: Obj): FieldError[] {
  const spec = asObject(node.spec);
  const oldSpec = asObject(old.spec);
  const errs = metaUpdate(node, old);
  errs.push(...validateNodeResources(node));
  const addresses = objectList(asObject(node.status).addresses);
  addresses.forEach((addr, i) => {
    if (addresses.slice(0, i).some((prev) => semanticEqual(prev, addr)))
      errs.push({
        type: 'FieldValueDuplicate',
        field: `status.addresses[${i}]`,
        value: goLiteral(`core.NodeAddress{Type:${goQuote(asString(addr.type))}, Address:${goQuote(asString(addr.address))}}`),
      });
  });
  const oldCidrs = asArray(oldSpec.podCIDRs).map(asString);
  const cidrs = asArray(spec.podCIDRs).map(asString);
  const cidrMessage = 'node updates may not change podCIDR except from "" to valid';
  if (oldCidrs.length > 0) {
    if (oldCidrs.length !== cidrs.length) errs.push(fieldForbidden('spec.podCIDRs', cidrMessage));
    else oldCidrs.forEach((c, i) => c !== cidrs[i] && errs.push(fieldForbidden('spec.podCIDRs', cidrMessage)));
  }
  const providerID = asString(oldSpec.providerID);
  if (providerID !== '' && providerID !== asString(spec.providerID))
    errs.push(fieldForbidden('spec.providerID', 'node updates may not change providerID except from "" to valid'));
  errs.push(...validateNodeTaints(spec.taints, 'metadata.taints'));
  if (asString(spec.externalID) !== asString(oldSpec.externalID)) errs.push(fieldForbidden('spec.externalID', 'may not be updated'));
  return errs;
}

// ---- ConfigMap and Secret ----

const base64Length = (v: unknown): number => Buffer.from(asString(v), 'base64').length;

export function validateConfigMap(cm: Obj): FieldError[] {
  const errs = validateObjectMetaCreate(cm.metadata, { namespaced: true, standardFinalizerNames: true });
  const data = asObject(cm.data);
  const binary = asObject(cm.binaryData);
  let size = 0;
  for (const [key, value] of Object.entries(data)) {
    errs.push(...isConfigMapKey(key).map((msg) => fieldInvalid(`data[${key}]`, key, msg)));
    if (Object.hasOwn(binary, key)) errs.push(fieldInvalid(`data[${key}]`, key, 'duplicate of key present in binaryData'));
    size += Buffer.byteLength(asString(value), 'utf8');
  }
  for (const [key, value] of Object.entries(binary)) {
    errs.push(...isConfigMapKey(key).map((msg) => fieldInvalid(`binaryData[${key}]`, key, msg)));
    size += base64Length(value);
  }
  // The size error names the whole object with an empty path (sic).
  if (size > MAX_SECRET_SIZE) errs.push(fieldTooLong('', '', MAX_SECRET_SIZE));
  return errs;
}

function immutableDataErrors(obj: Obj, old: Obj, fields: readonly string[]): FieldError[] {
  if (old.immutable !== true) return [];
  const errs: FieldError[] = [];
  if (obj.immutable !== true) errs.push(fieldForbidden('immutable', 'field is immutable when `immutable` is set'));
  for (const f of fields) if (!semanticEqual(obj[f], old[f])) errs.push(fieldForbidden(f, 'field is immutable when `immutable` is set'));
  return errs;
}

export function validateConfigMapUpdate(cm: Obj, old: Obj): FieldError[] {
  return [...metaUpdate(cm, old), ...immutableDataErrors(cm, old, ['data', 'binaryData']), ...validateConfigMap(cm)];
}

const dockerConfigKey = (type: string): string => (type === 'kubernetes.io/dockercfg' ? '.dockercfg' : '.dockerconfigjson');

export function validateSecret(secret: Obj): FieldError[] {
  const errs = validateObjectMetaCreate(secret.metadata, { namespaced: true, standardFinalizerNames: true });
  const data = asObject(secret.data);
  let size = 0;
  for (const [key, value] of Object.entries(data)) {
    errs.push(...isConfigMapKey(key).map((msg) => fieldInvalid(`data[${key}]`, key, msg)));
    size += base64Length(value);
  }
  if (size > MAX_SECRET_SIZE) errs.push(fieldTooLong('data', '', MAX_SECRET_SIZE));
  const type = asString(secret.type);
  const has = (key: string): boolean => key in data;
  switch (type) {
    case 'kubernetes.io/service-account-token':
      if (asString(asObject(asObject(secret.metadata).annotations)['kubernetes.io/service-account.name']) === '')
        errs.push(fieldRequired('metadata.annotations[kubernetes.io/service-account.name]'));
      break;
    case 'kubernetes.io/dockercfg':
    case 'kubernetes.io/dockerconfigjson': {
      const key = dockerConfigKey(type);
      if (!has(key)) {
        errs.push(fieldRequired(`data[${key}]`));
        break;
      }
      try {
        JSON.parse(Buffer.from(asString(data[key]), 'base64').toString('utf8'));
      } catch (e) {
        errs.push(fieldInvalid(`data[${key}]`, '<secret contents redacted>', (e as Error).message));
      }
      break;
    }
    case 'kubernetes.io/basic-auth':
      if (!has('username') && !has('password')) errs.push(fieldRequired('data[username]'), fieldRequired('data[password]'));
      break;
    case 'kubernetes.io/ssh-auth':
      if (base64Length(data['ssh-privatekey']) === 0) errs.push(fieldRequired('data[ssh-privatekey]'));
      break;
    case 'kubernetes.io/tls':
      if (!has('tls.crt')) errs.push(fieldRequired('data[tls.crt]'));
      if (!has('tls.key')) errs.push(fieldRequired('data[tls.key]'));
      break;
  }
  return errs;
}

export function validateSecretUpdate(secret: Obj, old: Obj): FieldError[] {
  const errs = metaUpdate(secret, old);
  if (asString(secret.type) !== asString(old.type)) errs.push(fieldInvalid('type', asString(secret.type), FIELD_IMMUTABLE));
  return [...errs, ...immutableDataErrors(secret, old, ['data']), ...validateSecret(secret)];
}

// ---- ServiceAccount ----

export const validateServiceAccount = (sa: Obj): FieldError[] => validateObjectMetaCreate(sa.metadata, { namespaced: true, standardFinalizerNames: true });
export const validateServiceAccountUpdate = (sa: Obj, old: Obj): FieldError[] => [...metaUpdate(sa, old), ...validateServiceAccount(sa)];

// ---- Endpoints ----

const protocols = ['SCTP', 'TCP', 'UDP'];

/** An endpoint port (Endpoints subsets): name required when there are several, port number, protocol, appProtocol. */
function validateEndpointPort(port: Obj, requireName: boolean, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const name = asString(port.name);
  if (requireName && name === '') errs.push(fieldRequired(`${path}.name`));
  else if (name !== '') errs.push(...isDNS1123Label(name).map((msg) => fieldInvalid(`${path}.name`, name, msg)));
  const num = asNumber(port.port) ?? 0;
  errs.push(...isValidPortNum(num).map((msg) => fieldInvalid(`${path}.port`, num, msg)));
  const protocol = asString(port.protocol);
  if (protocol === '') errs.push(fieldRequired(`${path}.protocol`));
  else if (!protocols.includes(protocol)) errs.push(fieldNotSupported(`${path}.protocol`, protocol, protocols));
  if (isPresent(port.appProtocol)) {
    const app = asString(port.appProtocol);
    errs.push(...isQualifiedName(app).map((msg) => fieldInvalid(`${path}.appProtocol`, app, msg)));
  }
  return errs;
}

function validateEndpointAddress(address: Obj, path: string): FieldError[] {
  const ip = asString(address.ip);
  const errs = isValidIP(`${path}.ip`, ip);
  const hostname = asString(address.hostname);
  if (hostname !== '') errs.push(...isDNS1123Label(hostname).map((msg) => fieldInvalid(`${path}.hostname`, hostname, msg)));
  if (isPresent(address.nodeName)) {
    const node = asString(address.nodeName);
    errs.push(...nameIsDNSSubdomain(node, false).map((msg) => fieldInvalid(`${path}.nodeName`, node, msg)));
  }
  return [...errs, ...validateNonSpecialIP(`${path}.ip`, ip)];
}

export function validateEndpoints(ep: Obj): FieldError[] {
  const errs = validateObjectMetaCreate(ep.metadata, { namespaced: true, standardFinalizerNames: true });
  objectList(ep.subsets).forEach((ss, i) => {
    const p = `subsets[${i}]`;
    const addresses = objectList(ss.addresses);
    const notReady = objectList(ss.notReadyAddresses);
    if (addresses.length === 0 && notReady.length === 0) errs.push(fieldRequired(p, 'must specify `addresses` or `notReadyAddresses`'));
    addresses.forEach((a, j) => errs.push(...validateEndpointAddress(a, `${p}.addresses[${j}]`)));
    notReady.forEach((a, j) => errs.push(...validateEndpointAddress(a, `${p}.notReadyAddresses[${j}]`)));
    const ports = objectList(ss.ports);
    ports.forEach((port, j) => errs.push(...validateEndpointPort(port, ports.length > 1, `${p}.ports[${j}]`)));
  });
  return errs;
}

export const validateEndpointsUpdate = (ep: Obj, old: Obj): FieldError[] => [...metaUpdate(ep, old), ...validateEndpoints(ep)];

