// Decoding of Kubernetes protobuf request bodies (`application/vnd.kubernetes.protobuf`), which
// kubectl's object generators send (`kubectl create deployment|job|configmap|secret|namespace|
// serviceaccount|service|role|clusterrole|rolebinding|clusterrolebinding|pdb`, `kubectl expose`,
// `kubectl autoscale`), the access reviews of `kubectl auth can-i` and the DeleteOptions of typed
// clients (`kubectl drain --disable-eviction`), and do not retry as JSON. Responses stay JSON, which
// those clients accept.
//
// The envelope is the 4-byte magic `k8s\0` and a runtime.Unknown {typeMeta, raw}; `raw` is the
// object in the proto2 encoding of the k8s.io/api types. Only the message types those generators
// produce are described here, by field number. Go emits every non-pointer field, zero or not, so a
// zero value of a non-pointer field is dropped (as JSON's omitempty would); a field this table does
// not know is accepted only when it holds a zero value, otherwise the body is refused.

import { failure, StatusError } from '../errors.ts';
import type { JsonObject, KubeObject } from '../meta/object.ts';

type Scalar = 'string' | 'bytes' | 'int32' | 'int64' | 'bool';
type FieldType = Scalar | 'time' | 'intOrString' | 'quantity' | { message: string } | { map: Scalar | 'quantity' };

interface Field {
  name: string;
  type: FieldType;
  repeated?: boolean;
  /** A Go pointer (or an always-serialized field): keep zero values. */
  keep?: boolean;
}

type MessageSchema = Readonly<Record<number, Field>>;

const f = (name: string, type: FieldType, options: { repeated?: boolean; keep?: boolean } = {}): Field => ({ name, type, ...options });
const msg = (message: string): FieldType => ({ message });
const strings = (name: string): Field => f(name, 'string', { repeated: true });
const ptr = (name: string, type: FieldType): Field => f(name, type, { keep: true });
const kindMessage = (spec: string, status: string): MessageSchema => ({
  1: f('metadata', msg('ObjectMeta')),
  2: f('spec', msg(spec)),
  3: f('status', msg(status)),
});

const messages: Readonly<Record<string, MessageSchema>> = {
  Unknown: { 1: f('typeMeta', msg('TypeMeta')), 2: f('raw', 'bytes'), 3: f('contentEncoding', 'string'), 4: f('contentType', 'string') },
  TypeMeta: { 1: f('apiVersion', 'string'), 2: f('kind', 'string') },
  ObjectMeta: {
    1: f('name', 'string'),
    2: f('generateName', 'string'),
    3: f('namespace', 'string'),
    4: f('selfLink', 'string'),
    5: f('uid', 'string'),
    6: f('resourceVersion', 'string'),
    7: f('generation', 'int64'),
    8: f('creationTimestamp', 'time'),
    9: f('deletionTimestamp', 'time'),
    10: ptr('deletionGracePeriodSeconds', 'int64'),
    11: f('labels', { map: 'string' }),
    12: f('annotations', { map: 'string' }),
    13: f('ownerReferences', msg('OwnerReference'), { repeated: true }),
    14: strings('finalizers'),
  },
  OwnerReference: {
    1: f('kind', 'string'),
    3: f('name', 'string'),
    4: f('uid', 'string'),
    5: f('apiVersion', 'string'),
    6: ptr('controller', 'bool'),
    7: ptr('blockOwnerDeletion', 'bool'),
  },
  LabelSelector: { 1: f('matchLabels', { map: 'string' }), 2: f('matchExpressions', msg('LabelSelectorRequirement'), { repeated: true }) },
  LabelSelectorRequirement: { 1: f('key', 'string'), 2: f('operator', 'string'), 3: strings('values') },
  ObjectReference: {
    1: f('kind', 'string'),
    2: f('namespace', 'string'),
    3: f('name', 'string'),
    4: f('uid', 'string'),
    5: f('apiVersion', 'string'),
    6: f('resourceVersion', 'string'),
    7: f('fieldPath', 'string'),
  },
  LocalObjectReference: { 1: f('name', 'string') },
  ConfigMap: { 1: f('metadata', msg('ObjectMeta')), 2: f('data', { map: 'string' }), 3: f('binaryData', { map: 'bytes' }), 4: ptr('immutable', 'bool') },
  Secret: {
    1: f('metadata', msg('ObjectMeta')),
    2: f('data', { map: 'bytes' }),
    3: f('type', 'string'),
    4: f('stringData', { map: 'string' }),
    5: ptr('immutable', 'bool'),
  },
  ServiceAccount: {
    1: f('metadata', msg('ObjectMeta')),
    2: f('secrets', msg('ObjectReference'), { repeated: true }),
    3: f('imagePullSecrets', msg('LocalObjectReference'), { repeated: true }),
    4: ptr('automountServiceAccountToken', 'bool'),
  },
  Namespace: kindMessage('NamespaceSpec', 'NamespaceStatus'),
  NamespaceSpec: { 1: strings('finalizers') },
  NamespaceStatus: { 1: f('phase', 'string') },
  Service: kindMessage('ServiceSpec', 'ServiceStatus'),
  ServiceSpec: {
    1: f('ports', msg('ServicePort'), { repeated: true }),
    2: f('selector', { map: 'string' }),
    3: f('clusterIP', 'string'),
    4: f('type', 'string'),
    5: strings('externalIPs'),
    7: f('sessionAffinity', 'string'),
    8: f('loadBalancerIP', 'string'),
    9: strings('loadBalancerSourceRanges'),
    10: f('externalName', 'string'),
    11: f('externalTrafficPolicy', 'string'),
    12: f('healthCheckNodePort', 'int32'),
    13: f('publishNotReadyAddresses', 'bool'),
    17: ptr('ipFamilyPolicy', 'string'),
    18: strings('clusterIPs'),
    19: strings('ipFamilies'),
    20: ptr('allocateLoadBalancerNodePorts', 'bool'),
    21: ptr('loadBalancerClass', 'string'),
    22: ptr('internalTrafficPolicy', 'string'),
  },
  ServicePort: {
    1: f('name', 'string'),
    2: f('protocol', 'string'),
    3: f('port', 'int32'),
    4: f('targetPort', 'intOrString'),
    5: f('nodePort', 'int32'),
    6: ptr('appProtocol', 'string'),
  },
  ServiceStatus: { 1: f('loadBalancer', msg('LoadBalancerStatus')) },
  LoadBalancerStatus: {},
  Deployment: kindMessage('DeploymentSpec', 'DeploymentStatus'),
  DeploymentSpec: {
    1: ptr('replicas', 'int32'),
    2: f('selector', msg('LabelSelector')),
    3: f('template', msg('PodTemplateSpec')),
    4: f('strategy', msg('DeploymentStrategy')),
    5: f('minReadySeconds', 'int32'),
    6: ptr('revisionHistoryLimit', 'int32'),
    7: f('paused', 'bool'),
    9: ptr('progressDeadlineSeconds', 'int32'),
  },
  DeploymentStrategy: { 1: f('type', 'string'), 2: f('rollingUpdate', msg('RollingUpdateDeployment')) },
  RollingUpdateDeployment: { 1: f('maxUnavailable', 'intOrString', { keep: true }), 2: f('maxSurge', 'intOrString', { keep: true }) },
  DeploymentStatus: {
    1: f('observedGeneration', 'int64'),
    2: f('replicas', 'int32'),
    3: f('updatedReplicas', 'int32'),
    4: f('availableReplicas', 'int32'),
    5: f('unavailableReplicas', 'int32'),
    7: f('readyReplicas', 'int32'),
  },
  Job: kindMessage('JobSpec', 'JobStatus'),
  JobSpec: {
    1: ptr('parallelism', 'int32'),
    2: ptr('completions', 'int32'),
    3: ptr('activeDeadlineSeconds', 'int64'),
    4: f('selector', msg('LabelSelector')),
    5: ptr('manualSelector', 'bool'),
    6: f('template', msg('PodTemplateSpec')),
    7: ptr('backoffLimit', 'int32'),
    8: ptr('ttlSecondsAfterFinished', 'int32'),
    9: ptr('completionMode', 'string'),
    10: ptr('suspend', 'bool'),
  },
  JobStatus: { 4: f('active', 'int32'), 5: f('succeeded', 'int32'), 6: f('failed', 'int32') },
  PodTemplateSpec: { 1: f('metadata', msg('ObjectMeta')), 2: f('spec', msg('PodSpec')) },
  PodSpec: {
    2: f('containers', msg('Container'), { repeated: true }),
    3: f('restartPolicy', 'string'),
    4: ptr('terminationGracePeriodSeconds', 'int64'),
    5: ptr('activeDeadlineSeconds', 'int64'),
    6: f('dnsPolicy', 'string'),
    7: f('nodeSelector', { map: 'string' }),
    8: f('serviceAccountName', 'string'),
    9: f('serviceAccount', 'string'),
    10: f('nodeName', 'string'),
    11: f('hostNetwork', 'bool'),
    12: f('hostPID', 'bool'),
    13: f('hostIPC', 'bool'),
    15: f('imagePullSecrets', msg('LocalObjectReference'), { repeated: true }),
    16: f('hostname', 'string'),
    17: f('subdomain', 'string'),
    19: f('schedulerName', 'string'),
    20: f('initContainers', msg('Container'), { repeated: true }),
    21: ptr('automountServiceAccountToken', 'bool'),
    22: f('tolerations', msg('Toleration'), { repeated: true }),
    24: f('priorityClassName', 'string'),
    25: ptr('priority', 'int32'),
    27: ptr('shareProcessNamespace', 'bool'),
    30: ptr('enableServiceLinks', 'bool'),
    31: ptr('preemptionPolicy', 'string'),
    35: ptr('setHostnameAsFQDN', 'bool'),
    37: ptr('hostUsers', 'bool'),
  },
  Container: {
    1: f('name', 'string'),
    2: f('image', 'string'),
    3: strings('command'),
    4: strings('args'),
    5: f('workingDir', 'string'),
    6: f('ports', msg('ContainerPort'), { repeated: true }),
    7: f('env', msg('EnvVar'), { repeated: true }),
    8: f('resources', msg('ResourceRequirements'), { keep: true }),
    9: f('volumeMounts', msg('VolumeMount'), { repeated: true }),
    13: f('terminationMessagePath', 'string'),
    14: f('imagePullPolicy', 'string'),
    16: f('stdin', 'bool'),
    17: f('stdinOnce', 'bool'),
    18: f('tty', 'bool'),
    20: f('terminationMessagePolicy', 'string'),
    24: ptr('restartPolicy', 'string'),
  },
  ContainerPort: { 1: f('name', 'string'), 2: f('hostPort', 'int32'), 3: f('containerPort', 'int32', { keep: true }), 4: f('protocol', 'string'), 5: f('hostIP', 'string') },
  EnvVar: { 1: f('name', 'string'), 2: f('value', 'string') },
  ResourceRequirements: { 1: f('limits', { map: 'quantity' }), 2: f('requests', { map: 'quantity' }) },
  VolumeMount: {
    1: f('name', 'string'),
    2: f('readOnly', 'bool'),
    3: f('mountPath', 'string'),
    4: f('subPath', 'string'),
    5: ptr('mountPropagation', 'string'),
    6: f('subPathExpr', 'string'),
    7: ptr('recursiveReadOnly', 'string'),
  },
  Toleration: { 1: f('key', 'string'), 2: f('operator', 'string'), 3: f('value', 'string'), 4: f('effect', 'string'), 5: ptr('tolerationSeconds', 'int64') },
  Role: { 1: f('metadata', msg('ObjectMeta')), 2: f('rules', msg('PolicyRule'), { repeated: true }) },
  ClusterRole: { 1: f('metadata', msg('ObjectMeta')), 2: f('rules', msg('PolicyRule'), { repeated: true }), 3: f('aggregationRule', msg('AggregationRule')) },
  PolicyRule: { 1: strings('verbs'), 2: strings('apiGroups'), 3: strings('resources'), 4: strings('resourceNames'), 5: strings('nonResourceURLs') },
  AggregationRule: { 1: f('clusterRoleSelectors', msg('LabelSelector'), { repeated: true }) },
  RoleBinding: { 1: f('metadata', msg('ObjectMeta')), 2: f('subjects', msg('Subject'), { repeated: true }), 3: f('roleRef', msg('RoleRef')) },
  Subject: { 1: f('kind', 'string'), 2: f('apiGroup', 'string'), 3: f('name', 'string'), 4: f('namespace', 'string') },
  RoleRef: { 1: f('apiGroup', 'string'), 2: f('kind', 'string'), 3: f('name', 'string') },
  PodDisruptionBudget: kindMessage('PodDisruptionBudgetSpec', 'PodDisruptionBudgetStatus'),
  PodDisruptionBudgetSpec: {
    1: f('minAvailable', 'intOrString', { keep: true }),
    2: f('selector', msg('LabelSelector')),
    3: f('maxUnavailable', 'intOrString', { keep: true }),
    4: ptr('unhealthyPodEvictionPolicy', 'string'),
  },
  PodDisruptionBudgetStatus: {},
  HorizontalPodAutoscalerV1: kindMessage('HorizontalPodAutoscalerSpecV1', 'HorizontalPodAutoscalerStatusV1'),
  HorizontalPodAutoscalerSpecV1: {
    1: f('scaleTargetRef', msg('CrossVersionObjectReference')),
    2: ptr('minReplicas', 'int32'),
    3: f('maxReplicas', 'int32'),
    4: ptr('targetCPUUtilizationPercentage', 'int32'),
  },
  HorizontalPodAutoscalerStatusV1: {},
  CrossVersionObjectReference: { 1: f('kind', 'string'), 2: f('name', 'string'), 3: f('apiVersion', 'string') },
  SubjectAccessReview: kindMessage('SubjectAccessReviewSpec', 'SubjectAccessReviewStatus'),
  LocalSubjectAccessReview: kindMessage('SubjectAccessReviewSpec', 'SubjectAccessReviewStatus'),
  SelfSubjectAccessReview: kindMessage('SelfSubjectAccessReviewSpec', 'SubjectAccessReviewStatus'),
  SubjectAccessReviewSpec: {
    1: f('resourceAttributes', msg('ResourceAttributes')),
    2: f('nonResourceAttributes', msg('NonResourceAttributes')),
    3: f('user', 'string'),
    4: strings('groups'),
    6: f('uid', 'string'),
  },
  SelfSubjectAccessReviewSpec: { 1: f('resourceAttributes', msg('ResourceAttributes')), 2: f('nonResourceAttributes', msg('NonResourceAttributes')) },
  ResourceAttributes: {
    1: f('namespace', 'string'),
    2: f('verb', 'string'),
    3: f('group', 'string'),
    4: f('version', 'string'),
    5: f('resource', 'string'),
    6: f('subresource', 'string'),
    7: f('name', 'string'),
    8: f('fieldSelector', msg('FieldSelectorAttributes')),
    9: f('labelSelector', msg('LabelSelectorAttributes')),
  },
  FieldSelectorAttributes: { 1: f('rawSelector', 'string'), 2: f('requirements', msg('FieldSelectorRequirement'), { repeated: true }) },
  FieldSelectorRequirement: { 1: f('key', 'string'), 2: f('operator', 'string'), 3: strings('values') },
  LabelSelectorAttributes: { 1: f('rawSelector', 'string'), 2: f('requirements', msg('LabelSelectorRequirement'), { repeated: true }) },
  NonResourceAttributes: { 1: f('path', 'string'), 2: f('verb', 'string') },
  SubjectAccessReviewStatus: { 1: f('allowed', 'bool', { keep: true }), 2: f('reason', 'string'), 3: f('evaluationError', 'string'), 4: f('denied', 'bool') },
  SelfSubjectRulesReview: kindMessage('SelfSubjectRulesReviewSpec', 'SubjectRulesReviewStatus'),
  SelfSubjectRulesReviewSpec: { 1: f('namespace', 'string') },
  SubjectRulesReviewStatus: { 3: f('incomplete', 'bool'), 4: f('evaluationError', 'string') },
  DeleteOptions: {
    1: ptr('gracePeriodSeconds', 'int64'),
    2: f('preconditions', msg('Preconditions')),
    3: ptr('orphanDependents', 'bool'),
    4: ptr('propagationPolicy', 'string'),
    5: strings('dryRun'),
    6: ptr('ignoreStoreReadErrorWithClusterBreakingPotential', 'bool'),
  },
  Preconditions: { 1: ptr('uid', 'string'), 2: ptr('resourceVersion', 'string') },
};

/** The message of each kind whose protobuf bodies can be decoded, by apiVersion and kind. */
const kindMessages: Readonly<Record<string, string>> = {
  'v1/ConfigMap': 'ConfigMap',
  'v1/Secret': 'Secret',
  'v1/ServiceAccount': 'ServiceAccount',
  'v1/Namespace': 'Namespace',
  'v1/Service': 'Service',
  'apps/v1/Deployment': 'Deployment',
  'batch/v1/Job': 'Job',
  'rbac.authorization.k8s.io/v1/Role': 'Role',
  'rbac.authorization.k8s.io/v1/ClusterRole': 'ClusterRole',
  'rbac.authorization.k8s.io/v1/RoleBinding': 'RoleBinding',
  'rbac.authorization.k8s.io/v1/ClusterRoleBinding': 'RoleBinding',
  'policy/v1/PodDisruptionBudget': 'PodDisruptionBudget',
  'autoscaling/v1/HorizontalPodAutoscaler': 'HorizontalPodAutoscalerV1',
  'authorization.k8s.io/v1/SubjectAccessReview': 'SubjectAccessReview',
  'authorization.k8s.io/v1/LocalSubjectAccessReview': 'LocalSubjectAccessReview',
  'authorization.k8s.io/v1/SelfSubjectAccessReview': 'SelfSubjectAccessReview',
  'authorization.k8s.io/v1/SelfSubjectRulesReview': 'SelfSubjectRulesReview',
};

class Reader {
  readonly #buf: Uint8Array;
  #pos: number;
  readonly #end: number;

  constructor(buf: Uint8Array, start = 0, end = buf.length) {
    this.#buf = buf;
    this.#pos = start;
    this.#end = end;
  }

  get done(): boolean {
    return this.#pos >= this.#end;
  }

  varint(): bigint {
    let result = 0n;
    let shift = 0n;
    for (;;) {
      if (this.#pos >= this.#end) throw new Error('truncated varint');
      const byte = this.#buf[this.#pos++] as number;
      result |= BigInt(byte & 0x7f) << shift;
      if (!(byte & 0x80)) return result;
      shift += 7n;
    }
  }

  bytes(): Uint8Array {
    const length = Number(this.varint());
    if (this.#pos + length > this.#end) throw new Error('truncated field');
    const out = this.#buf.subarray(this.#pos, this.#pos + length);
    this.#pos += length;
    return out;
  }

  skip(wireType: number): boolean {
    switch (wireType) {
      case 0:
        return this.varint() !== 0n;
      case 1:
        this.#pos += 8;
        return true;
      case 2:
        return this.bytes().length > 0;
      case 5:
        this.#pos += 4;
        return true;
      default:
        throw new Error(`unsupported wire type ${wireType}`);
    }
  }
}

const toInt = (v: bigint, bits: 32 | 64): number => Number(BigInt.asIntN(bits, v));
const utf8 = new TextDecoder();

function decodeScalar(type: Scalar, reader: Reader, wireType: number): unknown {
  switch (type) {
    case 'string':
      return utf8.decode(reader.bytes());
    case 'bytes':
      return Buffer.from(reader.bytes()).toString('base64');
    case 'bool':
      return reader.varint() !== 0n;
    case 'int32':
    case 'int64':
      if (wireType !== 0) throw new Error('integer field not varint-encoded');
      return toInt(reader.varint(), type === 'int32' ? 32 : 64);
  }
}

function decodeValue(type: FieldType, reader: Reader, wireType: number, path: string): unknown {
  if (typeof type === 'string') {
    switch (type) {
      case 'time': {
        const time = decodeMessageFields({ 1: f('seconds', 'int64'), 2: f('nanos', 'int32') }, reader.bytes(), path) as { seconds?: number };
        return time.seconds ? new Date(time.seconds * 1000).toISOString().replace('.000Z', 'Z') : undefined;
      }
      case 'intOrString': {
        const v = decodeMessageFields({ 1: ptr('type', 'int32'), 2: ptr('intVal', 'int32'), 3: ptr('strVal', 'string') }, reader.bytes(), path) as {
          type?: number;
          intVal?: number;
          strVal?: string;
        };
        return v.type === 1 ? (v.strVal ?? '') : (v.intVal ?? 0);
      }
      case 'quantity':
        return (decodeMessageFields({ 1: f('string', 'string') }, reader.bytes(), path) as { string?: string }).string ?? '0';
      default:
        return decodeScalar(type, reader, wireType);
    }
  }
  if ('message' in type) return decodeMessage(type.message, reader.bytes(), path);
  const entry = decodeMessageFields({ 1: ptr('key', 'string'), 2: ptr('value', type.map === 'quantity' ? 'quantity' : type.map) }, reader.bytes(), path) as {
    key?: string;
    value?: unknown;
  };
  return [entry.key ?? '', entry.value ?? (type.map === 'string' ? '' : type.map === 'bytes' ? '' : undefined)];
}

const isZero = (value: unknown): boolean => value === '' || value === 0 || value === false || value === undefined;

function decodeMessageFields(schema: MessageSchema, buf: Uint8Array, path: string): JsonObject {
  const out: JsonObject = {};
  const reader = new Reader(buf);
  while (!reader.done) {
    const tag = reader.varint();
    const number = Number(tag >> 3n);
    const wireType = Number(tag & 7n);
    const field = schema[number];
    const where = path ? `${path}.` : '';
    if (!field) {
      if (reader.skip(wireType)) throw new Error(`field ${where}#${number} is not supported`);
      continue;
    }
    const value = decodeValue(field.type, reader, wireType, `${where}${field.name}`);
    if (typeof field.type === 'object' && 'map' in field.type) {
      const [key, entry] = value as [string, unknown];
      const map = (out[field.name] ??= {}) as JsonObject;
      map[key] = entry;
    } else if (field.repeated) {
      ((out[field.name] ??= []) as unknown[]).push(value);
    } else if (value !== undefined && (field.keep || !isZero(value))) {
      out[field.name] = value;
    }
  }
  return out;
}

function decodeMessage(name: string, buf: Uint8Array, path: string): JsonObject {
  const schema = messages[name];
  if (!schema) throw new Error(`message ${name} is not supported`);
  return decodeMessageFields(schema, buf, path);
}

const magic = [0x6b, 0x38, 0x73, 0x00];

function unsupported(kind: string, why: string): StatusError {
  return new StatusError(
    failure(
      415,
      'UnsupportedMediaType',
      `the body of the request was in an unknown format - accepted media types include: application/json, application/yaml (protobuf ${kind}: ${why})`,
      {},
    ),
  );
}

/** Decodes a protobuf-encoded object into its JSON form; 415 for what the table cannot decode. */
export function decodeProtobufObject(body: Uint8Array, expectedKind: string): KubeObject {
  if (magic.some((b, i) => body[i] !== b)) throw unsupported(expectedKind, 'missing the k8s protobuf envelope');
  try {
    const unknown = decodeMessage('Unknown', body.subarray(4), '') as { typeMeta?: { apiVersion?: string; kind?: string }; raw?: string };
    const kind = unknown.typeMeta?.kind ?? expectedKind;
    // DeleteOptions are registered in every group version: a typed client sends its own.
    const message = kind === 'DeleteOptions' ? kind : kindMessages[`${unknown.typeMeta?.apiVersion ?? ''}/${kind}`];
    if (!message) throw new Error(`kind ${kind} is not supported`);
    const object = decodeMessage(message, Buffer.from(unknown.raw ?? '', 'base64'), '') as KubeObject;
    return { apiVersion: unknown.typeMeta?.apiVersion, kind, ...object, metadata: object.metadata ?? {} };
  } catch (err) {
    if (err instanceof StatusError) throw err;
    throw unsupported(expectedKind, (err as Error).message);
  }
}
