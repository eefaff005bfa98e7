// Containers, init containers and ephemeral containers of a pod spec, as validateContainers,
// validateInitContainers and validateEphemeralContainers check them: names, image, ports, env,
// mounts, resources, probes, lifecycle, security context.

import { fieldDuplicate, fieldForbidden, fieldInvalid, fieldNotSupported, fieldRequired, type FieldError } from '../errors.ts';
import { fieldNotFound } from './field-errors.ts';
import { isJsonObject, type JsonObject } from '../meta/object.ts';
import { asArray, asNumber, asObject, asString, isPresent, objectList } from './json.ts';
import {
  inclusiveRangeError,
  isConfigMapKey,
  isDNS1123Label,
  isHTTPHeaderName,
  isQualifiedName,
  isRelaxedEnvVarName,
  isValidPortName,
  isValidPortNum,
  nameIsDNSSubdomain,
} from './names.ts';
import { validateContainerResources } from './resources.ts';
import { validateLocalDescendingPath } from './volumes.ts';

const sortedProtocols = ['SCTP', 'TCP', 'UDP'];

function validateContainerPorts(ports: unknown, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const names = new Set<string>();
  objectList(ports).forEach((port, i) => {
    const p = `${path}[${i}]`;
    const name = asString(port.name);
    if (name !== '') {
      const msgs = isValidPortName(name);
      if (msgs.length > 0) errs.push(...msgs.map((msg) => fieldInvalid(`${p}.name`, name, msg)));
      else if (names.has(name)) errs.push(fieldDuplicate(`${p}.name`, name));
      else names.add(name);
    }
    const containerPort = asNumber(port.containerPort) ?? 0;
    if (containerPort === 0) errs.push(fieldRequired(`${p}.containerPort`));
    else errs.push(...isValidPortNum(containerPort).map((msg) => fieldInvalid(`${p}.containerPort`, containerPort, msg)));
    const hostPort = asNumber(port.hostPort) ?? 0;
    if (hostPort !== 0) errs.push(...isValidPortNum(hostPort).map((msg) => fieldInvalid(`${p}.hostPort`, hostPort, msg)));
    const protocol = asString(port.protocol);
    if (protocol === '') errs.push(fieldRequired(`${p}.protocol`));
    else if (!sortedProtocols.includes(protocol)) errs.push(fieldNotSupported(`${p}.protocol`, protocol, sortedProtocols));
  });
  return errs;
}

/** A port given as a number or as an IANA name (probes, handlers, service targetPort). */
export function validatePortNumOrName(port: unknown, path: string): FieldError[] {
  if (typeof port === 'number') return isValidPortNum(port).map((msg) => fieldInvalid(path, port, msg));
  const name = asString(port);
  return isValidPortName(name).map((msg) => fieldInvalid(path, name, msg));
}

const downwardAPIEnvPaths = [
  'metadata.name',
  'metadata.namespace',
  'metadata.uid',
  'spec.nodeName',
  'spec.serviceAccountName',
  'status.hostIP',
  'status.hostIPs',
  'status.podIP',
  'status.podIPs',
];
const convertibleFieldPaths = new Set([
  'metadata.annotations',
  'metadata.labels',
  'metadata.name',
  'metadata.namespace',
  'metadata.uid',
  'spec.nodeName',
  'spec.restartPolicy',
  'spec.serviceAccountName',
  'spec.schedulerName',
  'status.phase',
  'status.hostIP',
  'status.hostIPs',
  'status.podIP',
  'status.podIPs',
]);

function validateObjectFieldSelector(ref: JsonObject, path: string): FieldError[] {
  const apiVersion = asString(ref.apiVersion);
  if (apiVersion === '') return [fieldRequired(`${path}.apiVersion`)];
  const fieldPath = asString(ref.fieldPath);
  if (fieldPath === '') return [fieldRequired(`${path}.fieldPath`)];
  if (apiVersion !== 'v1') return [fieldInvalid(`${path}.fieldPath`, fieldPath, `error converting fieldPath: unsupported pod version: ${apiVersion}`)];
  const subscripted = /^(metadata\.(?:labels|annotations))\['(.*)'\]$/.exec(fieldPath);
  if (subscripted) {
    const [, base = '', key = ''] = subscripted;
    return isQualifiedName(base === 'metadata.annotations' ? key.toLowerCase() : key).map((msg) =>
      fieldInvalid(path, base === 'metadata.annotations' ? key.toLowerCase() : key, msg),
    );
  }
  if (!convertibleFieldPaths.has(fieldPath)) return [fieldInvalid(`${path}.fieldPath`, fieldPath, `error converting fieldPath: field label not supported: ${fieldPath}`)];
  if (!downwardAPIEnvPaths.includes(fieldPath)) return [fieldNotSupported(`${path}.fieldPath`, fieldPath, downwardAPIEnvPaths)];
  return [];
}

const resourceFieldPaths = ['limits.cpu', 'limits.ephemeral-storage', 'limits.memory', 'requests.cpu', 'requests.ephemeral-storage', 'requests.memory'];

function validateKeySelector(ref: JsonObject, path: string): FieldError[] {
  const errs = nameIsDNSSubdomain(asString(ref.name), false).map((msg) => fieldInvalid(`${path}.name`, asString(ref.name), msg));
  const key = asString(ref.key);
  if (key === '') errs.push(fieldRequired(`${path}.key`));
  else errs.push(...isConfigMapKey(key).map((msg) => fieldInvalid(`${path}.key`, key, msg)));
  return errs;
}

function validateEnvValueFrom(env: JsonObject, path: string): FieldError[] {
  if (!isPresent(env.valueFrom)) return [];
  const from = asObject(env.valueFrom);
  const errs: FieldError[] = [];
  let sources = 0;
  if (isPresent(from.fieldRef)) {
    sources++;
    errs.push(...validateObjectFieldSelector(asObject(from.fieldRef), `${path}.fieldRef`));
  }
  if (isPresent(from.resourceFieldRef)) {
    sources++;
    const resource = asString(asObject(from.resourceFieldRef).resource);
    const p = `${path}.resourceFieldRef.resource`;
    if (resource === '') errs.push(fieldRequired(p));
    else if (!resourceFieldPaths.includes(resource) && !/^(requests|limits)\.hugepages-/.test(resource))
      errs.push(fieldNotSupported(p, resource, resourceFieldPaths));
  }
  if (isPresent(from.configMapKeyRef)) {
    sources++;
    errs.push(...validateKeySelector(asObject(from.configMapKeyRef), `${path}.configMapKeyRef`));
  }
  if (isPresent(from.secretKeyRef)) {
    sources++;
    errs.push(...validateKeySelector(asObject(from.secretKeyRef), `${path}.secretKeyRef`));
  }
  if (sources === 0) errs.push(fieldInvalid(path, '', 'must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef` or `secretKeyRef`'));
  else if (asString(env.value) !== '') errs.push(fieldInvalid(path, '', 'may not be specified when `value` is not empty'));
  else if (sources > 1) errs.push(fieldInvalid(path, '', 'may not have more than one field specified at a time'));
  return errs;
}

function validateEnv(env: unknown, path: string): FieldError[] {
  return objectList(env).flatMap((ev, i) => {
    const p = `${path}[${i}]`;
    const name = asString(ev.name);
    const errs = name === '' ? [fieldRequired(`${p}.name`)] : isRelaxedEnvVarName(name).map((msg) => fieldInvalid(`${p}.name`, name, msg));
    return [...errs, ...validateEnvValueFrom(ev, `${p}.valueFrom`)];
  });
}

function validateEnvFrom(envFrom: unknown, path: string): FieldError[] {
  return objectList(envFrom).flatMap((ev, i) => {
    const p = `${path}[${i}]`;
    const errs: FieldError[] = [];
    const prefix = asString(ev.prefix);
    if (prefix !== '') errs.push(...isRelaxedEnvVarName(prefix).map((msg) => fieldInvalid(`${p}.prefix`, prefix, msg)));
    let sources = 0;
    for (const ref of ['configMapRef', 'secretRef'] as const) {
      if (!isPresent(ev[ref])) continue;
      sources++;
      const name = asString(asObject(ev[ref]).name);
      if (name === '') errs.push(fieldRequired(`${p}.${ref}.name`));
      else errs.push(...nameIsDNSSubdomain(name, true).map((msg) => fieldInvalid(`${p}.${ref}.name`, name, msg)));
    }
    if (sources === 0) errs.push(fieldInvalid(path, '', 'must specify one of: `configMapRef` or `secretRef`'));
    else if (sources > 1) errs.push(fieldInvalid(path, '', 'may not have more than one field specified at a time'));
    return errs;
  });
}

function validateVolumeMounts(container: JsonObject, volumes: ReadonlyMap<string, string>, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const devices = objectList(container.volumeDevices);
  const deviceNames = new Set(devices.map((d) => asString(d.name)));
  const devicePaths = new Set(devices.map((d) => asString(d.devicePath)));
  const mountPaths = new Set<string>();
  objectList(container.volumeMounts).forEach((mnt, i) => {
    const p = `${path}[${i}]`;
    const name = asString(mnt.name);
    const mountPath = asString(mnt.mountPath);
    if (name === '') errs.push(fieldRequired(`${p}.name`));
    if (!volumes.has(name)) errs.push(fieldNotFound(`${p}.name`, name));
    if (mountPath === '') errs.push(fieldRequired(`${p}.mountPath`));
    if (mountPaths.has(mountPath)) errs.push(fieldInvalid(`${p}.mountPath`, mountPath, 'must be unique'));
    mountPaths.add(mountPath);
    if (deviceNames.has(name)) errs.push(fieldInvalid(`${p}.name`, name, 'must not already exist in volumeDevices'));
    if (devicePaths.has(mountPath)) errs.push(fieldInvalid(`${p}.mountPath`, mountPath, 'must not already exist as a path in volumeDevices'));
    const subPath = asString(mnt.subPath);
    const subPathExpr = asString(mnt.subPathExpr);
    // The real server names the list, not the entry, for these two (sic).
    if (subPath !== '') errs.push(...validateLocalDescendingPath(subPath, `${path}.subPath`));
    if (subPathExpr !== '') {
      if (subPath !== '') errs.push(fieldInvalid(`${p}.subPathExpr`, subPathExpr, 'subPathExpr and subPath are mutually exclusive'));
      errs.push(...validateLocalDescendingPath(subPathExpr, `${path}.subPathExpr`));
    }
    const propagation = mnt.mountPropagation;
    if (isPresent(propagation) && !['Bidirectional', 'HostToContainer', 'None'].includes(asString(propagation)))
      errs.push(fieldNotSupported(`${path}.mountPropagation`, asString(propagation), ['Bidirectional', 'HostToContainer', 'None']));
  });
  return errs;
}

function validateVolumeDevices(container: JsonObject, volumes: ReadonlyMap<string, string>, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const mounts = objectList(container.volumeMounts);
  const mountNames = new Set(mounts.map((m) => asString(m.name)));
  const mountPaths = new Set(mounts.map((m) => asString(m.mountPath)));
  const names = new Set<string>();
  const paths = new Set<string>();
  objectList(container.volumeDevices).forEach((dev, i) => {
    const p = `${path}[${i}]`;
    const name = asString(dev.name);
    const devicePath = asString(dev.devicePath);
    const source = volumes.get(name);
    if (name === '') errs.push(fieldRequired(`${p}.name`));
    if (names.has(name)) errs.push(fieldInvalid(`${p}.name`, name, 'must be unique'));
    if (source !== undefined && source !== 'persistentVolumeClaim' && source !== 'ephemeral')
      errs.push(fieldInvalid(`${p}.name`, name, 'can only use volume source type of PersistentVolumeClaim or Ephemeral for block mode'));
    if (source === undefined) errs.push(fieldNotFound(`${p}.name`, name));
    if (devicePath === '') errs.push(fieldRequired(`${p}.devicePath`));
    if (paths.has(devicePath)) errs.push(fieldInvalid(`${p}.devicePath`, devicePath, 'must be unique'));
    if (devicePath !== '' && devicePath.split('/').includes('..')) errs.push(fieldInvalid(`${p}.devicePath`, devicePath, "can not contain backsteps ('..')"));
    else paths.add(devicePath);
    if (mountNames.has(name)) errs.push(fieldInvalid(`${p}.name`, name, 'must not already exist in volumeMounts'));
    if (mountPaths.has(devicePath)) errs.push(fieldInvalid(`${p}.devicePath`, devicePath, 'must not already exist as a path in volumeMounts'));
    if (name !== '') names.add(name);
  });
  return errs;
}

const handlerKinds = ['exec', 'httpGet', 'tcpSocket', 'grpc', 'sleep'] as const;

function validateHandler(handler: JsonObject, gracePeriod: number | undefined, path: string, allowed: readonly string[]): FieldError[] {
  const errs: FieldError[] = [];
  let count = 0;
  for (const kind of handlerKinds) {
    if (!allowed.includes(kind) || !isPresent(handler[kind])) continue;
    if (count > 0) {
      errs.push(fieldForbidden(`${path}.${kind}`, 'may not specify more than 1 handler type'));
      continue;
    }
    count++;
    const h = asObject(handler[kind]);
    const p = `${path}.${kind}`;
    switch (kind) {
      case 'exec':
        if (asArray(h.command).length === 0) errs.push(fieldRequired(`${p}.command`));
        break;
      case 'httpGet': {
        if (asString(h.path) === '') errs.push(fieldRequired(`${p}.path`));
        errs.push(...validatePortNumOrName(h.port, `${p}.port`));
        const scheme = asString(h.scheme);
        if (scheme !== 'HTTP' && scheme !== 'HTTPS') errs.push(fieldNotSupported(`${p}.scheme`, scheme, ['HTTP', 'HTTPS']));
        for (const header of objectList(h.httpHeaders))
          errs.push(...isHTTPHeaderName(asString(header.name)).map((msg) => fieldInvalid(`${p}.httpHeaders`, asString(header.name), msg)));
        break;
      }
      case 'tcpSocket':
        errs.push(...validatePortNumOrName(h.port, `${p}.port`));
        break;
      case 'grpc':
        errs.push(...validatePortNumOrName(asNumber(h.port) ?? 0, `${p}.port`));
        break;
      case 'sleep': {
        const seconds = asNumber(h.seconds) ?? 0;
        if (gracePeriod !== undefined && (seconds <= 0 || seconds > gracePeriod))
          errs.push(
            fieldInvalid(
              p,
              seconds,
              `must be greater than 0 and less than terminationGracePeriodSeconds (${gracePeriod}). Enable AllowPodLifecycleSleepActionZeroValue feature gate for zero sleep.`,
            ),
          );
        break;
      }
    }
  }
  if (count === 0) errs.push(fieldRequired(path, 'must specify a handler type'));
  return errs;
}

const nonNegative = (value: unknown, path: string): FieldError[] => {
  const n = asNumber(value) ?? 0;
  return n < 0 ? [fieldInvalid(path, n, 'must be greater than or equal to 0')] : [];
};

function validateProbe(probe: unknown, gracePeriod: number | undefined, path: string, kind: 'liveness' | 'readiness' | 'startup'): FieldError[] {
  if (!isPresent(probe)) return [];
  const pr = asObject(probe);
  const errs = validateHandler(pr, gracePeriod, path, ['exec', 'httpGet', 'tcpSocket', 'grpc']);
  for (const f of ['initialDelaySeconds', 'timeoutSeconds', 'periodSeconds', 'successThreshold', 'failureThreshold'])
    errs.push(...nonNegative(pr[f], `${path}.${f}`));
  const probeGrace = asNumber(pr.terminationGracePeriodSeconds);
  if (probeGrace !== undefined && probeGrace <= 0) errs.push(fieldInvalid(`${path}.terminationGracePeriodSeconds`, probeGrace, 'must be greater than 0'));
  if (kind !== 'readiness' && (asNumber(pr.successThreshold) ?? 0) !== 1)
    errs.push(fieldInvalid(`${path}.successThreshold`, asNumber(pr.successThreshold) ?? 0, 'must be 1'));
  if (kind === 'readiness' && probeGrace !== undefined)
    errs.push(fieldInvalid(`${path}.terminationGracePeriodSeconds`, probeGrace, 'must not be set for readinessProbes'));
  return errs;
}

function validateLifecycle(lifecycle: JsonObject, gracePeriod: number | undefined, path: string): FieldError[] {
  const allowed = ['exec', 'httpGet', 'tcpSocket', 'sleep'];
  return (['postStart', 'preStop'] as const).flatMap((hook) =>
    isPresent(lifecycle[hook]) ? validateHandler(asObject(lifecycle[hook]), gracePeriod, `${path}.${hook}`, allowed) : [],
  );
}

const userIdRange = inclusiveRangeError(0, 4294967295);

export function validateIdRange(value: unknown, path: string): FieldError[] {
  const n = asNumber(value);
  return n !== undefined && (n < 0 || n > 4294967295) ? [fieldInvalid(path, n, userIdRange)] : [];
}

function validateSecurityContext(sc: unknown, path: string): FieldError[] {
  if (!isPresent(sc)) return [];
  const ctx = asObject(sc);
  const errs = [...validateIdRange(ctx.runAsUser, `${path}.runAsUser`), ...validateIdRange(ctx.runAsGroup, `${path}.runAsGroup`)];
  const procMount = ctx.procMount;
  if (isPresent(procMount) && procMount !== 'Default' && procMount !== 'Unmasked')
    errs.push(fieldNotSupported(`${path}.procMount`, asString(procMount), ['Default', 'Unmasked']));
  return errs;
}

const pullPolicies = ['Always', 'IfNotPresent', 'Never'];

function validateContainerCommon(container: JsonObject, volumes: ReadonlyMap<string, string>, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const name = asString(container.name);
  if (name === '') errs.push(fieldRequired(`${path}.name`));
  else errs.push(...isDNS1123Label(name).map((msg) => fieldInvalid(`${path}.name`, name, msg)));
  if (asString(container.image) === '') errs.push(fieldRequired(`${path}.image`));
  const messagePolicy = asString(container.terminationMessagePolicy);
  if (messagePolicy === '') errs.push(fieldRequired(`${path}.terminationMessagePolicy`));
  else if (messagePolicy !== 'File' && messagePolicy !== 'FallbackToLogsOnError')
    errs.push(fieldNotSupported(`${path}.terminationMessagePolicy`, messagePolicy, ['File', 'FallbackToLogsOnError']));
  errs.push(...validateContainerPorts(container.ports, `${path}.ports`));
  errs.push(...validateEnv(container.env, `${path}.env`));
  errs.push(...validateEnvFrom(container.envFrom, `${path}.envFrom`));
  errs.push(...validateVolumeMounts(container, volumes, `${path}.volumeMounts`));
  errs.push(...validateVolumeDevices(container, volumes, `${path}.volumeDevices`));
  const pullPolicy = asString(container.imagePullPolicy);
  if (pullPolicy === '') errs.push(fieldRequired(`${path}.imagePullPolicy`));
  else if (!pullPolicies.includes(pullPolicy)) errs.push(fieldNotSupported(`${path}.imagePullPolicy`, pullPolicy, pullPolicies));
  errs.push(...validateContainerResources(container.resources, `${path}.resources`));
  errs.push(...validateSecurityContext(container.securityContext, `${path}.securityContext`));
  return errs;
}

/** EphemeralContainerCommon fields outside allowedEphemeralContainerFields, in the struct's order. */
const ephemeralOnlyZero = ['ports', 'resources', 'resizePolicy', 'restartPolicy', 'livenessProbe', 'readinessProbe', 'startupProbe', 'lifecycle'];

const isZero = (value: unknown): boolean =>
  value === undefined || value === null || value === '' || value === false || (Array.isArray(value) && !value.length) || (isJsonObject(value) && !Object.keys(value).length);

/** validateEphemeralContainers: container rules, names unique across all containers, and the allow-list. */
export function validateEphemeralContainers(ephemeral: unknown, containers: unknown, initContainers: unknown, volumes: ReadonlyMap<string, string>, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const others = new Set([...objectList(containers), ...objectList(initContainers)].map((c) => asString(c.name)));
  const all = new Set(others);
  objectList(ephemeral).forEach((c, i) => {
    const p = `${path}[${i}]`;
    errs.push(...validateContainerCommon(c, volumes, p));
    const image = asString(c.image);
    if (image.length !== image.trim().length) errs.push(fieldInvalid(`${p}.image`, image, 'must not have leading or trailing whitespace'));
    const name = asString(c.name);
    if (all.has(name)) errs.push(fieldDuplicate(`${p}.name`, name));
    else all.add(name);
    const target = asString(c.targetContainerName);
    if (target !== '' && !others.has(target)) errs.push(fieldNotFound(`${p}.targetContainerName`, target));
    for (const field of ephemeralOnlyZero) if (!isZero(c[field])) errs.push(fieldForbidden(`${p}.${field}`, 'cannot be set for an Ephemeral Container'));
    objectList(c.volumeMounts).forEach((m, j) => {
      for (const field of ['subPath', 'subPathExpr']) if (asString(m[field]) !== '') errs.push(fieldForbidden(`${p}.volumeMounts[${j}].${field}`, 'cannot be set for an Ephemeral Container'));
    });
  });
  return errs;
}

/** Host ports must not collide (same protocol, host IP and port) across the given containers. */
function checkHostPortConflicts(containers: JsonObject[], path: string, indexOffset = 0): FieldError[] {
  const seen = new Set<string>();
  const errs: FieldError[] = [];
  containers.forEach((c, ci) => {
    objectList(c.ports).forEach((port, pi) => {
      const hostPort = asNumber(port.hostPort) ?? 0;
      if (hostPort === 0) return;
      const key = `${asString(port.protocol)}/${asString(port.hostIP)}/${hostPort}`;
      if (seen.has(key)) errs.push(fieldDuplicate(`${path}[${ci + indexOffset}].ports[${pi}].hostPort`, key));
      else seen.add(key);
    });
  });
  return errs;
}

export function validateContainers(containers: unknown, volumes: ReadonlyMap<string, string>, gracePeriod: number | undefined, path: string): FieldError[] {
  const list = objectList(containers);
  if (list.length === 0) return [fieldRequired(path)];
  const errs: FieldError[] = [];
  const names = new Set<string>();
  list.forEach((c, i) => {
    const p = `${path}[${i}]`;
    errs.push(...validateContainerCommon(c, volumes, p));
    const name = asString(c.name);
    if (names.has(name)) errs.push(fieldDuplicate(`${p}.name`, name));
    else names.add(name);
    if (isPresent(c.lifecycle)) errs.push(...validateLifecycle(asObject(c.lifecycle), gracePeriod, `${p}.lifecycle`));
    errs.push(...validateProbe(c.livenessProbe, gracePeriod, `${p}.livenessProbe`, 'liveness'));
    errs.push(...validateProbe(c.readinessProbe, gracePeriod, `${p}.readinessProbe`, 'readiness'));
    errs.push(...validateProbe(c.startupProbe, gracePeriod, `${p}.startupProbe`, 'startup'));
    if (isPresent(c.restartPolicy)) errs.push(fieldForbidden(`${p}.restartPolicy`, 'may not be set for non-init containers'));
  });
  return [...errs, ...checkHostPortConflicts(list, path)];
}

export function validateInitContainers(
  initContainers: unknown,
  containers: unknown,
  volumes: ReadonlyMap<string, string>,
  gracePeriod: number | undefined,
  path: string,
): FieldError[] {
  const errs: FieldError[] = [];
  const names = new Set(objectList(containers).map((c) => asString(c.name)));
  objectList(initContainers).forEach((c, i) => {
    const p = `${path}[${i}]`;
    errs.push(...validateContainerCommon(c, volumes, p));
    let restartAlways = false;
    if (isPresent(c.restartPolicy)) {
      const policy = asString(c.restartPolicy);
      if (policy !== 'Always') errs.push(fieldNotSupported(`${p}.restartPolicy`, policy, ['Always']));
      restartAlways = policy === 'Always';
    }
    const name = asString(c.name);
    if (names.has(name)) errs.push(fieldDuplicate(`${p}.name`, name));
    else if (name !== '') names.add(name);
    errs.push(...checkHostPortConflicts([c], path, i));
    if (restartAlways) {
      if (isPresent(c.lifecycle)) errs.push(...validateLifecycle(asObject(c.lifecycle), gracePeriod, `${p}.lifecycle`));
      errs.push(...validateProbe(c.livenessProbe, gracePeriod, `${p}.livenessProbe`, 'liveness'));
      errs.push(...validateProbe(c.readinessProbe, gracePeriod, `${p}.readinessProbe`, 'readiness'));
      errs.push(...validateProbe(c.startupProbe, gracePeriod, `${p}.startupProbe`, 'startup'));
    } else {
      for (const f of ['lifecycle', 'livenessProbe', 'readinessProbe', 'startupProbe'])
        if (isPresent(c[f])) errs.push(fieldForbidden(`${p}.${f}`, 'may not be set for init containers without restartPolicy=Always'));
    }
  });
  return errs;
}

/** Pods only (not templates): images may not carry surrounding whitespace. */
export function validateImagesTrimmed(containers: unknown, path: string): FieldError[] {
  return objectList(containers).flatMap((c, i) => {
    const image = asString(c.image);
    return image.length !== image.trim().length ? [fieldInvalid(`${path}[${i}].image`, image, 'must not have leading or trailing whitespace')] : [];
  });
}
