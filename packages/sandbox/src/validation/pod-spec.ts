// ValidatePodSpec and ValidatePodTemplateSpec: everything in a pod spec that is not a container,
// in the order the real server checks it.

import { fieldDuplicate, fieldForbidden, fieldInvalid, fieldNotSupported, fieldRequired, type FieldError } from '../errors.ts';
import { validateLabelSelector } from '../selectors/label-selector.ts';
import { validateContainers, validateEphemeralContainers, validateIdRange, validateInitContainers } from './containers.ts';
import { goLiteral, goStringSliceText } from './golang.ts';
import { asArray, asNumber, asObject, asString, asStringMap, isPresent, objectList } from './json.ts';
import { validateAnnotations, validateLabelName, validateLabels } from './meta.ts';
import { isValidIP } from './network.ts';
import { inclusiveRangeError, isDNS1123Label, isDNS1123Subdomain, isQualifiedName, isValidLabelValue, nameIsDNSSubdomain } from './names.ts';
import { validateContainerResources } from './resources.ts';
import { validateVolumes } from './volumes.ts';

export interface PodSpecOptions {
  /** The spec belongs to a Pod (not a template): host ports must equal container ports under hostNetwork. */
  resourceIsPod: boolean;
}

const MAX_INT32 = 2147483647;

const taintEffects = ['NoSchedule', 'PreferNoSchedule', 'NoExecute'];

export function validateTolerations(tolerations: unknown, path: string): FieldError[] {
  const errs: FieldError[] = [];
  objectList(tolerations).forEach((t, i) => {
    const p = `${path}[${i}]`;
    const key = asString(t.key);
    const operator = asString(t.operator);
    const value = asString(t.value);
    const effect = asString(t.effect);
    if (key !== '') errs.push(...validateLabelName(key, `${p}.key`));
    if (key === '' && operator !== 'Exists')
      errs.push(fieldInvalid(`${p}.operator`, operator, 'operator must be Exists when `key` is empty, which means "match all values and all keys"'));
    if (isPresent(t.tolerationSeconds) && effect !== 'NoExecute') errs.push(fieldInvalid(`${p}.effect`, effect, "effect must be 'NoExecute' when `tolerationSeconds` is set"));
    if (operator === 'Equal' || operator === '') {
      const valueErrs = isValidLabelValue(value);
      if (valueErrs.length > 0) errs.push(fieldInvalid(`${p}.operator`, value, valueErrs.join(';')));
    } else if (operator === 'Exists') {
      if (value !== '') errs.push(fieldInvalid(`${p}.operator`, value, "value must be empty when `operator` is 'Exists'"));
    } else {
      errs.push(fieldNotSupported(`${p}.operator`, operator, ['Equal', 'Exists']));
    }
    if (effect !== '' && !taintEffects.includes(effect)) errs.push(fieldNotSupported(`${p}.effect`, effect, taintEffects));
  });
  return errs;
}

function validateNodeSelectorTerm(term: Record<string, unknown>, path: string): FieldError[] {
  const errs: FieldError[] = [];
  objectList(term.matchExpressions).forEach((rq, j) => {
    const p = `${path}.matchExpressions[${j}]`;
    const values = asArray(rq.values).map(asString);
    const operator = asString(rq.operator);
    if (operator === 'In' || operator === 'NotIn') {
      if (values.length === 0) errs.push(fieldRequired(`${p}.values`, "must be specified when `operator` is 'In' or 'NotIn'"));
    } else if (operator === 'Exists' || operator === 'DoesNotExist') {
      if (values.length > 0) errs.push(fieldForbidden(`${p}.values`, "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"));
    } else if (operator === 'Gt' || operator === 'Lt') {
      if (values.length !== 1) errs.push(fieldRequired(`${p}.values`, "must be specified single value when `operator` is 'Lt' or 'Gt'"));
    } else {
      errs.push(fieldInvalid(`${p}.operator`, operator, 'not a valid selector operator'));
    }
    errs.push(...validateLabelName(asString(rq.key), `${p}.key`));
    values.forEach((v, k) => errs.push(...isValidLabelValue(v).map((msg) => fieldInvalid(`${p}.values[${k}]`, v, msg))));
  });
  objectList(term.matchFields).forEach((rq, j) => {
    const p = `${path}.matchFields[${j}]`;
    const operator = asString(rq.operator);
    const values = asArray(rq.values).map(asString);
    if (operator === 'In' || operator === 'NotIn') {
      if (values.length !== 1) errs.push(fieldRequired(`${p}.values`, "must be only one value when `operator` is 'In' or 'NotIn' for node field selector"));
    } else errs.push(fieldInvalid(`${p}.operator`, operator, 'not a valid selector operator'));
    if (asString(rq.key) !== 'metadata.name') errs.push(fieldInvalid(`${p}.key`, asString(rq.key), 'not a valid field selector key'));
    else values.forEach((v, k) => errs.push(...nameIsDNSSubdomain(v, false).map((msg) => fieldInvalid(`${p}.values[${k}]`, v, msg))));
  });
  return errs;
}

function validatePodAffinityTerm(term: Record<string, unknown>, path: string): FieldError[] {
  const errs = validateLabelSelector(term.labelSelector, `${path}.labelSelector`);
  errs.push(...validateLabelSelector(term.namespaceSelector, `${path}.namespaceSelector`));
  for (const ns of asArray(term.namespaces).map(asString)) errs.push(...isDNS1123Label(ns).map((msg) => fieldInvalid(`${path}.namespace`, ns, msg)));
  const topologyKey = asString(term.topologyKey);
  if (topologyKey === '') errs.push(fieldRequired(`${path}.topologyKey`, 'can not be empty'));
  return [...errs, ...validateLabelName(topologyKey, `${path}.topologyKey`)];
}

function validateWeight(weight: unknown, path: string): FieldError[] {
  const w = asNumber(weight) ?? 0;
  return w <= 0 || w > 100 ? [fieldInvalid(path, w, 'must be in the range 1-100')] : [];
}

function validateAffinity(affinity: unknown, path: string): FieldError[] {
  if (!isPresent(affinity)) return [];
  const aff = asObject(affinity);
  const errs: FieldError[] = [];
  if (isPresent(aff.nodeAffinity)) {
    const na = asObject(aff.nodeAffinity);
    const p = `${path}.nodeAffinity`;
    if (isPresent(na.requiredDuringSchedulingIgnoredDuringExecution)) {
      const terms = objectList(asObject(na.requiredDuringSchedulingIgnoredDuringExecution).nodeSelectorTerms);
      const tp = `${p}.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms`;
      if (terms.length === 0) errs.push(fieldRequired(tp, 'must have at least one node selector term'));
      terms.forEach((t, i) => errs.push(...validateNodeSelectorTerm(t, `${tp}[${i}]`)));
    }
    objectList(na.preferredDuringSchedulingIgnoredDuringExecution).forEach((t, i) => {
      const tp = `${p}.preferredDuringSchedulingIgnoredDuringExecution[${i}]`;
      errs.push(...validateWeight(t.weight, `${tp}.weight`), ...validateNodeSelectorTerm(asObject(t.preference), `${tp}.preference`));
    });
  }
  for (const kind of ['podAffinity', 'podAntiAffinity'] as const) {
    if (!isPresent(aff[kind])) continue;
    const pa = asObject(aff[kind]);
    const p = `${path}.${kind}`;
    objectList(pa.requiredDuringSchedulingIgnoredDuringExecution).forEach((t, i) =>
      errs.push(...validatePodAffinityTerm(t, `${p}.requiredDuringSchedulingIgnoredDuringExecution[${i}]`)),
    );
    objectList(pa.preferredDuringSchedulingIgnoredDuringExecution).forEach((t, i) => {
      const tp = `${p}.preferredDuringSchedulingIgnoredDuringExecution[${i}]`;
      errs.push(...validateWeight(t.weight, `${tp}.weight`), ...validatePodAffinityTerm(asObject(t.podAffinityTerm), `${tp}.podAffinityTerm`));
    });
  }
  return errs;
}

function validateDNSConfig(dnsConfig: unknown, dnsPolicy: string, path: string): FieldError[] {
  if (dnsPolicy === 'None') {
    if (!isPresent(dnsConfig)) return [fieldRequired(path, 'must provide `dnsConfig` when `dnsPolicy` is None')];
    if (asArray(asObject(dnsConfig).nameservers).length === 0)
      return [fieldRequired(`${path}.nameservers`, 'must provide at least one DNS nameserver when `dnsPolicy` is None')];
  }
  if (!isPresent(dnsConfig)) return [];
  const cfg = asObject(dnsConfig);
  const errs: FieldError[] = [];
  const nameservers = asArray(cfg.nameservers).map(asString);
  if (nameservers.length > 3) errs.push(fieldInvalid(`${path}.nameservers`, goLiteral(goStringSliceText(nameservers)), 'must not have more than 3 nameservers'));
  nameservers.forEach((ns, i) => errs.push(...isValidIP(`${path}.nameservers[${i}]`, ns)));
  const searches = asArray(cfg.searches).map(asString);
  if (searches.length > 32) errs.push(fieldInvalid(`${path}.searches`, goLiteral(goStringSliceText(searches)), 'must not have more than 32 search paths'));
  if (searches.join(' ').length > 2048)
    errs.push(fieldInvalid(`${path}.searches`, goLiteral(goStringSliceText(searches)), 'must not have more than 2048 characters (including spaces) in the search list'));
  searches.forEach((search, i) => {
    const trimmed = search.endsWith('.') ? search.slice(0, -1) : search;
    errs.push(...isDNS1123Subdomain(trimmed).map((msg) => fieldInvalid(`${path}.searches[${i}]`, trimmed, msg)));
  });
  objectList(cfg.options).forEach((opt, i) => {
    if (asString(opt.name) === '') errs.push(fieldRequired(`${path}.options[${i}]`, 'must not be empty'));
  });
  return errs;
}

function validatePodSecurityContext(sc: unknown, path: string): FieldError[] {
  if (!isPresent(sc)) return [];
  const ctx = asObject(sc);
  const errs = [...validateIdRange(ctx.fsGroup, `${path}.fsGroup`), ...validateIdRange(ctx.runAsUser, `${path}.runAsUser`), ...validateIdRange(ctx.runAsGroup, `${path}.runAsGroup`)];
  asArray(ctx.supplementalGroups).forEach((g, i) => errs.push(...validateIdRange(g, `${path}.supplementalGroups[${i}]`)));
  if (isPresent(ctx.fsGroupChangePolicy) && !['Always', 'OnRootMismatch'].includes(asString(ctx.fsGroupChangePolicy)))
    errs.push(fieldNotSupported(`${path}.fsGroupChangePolicy`, asString(ctx.fsGroupChangePolicy), ['Always', 'OnRootMismatch']));
  return errs;
}

function validateTopologySpreadConstraints(constraints: unknown, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const list = objectList(constraints);
  list.forEach((c, i) => {
    const p = `${path}[${i}]`;
    const maxSkew = asNumber(c.maxSkew) ?? 0;
    if (maxSkew <= 0) errs.push(fieldInvalid(`${p}.maxSkew`, maxSkew, 'must be greater than zero'));
    const topologyKey = asString(c.topologyKey);
    if (topologyKey === '') errs.push(fieldRequired(`${p}.topologyKey`, 'can not be empty'));
    else errs.push(...validateLabelName(topologyKey, `${p}.topologyKey`));
    const when = asString(c.whenUnsatisfiable);
    if (when === '') errs.push(fieldRequired(`${p}.whenUnsatisfiable`));
    else if (when !== 'DoNotSchedule' && when !== 'ScheduleAnyway') errs.push(fieldNotSupported(`${p}.whenUnsatisfiable`, when, ['DoNotSchedule', 'ScheduleAnyway']));
    // A pair repeated later in the list is reported at its first occurrence.
    if (list.slice(i + 1).some((later) => asString(later.topologyKey) === topologyKey && asString(later.whenUnsatisfiable) === when))
      errs.push(fieldDuplicate(`${p}.{topologyKey, whenUnsatisfiable}`, `{${topologyKey}, ${when}}`));
    errs.push(...validateLabelSelector(c.labelSelector, `${p}.labelSelector`));
  });
  return errs;
}

const restartPolicies = ['Always', 'OnFailure', 'Never'];
const dnsPolicies = ['ClusterFirstWithHostNet', 'ClusterFirst', 'Default', 'None'];
const preemptionPolicies = ['PreemptLowerPriority', 'Never'];

const nameErrors = (value: string, path: string): FieldError[] => nameIsDNSSubdomain(value, false).map((msg) => fieldInvalid(path, value, msg));

export function validatePodSpec(spec: unknown, path: string, opts: PodSpecOptions): FieldError[] {
  const s = asObject(spec);
  const errs: FieldError[] = [];
  const gracePeriod = asNumber(s.terminationGracePeriodSeconds);
  if (!isPresent(s.terminationGracePeriodSeconds)) errs.push(fieldRequired(`${path}.terminationGracePeriodSeconds`));
  const volumes = validateVolumes(s.volumes, `${path}.volumes`);
  errs.push(...volumes.errors);
  errs.push(...validateContainers(s.containers, volumes.valid, gracePeriod, `${path}.containers`));
  errs.push(...validateInitContainers(s.initContainers, s.containers, volumes.valid, gracePeriod, `${path}.initContainers`));
  errs.push(...validateEphemeralContainers(s.ephemeralContainers, s.containers, s.initContainers, volumes.valid, `${path}.ephemeralContainers`));
  if (s.hostNetwork === true) {
    objectList(s.containers).forEach((c, i) =>
      objectList(c.ports).forEach((port, j) => {
        const hostPort = asNumber(port.hostPort) ?? 0;
        if ((opts.resourceIsPod || hostPort !== 0) && hostPort !== (asNumber(port.containerPort) ?? 0))
          errs.push(fieldInvalid(`${path}.containers[${i}].ports[${j}].hostPort`, hostPort, 'must match `containerPort` when `hostNetwork` is true'));
      }),
    );
  }
  const restartPolicy = asString(s.restartPolicy);
  if (restartPolicy === '') errs.push(fieldRequired(`${path}.restartPolicy`));
  else if (!restartPolicies.includes(restartPolicy)) errs.push(fieldNotSupported(`${path}.restartPolicy`, restartPolicy, restartPolicies));
  const dnsPolicy = asString(s.dnsPolicy);
  if (dnsPolicy === '') errs.push(fieldRequired(`${path}.dnsPolicy`));
  else if (!dnsPolicies.includes(dnsPolicy)) errs.push(fieldNotSupported(`${path}.dnsPolicy`, dnsPolicy, dnsPolicies));
  errs.push(...validateLabels(s.nodeSelector, `${path}.nodeSelector`));
  errs.push(...validatePodSecurityContext(s.securityContext, `${path}.securityContext`));
  errs.push(...validateAffinity(s.affinity, `${path}.affinity`));
  errs.push(...validateDNSConfig(s.dnsConfig, dnsPolicy, `${path}.dnsConfig`));
  objectList(s.readinessGates).forEach((gate, i) => {
    const conditionType = asString(gate.conditionType);
    errs.push(...isQualifiedName(conditionType).map((msg) => fieldInvalid(`${path}.readinessGates[${i}].conditionType`, conditionType, msg)));
  });
  const gates = new Set<string>();
  objectList(s.schedulingGates).forEach((gate, i) => {
    const name = asString(gate.name);
    errs.push(...isQualifiedName(name).map((msg) => fieldInvalid(`${path}.schedulingGates[${i}]`, name, msg)));
    if (gates.has(name)) errs.push(fieldDuplicate(`${path}.schedulingGates[${i}]`, name));
    gates.add(name);
  });
  errs.push(...validateTopologySpreadConstraints(s.topologySpreadConstraints, `${path}.topologySpreadConstraints`));
  const serviceAccountName = asString(s.serviceAccountName);
  if (serviceAccountName !== '') errs.push(...nameErrors(serviceAccountName, `${path}.serviceAccountName`));
  const nodeName = asString(s.nodeName);
  if (nodeName !== '') errs.push(...nameErrors(nodeName, `${path}.nodeName`));
  const deadline = asNumber(s.activeDeadlineSeconds);
  if (deadline !== undefined && (deadline < 1 || deadline > MAX_INT32))
    errs.push(fieldInvalid(`${path}.activeDeadlineSeconds`, deadline, inclusiveRangeError(1, MAX_INT32)));
  for (const f of ['hostname', 'subdomain'] as const) {
    const v = asString(s[f]);
    if (v !== '') errs.push(...isDNS1123Label(v).map((msg) => fieldInvalid(`${path}.${f}`, v, msg)));
  }
  errs.push(...validateTolerations(s.tolerations, `${path}.tolerations`));
  objectList(s.hostAliases).forEach((alias, i) => {
    errs.push(...isValidIP(`${path}.hostAliases[${i}].ip`, asString(alias.ip)));
    asArray(alias.hostnames).forEach((h, j) =>
      errs.push(...isDNS1123Subdomain(asString(h)).map((msg) => fieldInvalid(`${path}.hostAliases[${i}].hostnames[${j}]`, asString(h), msg))),
    );
  });
  const priorityClassName = asString(s.priorityClassName);
  if (priorityClassName !== '') errs.push(...nameErrors(priorityClassName, `${path}.priorityClassName`));
  if (isPresent(s.runtimeClassName)) errs.push(...nameErrors(asString(s.runtimeClassName), `${path}.runtimeClassName`));
  if (isPresent(s.preemptionPolicy)) {
    const policy = asString(s.preemptionPolicy);
    if (policy === '') errs.push(fieldRequired(`${path}.preemptionPolicy`));
    else if (!preemptionPolicies.includes(policy)) errs.push(fieldNotSupported(`${path}.preemptionPolicy`, policy, preemptionPolicies));
  }
  if (isPresent(s.overhead)) errs.push(...validateContainerResources({ limits: s.overhead }, `${path}.overhead`));
  if (isPresent(s.os)) {
    const osName = asString(asObject(s.os).name);
    if (osName === '') errs.push(fieldRequired(`${path}.os.name`));
    else if (osName !== 'linux' && osName !== 'windows') errs.push(fieldNotSupported(`${path}.os.name`, osName, ['linux', 'windows']));
  }
  return errs;
}

/** ValidatePodSpecificAnnotations: mirror pods need a node, deletion cost is an int32. */
export function validatePodSpecificAnnotations(annotations: unknown, spec: unknown, path: string): FieldError[] {
  const anns = asStringMap(annotations);
  const errs: FieldError[] = [];
  const mirror = anns['kubernetes.io/config.mirror'];
  if (mirror !== undefined && asString(asObject(spec).nodeName) === '')
    errs.push(fieldInvalid(`${path}[kubernetes.io/config.mirror]`, mirror, 'must set spec.nodeName if mirror pod annotation is set'));
  const cost = anns['controller.kubernetes.io/pod-deletion-cost'];
  if (cost !== undefined && !(/^[+-]?[0-9]+$/.test(cost) && Number(cost) >= -MAX_INT32 - 1 && Number(cost) <= MAX_INT32))
    errs.push(fieldInvalid(`${path}[controller.kubernetes.io/pod-deletion-cost]`, cost, 'must be a 32bit integer'));
  return errs;
}

/** ValidatePodTemplateSpec: the template's labels and annotations (named without `metadata`, sic), then its spec. */
export function validatePodTemplateSpec(template: unknown, path: string): FieldError[] {
  const t = asObject(template);
  const meta = asObject(t.metadata);
  const errs = [
    ...validateLabels(meta.labels, `${path}.labels`),
    ...validateAnnotations(meta.annotations, `${path}.annotations`),
    ...validatePodSpecificAnnotations(meta.annotations, t.spec, `${path}.annotations`),
    ...validatePodSpec(t.spec, `${path}.spec`, { resourceIsPod: false }),
  ];
  if (asArray(asObject(t.spec).ephemeralContainers).length > 0)
    errs.push(fieldForbidden(`${path}.spec.ephemeralContainers`, 'ephemeral containers not allowed in pod template'));
  return errs;
}
