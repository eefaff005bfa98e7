// Pod volumes: names, exactly one source each, and the source checks users commonly hit. The
// valid volumes are returned by name so container mounts can be matched against them.

import { fieldDuplicate, fieldForbidden, fieldInvalid, fieldNotSupported, fieldRequired, type FieldError } from '../errors.ts';
import type { JsonObject } from '../meta/object.ts';
import { asArray, asObject, asString, isPresent } from './json.ts';
import { isDNS1123Label } from './names.ts';

/** The volume sources in the order ValidateVolumes checks them, with the path its Forbidden error names (sic). */
const volumeSources: ReadonlyArray<readonly [jsonKey: string, errorPath: string]> = [
  ['emptyDir', 'emptyDir'],
  ['hostPath', 'hostPath'],
  ['gitRepo', 'gitRepo'],
  ['gcePersistentDisk', 'gcePersistentDisk'],
  ['awsElasticBlockStore', 'awsElasticBlockStore'],
  ['secret', 'secret'],
  ['nfs', 'nfs'],
  ['iscsi', 'iscsi'],
  ['glusterfs', 'glusterfs'],
  ['flocker', 'flocker'],
  ['persistentVolumeClaim', 'persistentVolumeClaim'],
  ['rbd', 'rbd'],
  ['cinder', 'cinder'],
  ['cephfs', 'cephFS'],
  ['quobyte', 'quobyte'],
  ['downwardAPI', 'downwarAPI'],
  ['fc', 'fc'],
  ['flexVolume', 'flexVolume'],
  ['configMap', 'configMap'],
  ['azureFile', 'azureFile'],
  ['vsphereVolume', 'vsphereVolume'],
  ['photonPersistentDisk', 'photonPersistentDisk'],
  ['portworxVolume', 'portworxVolume'],
  ['azureDisk', 'azureDisk'],
  ['storageos', 'storageos'],
  ['projected', 'projected'],
  ['scaleIO', 'scaleIO'],
  ['csi', 'csi'],
  ['ephemeral', 'ephemeral'],
  ['image', 'image'],
];

/** validateLocalDescendingPath: relative, without `..` segments. */
export function validateLocalDescendingPath(target: string, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (target.startsWith('/')) errs.push(fieldInvalid(path, target, 'must be a relative path'));
  return [...errs, ...validatePathNoBacksteps(target, path)];
}

function validatePathNoBacksteps(target: string, path: string): FieldError[] {
  return target.split('/').includes('..') ? [fieldInvalid(path, target, "must not contain '..'")] : [];
}

const FILE_MODE_ERROR = 'must be a number between 0 and 0777 (octal), both inclusive';

function validateFileMode(mode: unknown, path: string): FieldError[] {
  return typeof mode === 'number' && (mode > 0o777 || mode < 0) ? [fieldInvalid(path, mode, FILE_MODE_ERROR)] : [];
}

function validateKeyToPaths(items: unknown, path: string): FieldError[] {
  const errs: FieldError[] = [];
  asArray(items).forEach((raw, i) => {
    const item = asObject(raw);
    const p = `${path}[${i}]`;
    if (asString(item.key) === '') errs.push(fieldRequired(`${p}.key`));
    const target = asString(item.path);
    if (target === '') errs.push(fieldRequired(`${p}.path`));
    errs.push(...validateLocalNonReservedPath(target, `${p}.path`), ...validateFileMode(item.mode, `${p}.mode`));
  });
  return errs;
}

/** ValidateLocalNonReservedPath: a relative path without `..`, not starting with `..` either. */
function validateLocalNonReservedPath(target: string, path: string): FieldError[] {
  const errs = validateLocalDescendingPath(target, path);
  if (target.startsWith('..') && errs.length === 0) errs.push(fieldInvalid(path, target, "must not start with '..'"));
  return errs;
}

function validateSource(key: string, source: JsonObject, path: string): FieldError[] {
  switch (key) {
    case 'hostPath': {
      const target = asString(source.path);
      if (target === '') return [fieldRequired(`${path}.path`)];
      const errs = validatePathNoBacksteps(target, `${path}.path`);
      const type = asString(source.type);
      const types = ['', 'DirectoryOrCreate', 'Directory', 'FileOrCreate', 'File', 'Socket', 'CharDevice', 'BlockDevice'];
      if (!types.includes(type)) errs.push(fieldNotSupported(`${path}.type`, type, [...types].sort()));
      return errs;
    }
    case 'secret':
    case 'configMap': {
      const nameField = key === 'secret' ? 'secretName' : 'name';
      const errs = asString(source[nameField]) === '' ? [fieldRequired(`${path}.${nameField}`)] : [];
      return [...errs, ...validateFileMode(source.defaultMode, `${path}.defaultMode`), ...validateKeyToPaths(source.items, `${path}.items`)];
    }
    case 'persistentVolumeClaim':
      return asString(source.claimName) === '' ? [fieldRequired(`${path}.claimName`)] : [];
    case 'nfs': {
      const errs: FieldError[] = [];
      if (asString(source.server) === '') errs.push(fieldRequired(`${path}.server`));
      const target = asString(source.path);
      if (target === '') errs.push(fieldRequired(`${path}.path`));
      else if (!target.startsWith('/')) errs.push(fieldInvalid(`${path}.path`, target, 'must be an absolute path'));
      return errs;
    }
    case 'downwardAPI':
      return asArray(source.items).flatMap((raw, i) => {
        const target = asString(asObject(raw).path);
        const p = `${path}.items[${i}].path`;
        return target === '' ? [fieldRequired(p)] : validateLocalNonReservedPath(target, p);
      });
    case 'projected':
      return asArray(source.sources).flatMap((raw, i) => {
        const src = asObject(raw);
        const p = `${path}.sources[${i}]`;
        const errs: FieldError[] = [];
        const kinds = ['secret', 'downwardAPI', 'configMap', 'serviceAccountToken', 'clusterTrustBundle'].filter((k) => isPresent(src[k]));
        const token = asObject(src.serviceAccountToken);
        if (isPresent(src.serviceAccountToken)) {
          const seconds = typeof token.expirationSeconds === 'number' ? token.expirationSeconds : 3600;
          if (seconds < 600) errs.push(fieldInvalid(`${p}.serviceAccountToken.expirationSeconds`, seconds, 'may not specify a duration less than 10 minutes'));
          if (seconds > 4294967296) errs.push(fieldInvalid(`${p}.serviceAccountToken.expirationSeconds`, seconds, 'may not specify a duration larger than 2^32 seconds'));
          // The real check reports the token path under the projected volume itself (sic).
          const target = asString(token.path);
          if (target === '') errs.push(fieldRequired(`${path}.path`));
          else errs.push(...validateLocalNonReservedPath(target, `${path}.path`));
        }
        if (kinds.length > 1) errs.push(fieldForbidden(p, 'may not specify more than 1 volume type per source'));
        return errs;
      });
    default:
      return [];
  }
}

/**
 * ValidateVolumes: returns the errors and the volumes that passed, by name (a volume with errors
 * is not mountable, so mounts referring to it are also reported as not found).
 */
export function validateVolumes(volumes: unknown, path: string): { errors: FieldError[]; valid: Map<string, string> } {
  const errors: FieldError[] = [];
  const valid = new Map<string, string>();
  const seen = new Set<string>();
  asArray(volumes).forEach((raw, i) => {
    const vol = asObject(raw);
    const p = `${path}[${i}]`;
    const errs: FieldError[] = [];
    let sourceKind = '';
    for (const [key, errorPath] of volumeSources) {
      if (!isPresent(vol[key])) continue;
      if (sourceKind !== '') {
        errs.push(fieldForbidden(`${p}.${errorPath}`, 'may not specify more than 1 volume type'));
        continue;
      }
      sourceKind = key;
      errs.push(...validateSource(key, asObject(vol[key]), `${p}.${key}`));
    }
    if (sourceKind === '') errs.push(fieldRequired(p, 'must specify a volume type'));
    const name = asString(vol.name);
    if (name === '') errs.push(fieldRequired(`${p}.name`));
    else errs.push(...isDNS1123Label(name).map((msg) => fieldInvalid(`${p}.name`, name, msg)));
    if (seen.has(name)) errs.push(fieldDuplicate(`${p}.name`, name));
    if (errs.length === 0) {
      seen.add(name);
      valid.set(name, sourceKind);
    } else errors.push(...errs);
  });
  return { errors, valid };
}
