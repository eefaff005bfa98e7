// discovery.k8s.io/v1 EndpointSlice: address type, endpoints and ports.

import { fieldDuplicate, fieldInvalid, fieldNotSupported, fieldRequired, type FieldError } from '../errors.ts';
import { FIELD_IMMUTABLE, validateLabels, validateObjectMetaCreate } from './meta.ts';
import { fieldTooMany } from './field-errors.ts';
import { asArray, asObject, asString, isPresent, objectList } from './json.ts';
import { isValidIPv4Address, isValidIPv6Address, validateNonSpecialIP } from './network.ts';
import { isDNS1123Label, isFullyQualifiedDomainName, isQualifiedName, isValidLabelValue, nameIsDNSSubdomain } from './names.ts';

type Obj = Record<string, unknown>;

const addressTypes = ['FQDN', 'IPv4', 'IPv6'];
const protocols = ['SCTP', 'TCP', 'UDP'];

function validateEndpoints(endpoints: unknown, addressType: string): FieldError[] {
  const list = objectList(endpoints);
  if (list.length > 1000) return [fieldTooMany('endpoints', list.length, 1000)];
  const errs: FieldError[] = [];
  list.forEach((ep, i) => {
    const p = `endpoints[${i}]`;
    const addresses = asArray(ep.addresses).map(asString);
    if (addresses.length === 0) errs.push(fieldRequired(`${p}.addresses`, 'must contain at least 1 address'));
    else if (addresses.length > 100) errs.push(fieldTooMany(`${p}.addresses`, addresses.length, 100));
    addresses.forEach((addr, j) => {
      const ap = `${p}.addresses[${j}]`;
      if (addressType === 'IPv4') errs.push(...isValidIPv4Address(ap, addr), ...validateNonSpecialIP(ap, addr));
      else if (addressType === 'IPv6') errs.push(...isValidIPv6Address(ap, addr), ...validateNonSpecialIP(ap, addr));
      else if (addressType === 'FQDN') errs.push(...isFullyQualifiedDomainName(ap, addr));
    });
    if (isPresent(ep.nodeName)) {
      const node = asString(ep.nodeName);
      errs.push(...nameIsDNSSubdomain(node, false).map((msg) => fieldInvalid(`${p}.nodeName`, node, msg)));
    }
    const topology = asObject(ep.deprecatedTopology);
    if (Object.keys(topology).length > 16) errs.push(fieldTooMany(`${p}.deprecatedTopology`, Object.keys(topology).length, 16));
    errs.push(...validateLabels(topology, `${p}.deprecatedTopology`));
    if (isPresent(ep.hostname)) {
      const hostname = asString(ep.hostname);
      errs.push(...isDNS1123Label(hostname).map((msg) => fieldInvalid(`${p}.hostname`, hostname, msg)));
    }
    const zones = objectList(asObject(ep.hints).forZones);
    if (zones.length > 8) errs.push(fieldTooMany(`${p}.hints.forZones`, zones.length, 8));
    else {
      const seen = new Set<string>();
      zones.forEach((z, k) => {
        const name = asString(z.name);
        const zp = `${p}.hints.forZones[${k}].name`;
        if (seen.has(name)) errs.push(fieldDuplicate(zp, name));
        seen.add(name);
        errs.push(...isValidLabelValue(name).map((msg) => fieldInvalid(zp, name, msg)));
      });
    }
  });
  return errs;
}

function validatePorts(ports: unknown): FieldError[] {
  const list = objectList(ports);
  if (list.length > 20000) return [fieldTooMany('ports', list.length, 20000)];
  const errs: FieldError[] = [];
  const names = new Set<string>();
  list.forEach((port, i) => {
    const p = `ports[${i}]`;
    const name = asString(port.name);
    if (name !== '') errs.push(...isDNS1123Label(name).map((msg) => fieldInvalid(`${p}.name`, name, msg)));
    if (names.has(name)) errs.push(fieldDuplicate(`${p}.name`, name));
    names.add(name);
    if (!isPresent(port.protocol)) errs.push(fieldRequired(`${p}.protocol`));
    else if (!protocols.includes(asString(port.protocol))) errs.push(fieldNotSupported(`${p}.protocol`, asString(port.protocol), protocols));
    if (isPresent(port.appProtocol)) {
      const app = asString(port.appProtocol);
      errs.push(...isQualifiedName(app).map((msg) => fieldInvalid(`${p}.appProtocol`, app, msg)));
    }
  });
  return errs;
}

export function validateEndpointSlice(slice: Obj): FieldError[] {
  const errs = validateObjectMetaCreate(slice.metadata, { namespaced: true, standardFinalizerNames: true });
  const addressType = asString(slice.addressType);
  if (addressType === '') errs.push(fieldRequired('addressType'));
  else if (!addressTypes.includes(addressType)) errs.push(fieldNotSupported('addressType', addressType, addressTypes));
  return [...errs, ...validateEndpoints(slice.endpoints, addressType), ...validatePorts(slice.ports)];
}

export function validateEndpointSliceUpdate(slice: Obj, old: Obj): FieldError[] {
  const errs = validateEndpointSlice(slice);
  if (asString(slice.addressType) !== asString(old.addressType)) errs.push(fieldInvalid('addressType', asString(slice.addressType), FIELD_IMMUTABLE));
  return errs;
}
