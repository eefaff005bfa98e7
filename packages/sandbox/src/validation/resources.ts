// Compute resource names and quantities (container requests/limits, pod overhead, node capacity)
// as pkg/apis/core/validation checks them.

import { fieldForbidden, fieldInvalid, fieldRequired, type FieldError } from '../errors.ts';
import { isJsonObject } from '../meta/object.ts';
import { asObject } from './json.ts';
import { isQualifiedName } from './names.ts';
import { compareQuantity, formatQuantity, parseQuantity, quantityFormatError, wholeUnits, type Quantity } from './quantity.ts';

const standardContainerResources = new Set(['cpu', 'memory', 'ephemeral-storage']);
const standardResources = new Set([
  'cpu',
  'memory',
  'ephemeral-storage',
  'requests.cpu',
  'requests.memory',
  'requests.ephemeral-storage',
  'limits.cpu',
  'limits.memory',
  'limits.ephemeral-storage',
  'pods',
  'services',
  'replicationcontrollers',
  'resourcequotas',
  'secrets',
  'configmaps',
  'persistentvolumeclaims',
  'storage',
  'requests.storage',
  'services.nodeports',
  'services.loadbalancers',
]);
const integerResources = new Set([
  'pods',
  'services',
  'replicationcontrollers',
  'resourcequotas',
  'secrets',
  'configmaps',
  'persistentvolumeclaims',
  'services.nodeports',
  'services.loadbalancers',
]);

const isHugePage = (name: string): boolean => name.startsWith('hugepages-');
const isNative = (name: string): boolean => !name.includes('/') || name.includes('kubernetes.io/');
const isOvercommitAllowed = (name: string): boolean => isNative(name) && !isHugePage(name);

function isExtendedResourceName(name: string): boolean {
  if (isNative(name) || name.startsWith('requests.')) return false;
  return isQualifiedName(`requests.${name}`).length === 0;
}

const isStandardResourceName = (name: string): boolean =>
  standardResources.has(name) || isHugePage(name) || name.startsWith('requests.hugepages-');

/** validateResourceName: a qualified name, standard when it has no domain. */
function validateResourceName(name: string, path: string): FieldError[] {
  const errs = isQualifiedName(name).map((msg) => fieldInvalid(path, name, msg));
  if (errs.length > 0) return errs;
  if (!name.includes('/') && !isStandardResourceName(name)) return [fieldInvalid(path, name, 'must be a standard resource type or fully qualified')];
  return [];
}

function validateContainerResourceName(name: string, path: string): FieldError[] {
  const errs = validateResourceName(name, path);
  if (!name.includes('/')) {
    if (!standardContainerResources.has(name) && !isHugePage(name)) errs.push(fieldInvalid(path, name, 'must be a standard resource for containers'));
  } else if (!isNative(name) && !isExtendedResourceName(name)) {
    errs.push(fieldInvalid(path, name, "doesn't follow extended resource name standard"));
  }
  return errs;
}

/** Parses a quantity or reports the decoder's pattern (the real server rejects these at decoding). */
function quantityAt(raw: unknown, path: string, errs: FieldError[]): Quantity | undefined {
  const q = parseQuantity(raw);
  if (!q) errs.push(fieldInvalid(path, typeof raw === 'string' ? raw : String(raw), quantityFormatError));
  return q;
}

/** ValidateResourceQuantityValue: not negative, whole for integer resources. */
function validateResourceQuantityValue(name: string, q: Quantity, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (q.nano < 0n) errs.push(fieldInvalid(path, formatQuantity(q), 'must be greater than or equal to 0'));
  if ((integerResources.has(name) || isExtendedResourceName(name)) && q.nano % 1_000_000_000n !== 0n)
    errs.push(fieldInvalid(path, formatQuantity(q), 'must be an integer'));
  return errs;
}

function validateHugePageValue(name: string, q: Quantity, path: string): FieldError[] {
  const size = parseQuantity(name.slice('hugepages-'.length));
  const value = wholeUnits(q);
  const pageSize = size ? wholeUnits(size) : undefined;
  if (pageSize === undefined || pageSize <= 0n || value === undefined || value % pageSize !== 0n)
    return [fieldInvalid(path, formatQuantity(q), `${formatQuantity(q)} is not positive integer multiple of ${name}`)];
  return [];
}

const supportedQoSComputeResources = new Set(['cpu', 'memory']);

/** Container resources: names, values, requests within limits, hugepages with cpu or memory. */
export function validateContainerResources(resources: unknown, path: string): FieldError[] {
  const res = asObject(resources);
  const limits = asObject(res.limits);
  const requests = asObject(res.requests);
  const errs: FieldError[] = [];
  let hasCpuOrMemory = false;
  let hasHugePages = false;
  const limitValues = new Map<string, Quantity>();
  for (const [name, raw] of Object.entries(limits)) {
    const p = `${path}.limits[${name}]`;
    errs.push(...validateContainerResourceName(name, p));
    const q = quantityAt(raw, p, errs);
    if (!q) continue;
    limitValues.set(name, q);
    errs.push(...validateResourceQuantityValue(name, q, p));
    if (isHugePage(name)) {
      hasHugePages = true;
      errs.push(...validateHugePageValue(name, q, p));
    }
    if (supportedQoSComputeResources.has(name)) hasCpuOrMemory = true;
  }
  for (const [name, raw] of Object.entries(requests)) {
    const p = `${path}.requests[${name}]`;
    errs.push(...validateContainerResourceName(name, p));
    const q = quantityAt(raw, p, errs);
    if (!q) continue;
    errs.push(...validateResourceQuantityValue(name, q, p));
    const limit = limitValues.get(name);
    if (limit) {
      const cmp = compareQuantity(q, limit);
      if (cmp !== 0 && !isOvercommitAllowed(name))
        errs.push(fieldInvalid(`${path}.requests`, formatQuantity(q), `must be equal to ${name} limit of ${formatQuantity(limit)}`));
      else if (cmp > 0)
        errs.push(fieldInvalid(`${path}.requests`, formatQuantity(q), `must be less than or equal to ${name} limit of ${formatQuantity(limit)}`));
    } else if (!isOvercommitAllowed(name)) {
      errs.push(fieldRequired(`${path}.limits`, 'Limit must be set for non overcommitable resources'));
    }
    if (isHugePage(name)) {
      hasHugePages = true;
      errs.push(...validateHugePageValue(name, q, p));
    }
    if (supportedQoSComputeResources.has(name)) hasCpuOrMemory = true;
  }
  if (!hasCpuOrMemory && hasHugePages) errs.push(fieldForbidden(path, 'HugePages require cpu or memory'));
  return errs;
}

/** Resource lists that only hold quantities (node capacity and allocatable). */
export function validateResourceList(list: unknown, pathOf: (name: string) => string): FieldError[] {
  if (!isJsonObject(list)) return [];
  const errs: FieldError[] = [];
  for (const [name, raw] of Object.entries(list)) {
    const p = pathOf(name);
    const q = quantityAt(raw, p, errs);
    if (q) errs.push(...validateResourceQuantityValue(name, q, p));
  }
  return errs;
}
