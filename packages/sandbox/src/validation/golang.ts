// Go renderings that appear inside validation messages: `%#v` of maps, slices and label selectors
// (the "Invalid value: map[string]string{…}" of field errors) and the go-cmp diff of the internal
// core.PodSpec that follows "pod updates may not change fields other than …".

import { goQuote } from '../crd/go-format.ts';
import { fieldErrorString, type FieldError } from '../errors.ts';
import { isJsonObject, ownMember, type JsonObject } from '../meta/object.ts';
import { asArray, asObject, asStringMap, semanticEqual } from './json.ts';

/**
 * A field-error value that Go prints with %#v. `goLiteral` is the exact text the real server shows
 * after "Invalid value: " (no quotes around it).
 */
export interface GoLiteral {
  readonly goLiteral: string;
}

export const goLiteral = (text: string): GoLiteral => ({ goLiteral: text });

export function isGoLiteral(value: unknown): value is GoLiteral {
  return isJsonObject(value) && typeof value.goLiteral === 'string' && Object.keys(value).length === 1;
}

/**
 * field.Error.Error() (`<field>: <type>: <value>: <detail>`) with Go-printed values shown as the
 * real server shows them; other values are rendered by errors.ts.
 */
export function goFieldErrorString(e: FieldError): string {
  if (!isGoLiteral(e.value)) return fieldErrorString(e);
  const placeholder = '\u0000go-literal\u0000';
  return fieldErrorString({ ...e, value: placeholder }).replace(JSON.stringify(placeholder), e.value.goLiteral);
}

/** `map[string]string{"a":"b"}` (keys sorted, as fmt sorts them), `map[string]string(nil)` when absent. */
export function goStringMapText(value: unknown): string {
  if (!isJsonObject(value)) return 'map[string]string(nil)';
  const entries = Object.entries(asStringMap(value)).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `map[string]string{${entries.map(([k, v]) => `${goQuote(k)}:${goQuote(v)}`).join(', ')}}`;
}

export function goStringSliceText(value: unknown): string {
  if (!Array.isArray(value)) return '[]string(nil)';
  return `[]string{${value.map((v) => goQuote(String(v))).join(', ')}}`;
}

/**
 * A *metav1.LabelSelector as a field-error value: `v1.LabelSelector{MatchLabels:…, MatchExpressions:…}`,
 * or the string "null" for a nil pointer (field.Error prints it so).
 */
export function goLabelSelectorValue(value: unknown): GoLiteral | string {
  return isJsonObject(value) ? goLiteral(goLabelSelectorText(value)) : 'null';
}

/** `v1.LabelSelector{MatchLabels:…, MatchExpressions:…}` as %#v prints a metav1.LabelSelector. */
export function goLabelSelectorText(value: unknown): string {
  const sel = asObject(value);
  const exprs = sel.matchExpressions;
  const exprText = Array.isArray(exprs)
    ? `[]v1.LabelSelectorRequirement{${exprs
        .map(asObject)
        .map(
          (e) =>
            `v1.LabelSelectorRequirement{Key:${goQuote(String(e.key ?? ''))}, Operator:${goQuote(String(e.operator ?? ''))}, Values:${goStringSliceText(e.values)}}`,
        )
        .join(', ')}}`
    : '[]v1.LabelSelectorRequirement(nil)';
  return `v1.LabelSelector{MatchLabels:${goStringMapText(sel.matchLabels)}, MatchExpressions:${exprText}}`;
}

/** `intstr.IntOrString{Type:1, IntVal:0, StrVal:"25%"}` as %#v prints an int-or-string value. */
export function goIntOrStringText(value: unknown): string {
  return typeof value === 'number'
    ? `intstr.IntOrString{Type:0, IntVal:${value}, StrVal:""}`
    : `intstr.IntOrString{Type:1, IntVal:0, StrVal:${goQuote(typeof value === 'string' ? value : '')}}`;
}

/**
 * An approximation of %#v for a whole API struct (`core.PodTemplateSpec{…}`): Go field names and
 * values, zero fields left out. The real text has every field and pointer addresses.
 */
export function goStructText(typeName: string, value: unknown): string {
  const render = (v: unknown): string => {
    if (v === undefined || v === null) return 'nil';
    if (typeof v === 'string') return goQuote(v);
    if (typeof v === 'number' || typeof v === 'boolean') return String(v);
    if (Array.isArray(v)) return `{${v.map(render).join(', ')}}`;
    return `{${Object.entries(asObject(v))
      .map(([k, x]) => `${goFieldName(k)}:${render(x)}`)
      .join(', ')}}`;
  };
  return `${typeName}${render(value)}`;
}

// ---- go-cmp diff of core.PodSpec -------------------------------------------------------------

/** Go field names that are not the JSON name with a capital first letter. */
const goFieldNames: Record<string, string> = {
  apiVersion: 'APIVersion',
  uid: 'UID',
  tty: 'TTY',
  httpGet: 'HTTPGet',
  tcpSocket: 'TCPSocket',
  grpc: 'GRPC',
  httpHeaders: 'HTTPHeaders',
  dnsPolicy: 'DNSPolicy',
  dnsConfig: 'DNSConfig',
  fsGroup: 'FSGroup',
  fsGroupChangePolicy: 'FSGroupChangePolicy',
  seLinuxOptions: 'SELinuxOptions',
  seLinuxChangePolicy: 'SELinuxChangePolicy',
  hostIP: 'HostIP',
  hostPID: 'HostPID',
  hostIPC: 'HostIPC',
  ip: 'IP',
  url: 'URL',
  os: 'OS',
  iscsi: 'ISCSI',
  nfs: 'NFS',
  csi: 'CSI',
  fc: 'FC',
  rbd: 'RBD',
  setHostnameAsFQDN: 'SetHostnameAsFQDN',
};

const goFieldName = (key: string): string => ownMember(goFieldNames, key) ?? key.charAt(0).toUpperCase() + key.slice(1);

/** Fields of the internal core.PodSpec in declaration order, with the Go type go-cmp prints. */
const podSpecFields: ReadonlyArray<readonly [goName: string, jsonKey: string, goType: string]> = [
  ['Volumes', 'volumes', '[]core.Volume'],
  ['InitContainers', 'initContainers', '[]core.Container'],
  ['Containers', 'containers', '[]core.Container'],
  ['EphemeralContainers', 'ephemeralContainers', '[]core.EphemeralContainer'],
  ['RestartPolicy', 'restartPolicy', 'string'],
  ['TerminationGracePeriodSeconds', 'terminationGracePeriodSeconds', '*int'],
  ['ActiveDeadlineSeconds', 'activeDeadlineSeconds', '*int'],
  ['DNSPolicy', 'dnsPolicy', 'string'],
  ['NodeSelector', 'nodeSelector', 'map[string]string'],
  ['ServiceAccountName', 'serviceAccountName', 'string'],
  ['AutomountServiceAccountToken', 'automountServiceAccountToken', '*bool'],
  ['NodeName', 'nodeName', 'string'],
  ['SecurityContext', 'securityContext', '*core.PodSecurityContext'],
  ['ImagePullSecrets', 'imagePullSecrets', '[]core.LocalObjectReference'],
  ['Hostname', 'hostname', 'string'],
  ['Subdomain', 'subdomain', 'string'],
  ['SetHostnameAsFQDN', 'setHostnameAsFQDN', '*bool'],
  ['Affinity', 'affinity', '*core.Affinity'],
  ['SchedulerName', 'schedulerName', 'string'],
  ['Tolerations', 'tolerations', '[]core.Toleration'],
  ['HostAliases', 'hostAliases', '[]core.HostAlias'],
  ['PriorityClassName', 'priorityClassName', 'string'],
  ['Priority', 'priority', '*int'],
  ['PreemptionPolicy', 'preemptionPolicy', '*string'],
  ['DNSConfig', 'dnsConfig', '*core.PodDNSConfig'],
  ['ReadinessGates', 'readinessGates', '[]core.PodReadinessGate'],
  ['RuntimeClassName', 'runtimeClassName', '*string'],
  ['Overhead', 'overhead', 'core.ResourceList'],
  ['EnableServiceLinks', 'enableServiceLinks', '*bool'],
  ['TopologySpreadConstraints', 'topologySpreadConstraints', '[]core.TopologySpreadConstraint'],
  ['OS', 'os', '*core.PodOS'],
  ['SchedulingGates', 'schedulingGates', '[]core.PodSchedulingGate'],
  ['ResourceClaims', 'resourceClaims', '[]core.PodResourceClaim'],
  ['Resources', 'resources', '*core.ResourceRequirements'],
];

/** The v1 host-namespace switches live in the internal PodSecurityContext. */
const hostFieldsInSecurityContext = ['hostNetwork', 'hostPID', 'hostIPC', 'shareProcessNamespace', 'hostUsers'];

function internalPodSpec(spec: JsonObject): JsonObject {
  const securityContext: JsonObject = {};
  for (const k of hostFieldsInSecurityContext) if (spec[k] !== undefined) securityContext[k] = spec[k];
  const out: JsonObject = { ...spec };
  if (Object.keys(securityContext).length > 0 || out.securityContext !== undefined)
    out.securityContext = { ...securityContext, ...asObject(spec.securityContext) };
  return out;
}

/** A value in go-cmp's compact notation; nested structs show their Go field names only. */
function goValue(value: unknown): string {
  if (value === undefined || value === null) return 'nil';
  if (typeof value === 'string') return goQuote(value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return `{${value.map(goValue).join(', ')}}`;
  const obj = asObject(value);
  return `{${Object.entries(obj)
    .filter(([, v]) => v !== undefined && v !== null && v !== '' && v !== false && v !== 0)
    .map(([k, v]) => `${goFieldName(k)}: ${goValue(v)}`)
    .join(', ')}}`;
}

function goTypedValue(value: unknown, goType: string, identical: boolean): string {
  const absent = value === undefined || value === null || (Array.isArray(value) && value.length === 0);
  if (goType.startsWith('*')) {
    if (absent) return 'nil';
    const inner = goType.slice(1);
    if (inner === 'int' || inner === 'bool') return `&${String(value)}`;
    if (inner === 'string') return `&${goQuote(String(value))}`;
    return `&${identical ? '' : inner}${goValue(value)}`;
  }
  if (goType === 'string') return goQuote(typeof value === 'string' ? value : '');
  if (absent || (isJsonObject(value) && Object.keys(value).length === 0 && goType.startsWith('map'))) return 'nil';
  if (goType.startsWith('map') || goType === 'core.ResourceList') {
    const entries = Object.entries(asObject(value)).map(([k, v]) => `${goQuote(k)}: ${goValue(v)}`);
    return `${identical ? '' : goType}{${entries.join(', ')}}`;
  }
  return `${identical ? '' : goType}{${asArray(value).map(goValue).join(', ')}}`;
}

interface DiffRecord {
  key: string;
  mode: 'identical' | 'removed' | 'inserted';
  value: string;
}

const NBSP = '\u00a0';
const markers: Record<DiffRecord['mode'], string> = { identical: NBSP + NBSP, removed: `-${NBSP}`, inserted: `+${NBSP}` };
const CONTEXT_RECORDS = 2;

function ellipsis(count: number): DiffRecord {
  return { key: '', mode: 'identical', value: `... // ${count} identical field${count === 1 ? '' : 's'}` };
}

/**
 * The go-cmp report of `cmp.Diff(old, new)` on two pod specs, in the form the real server appends
 * to the pod-update Forbidden message: two context fields around each change, the rest elided.
 * Changed fields are shown whole (go-cmp would descend into nested structs).
 */
export function podSpecDiff(oldSpec: unknown, newSpec: unknown): string {
  const oldInternal = internalPodSpec(asObject(oldSpec));
  const newInternal = internalPodSpec(asObject(newSpec));
  const fields = podSpecFields.map(([goName, jsonKey, goType]) => {
    const a = oldInternal[jsonKey];
    const b = newInternal[jsonKey];
    return { goName, goType, a, b, equal: semanticEqual(a, b) };
  });

  // Runs of equal and of changed fields, in order.
  const runs: Array<typeof fields> = [];
  for (const f of fields) {
    const last = runs[runs.length - 1];
    if (last && last[0]?.equal === f.equal) last.push(f);
    else runs.push([f]);
  }

  const records: DiffRecord[] = [];
  runs.forEach((run, i) => {
    if (!run[0]?.equal) {
      for (const f of run) {
        records.push({ key: f.goName, mode: 'removed', value: goTypedValue(f.a, f.goType, false) });
        records.push({ key: f.goName, mode: 'inserted', value: goTypedValue(f.b, f.goType, false) });
      }
      return;
    }
    let lo = i === 0 ? 0 : Math.min(CONTEXT_RECORDS, run.length);
    let hi = i === runs.length - 1 ? 0 : Math.min(CONTEXT_RECORDS, run.length - lo);
    if (run.length - (lo + hi) === 1) hi += 1;
    if (lo + hi > run.length) lo = run.length - hi;
    const identical = (f: (typeof fields)[number]): DiffRecord => ({ key: f.goName, mode: 'identical', value: goTypedValue(f.b, f.goType, true) });
    records.push(...run.slice(0, lo).map(identical));
    if (run.length > lo + hi) records.push(ellipsis(run.length - lo - hi));
    records.push(...run.slice(run.length - hi).map(identical));
  });

  // Keys are aligned within each stretch between elided runs.
  const lines = [`${markers.identical}core.PodSpec{`];
  let start = 0;
  while (start < records.length) {
    let end = start;
    while (end < records.length && records[end]?.key !== '') end++;
    const width = Math.max(0, ...records.slice(start, end).map((r) => r.key.length));
    for (const r of records.slice(start, end)) lines.push(`${markers[r.mode]}\t${`${r.key}:`.padEnd(width + 2)}${r.value},`);
    const sep = records[end];
    if (sep) lines.push(`${markers.identical}\t${sep.value}`);
    start = end + 1;
  }
  lines.push(`${markers.identical}}`);
  return `${lines.join('\n')}\n`;
}
