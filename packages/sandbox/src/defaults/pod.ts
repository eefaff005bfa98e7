// Pod defaults: the versioned defaulters of a PodSpec (also applied to every pod template), the
// pod-only ones, and what the built-in admission plugins add to a pod (ServiceAccount token volume,
// Priority, DefaultTolerationSeconds), all before mutating webhooks; and the initial status the
// strategy's PrepareForCreate sets after them.

import { isJsonObject, type JsonObject } from '../meta/object.ts';
import { formatQuantity, parseQuantity, roundUpToMilli } from '../validation/quantity.ts';
import { child, childList, defaultField, defaultString, isUnset } from './fields.ts';
import { computePodQOS } from './qos.ts';

const SERVICE_ACCOUNT_MOUNT_PATH = '/var/run/secrets/kubernetes.io/serviceaccount';
const SERVICE_ACCOUNT_VOLUME_PREFIX = 'kube-api-access-';
/** 0644, the default mode of secret, configMap, downwardAPI and projected volumes. */
const DEFAULT_VOLUME_MODE = 420;
const DEFAULT_TOLERATION_SECONDS = 300;

const systemPriorityClasses: Record<string, number> = {
  'system-node-critical': 2000001000,
  'system-cluster-critical': 2000000000,
};

/** The image tag as the kubelet's parser reads it: `latest` when neither a tag nor a digest is given. */
function imageTag(image: string): string {
  const at = image.indexOf('@');
  const named = at >= 0 ? image.slice(0, at) : image;
  const lastSlash = named.lastIndexOf('/');
  const colon = named.indexOf(':', lastSlash + 1);
  const name = colon >= 0 ? named.slice(0, colon) : named;
  // An image reference the parser rejects (empty, upper case, spaces) has no tag.
  if (name === '' || /[A-Z\s]/.test(name)) return '';
  if (colon >= 0) return named.slice(colon + 1);
  return at >= 0 ? '' : 'latest';
}

/** SetDefaults_ResourceList: quantities rounded up to milli precision, stored in canonical form. */
export function canonicalizeResourceList(list: unknown): void {
  if (!isJsonObject(list)) return;
  for (const [name, raw] of Object.entries(list)) {
    const q = parseQuantity(raw);
    if (q) list[name] = formatQuantity(roundUpToMilli(q));
  }
}

function defaultHTTPGet(handler: JsonObject): void {
  if (!isJsonObject(handler.httpGet)) return;
  defaultString(handler.httpGet, 'path', '/');
  defaultString(handler.httpGet, 'scheme', 'HTTP');
}

function defaultProbe(probe: unknown): void {
  if (!isJsonObject(probe)) return;
  for (const [field, value] of [
    ['timeoutSeconds', 1],
    ['periodSeconds', 10],
    ['successThreshold', 1],
    ['failureThreshold', 3],
  ] as const)
    if (isUnset(probe[field]) || probe[field] === 0) probe[field] = value;
  defaultHTTPGet(probe);
}

function defaultFieldRef(holder: JsonObject): void {
  if (isJsonObject(holder.fieldRef)) defaultString(holder.fieldRef, 'apiVersion', 'v1');
}

function defaultContainer(c: JsonObject): void {
  if (isUnset(c.imagePullPolicy) || c.imagePullPolicy === '')
    c.imagePullPolicy = imageTag(typeof c.image === 'string' ? c.image : '') === 'latest' ? 'Always' : 'IfNotPresent';
  defaultString(c, 'terminationMessagePath', '/dev/termination-log');
  defaultString(c, 'terminationMessagePolicy', 'File');
  const resources = child(c, 'resources');
  canonicalizeResourceList(resources.limits);
  canonicalizeResourceList(resources.requests);
  for (const port of childList(c, 'ports')) defaultString(port, 'protocol', 'TCP');
  for (const env of childList(c, 'env')) if (isJsonObject(env.valueFrom)) defaultFieldRef(env.valueFrom);
  for (const probe of ['livenessProbe', 'readinessProbe', 'startupProbe']) defaultProbe(c[probe]);
  if (isJsonObject(c.lifecycle)) for (const hook of ['postStart', 'preStop']) if (isJsonObject(c.lifecycle[hook])) defaultHTTPGet(c.lifecycle[hook]);
}

const volumeSourceKeys = [
  'hostPath',
  'emptyDir',
  'gcePersistentDisk',
  'awsElasticBlockStore',
  'gitRepo',
  'secret',
  'nfs',
  'iscsi',
  'glusterfs',
  'persistentVolumeClaim',
  'rbd',
  'flexVolume',
  'cinder',
  'cephfs',
  'flocker',
  'downwardAPI',
  'fc',
  'azureFile',
  'configMap',
  'vsphereVolume',
  'quobyte',
  'azureDisk',
  'photonPersistentDisk',
  'projected',
  'portworxVolume',
  'scaleIO',
  'storageos',
  'csi',
  'ephemeral',
  'image',
];

function defaultVolume(v: JsonObject): void {
  if (volumeSourceKeys.every((k) => isUnset(v[k]))) v.emptyDir = {};
  for (const key of ['secret', 'configMap', 'downwardAPI', 'projected']) if (isJsonObject(v[key])) defaultField(v[key], 'defaultMode', DEFAULT_VOLUME_MODE);
  if (isJsonObject(v.hostPath)) defaultField(v.hostPath, 'type', '');
  if (isJsonObject(v.downwardAPI)) for (const item of childList(v.downwardAPI, 'items')) defaultFieldRef(item);
  if (isJsonObject(v.projected)) {
    for (const source of childList(v.projected, 'sources')) {
      if (isJsonObject(source.serviceAccountToken)) defaultField(source.serviceAccountToken, 'expirationSeconds', 3600);
      if (isJsonObject(source.downwardAPI)) for (const item of childList(source.downwardAPI, 'items')) defaultFieldRef(item);
    }
  }
}

/** SetDefaults_PodSpec with everything nested in it; used for pods and for every pod template. */
function defaultPodSpec(spec: JsonObject): void {
  defaultString(spec, 'dnsPolicy', 'ClusterFirst');
  defaultString(spec, 'restartPolicy', 'Always');
  defaultField(spec, 'securityContext', {});
  defaultField(spec, 'terminationGracePeriodSeconds', 30);
  defaultString(spec, 'schedulerName', 'default-scheduler');
  for (const key of ['containers', 'initContainers', 'ephemeralContainers']) for (const c of childList(spec, key)) defaultContainer(c);
  for (const v of childList(spec, 'volumes')) defaultVolume(v);
  if (isJsonObject(spec.overhead)) canonicalizeResourceList(spec.overhead);
  mirrorServiceAccount(spec);
}

/** v1 keeps the deprecated `serviceAccount` as an alias: read when the new field is empty, always written back. */
function mirrorServiceAccount(spec: JsonObject): void {
  if ((isUnset(spec.serviceAccountName) || spec.serviceAccountName === '') && typeof spec.serviceAccount === 'string' && spec.serviceAccount !== '')
    spec.serviceAccountName = spec.serviceAccount;
  if (typeof spec.serviceAccountName === 'string' && spec.serviceAccountName !== '') spec.serviceAccount = spec.serviceAccountName;
  else delete spec.serviceAccount;
}

/** A template's metadata always carries the zero creationTimestamp, serialized as null. */
export function defaultPodTemplate(template: JsonObject): void {
  defaultField(child(template, 'metadata'), 'creationTimestamp', null);
  defaultPodSpec(child(template, 'spec'));
}

/** SetDefaults_Pod: what only a Pod (not a template) gets. */
function defaultPodOnly(spec: JsonObject): void {
  for (const key of ['containers', 'initContainers']) {
    for (const c of childList(spec, key)) {
      const resources = child(c, 'resources');
      if (!isJsonObject(resources.limits)) continue;
      const requests = child(resources, 'requests');
      for (const [name, value] of Object.entries(resources.limits)) if (!(name in requests)) requests[name] = value;
    }
  }
  defaultField(spec, 'enableServiceLinks', true);
  if (spec.hostNetwork === true)
    for (const key of ['containers', 'initContainers'])
      for (const c of childList(spec, key)) for (const port of childList(c, 'ports')) if (isUnset(port.hostPort) || port.hostPort === 0) port.hostPort = port.containerPort;
}

function serviceAccountTokenVolume(name: string): JsonObject {
  return {
    name,
    projected: {
      sources: [
        { serviceAccountToken: { expirationSeconds: 3607, path: 'token' } },
        { configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
        { downwardAPI: { items: [{ path: 'namespace', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } }] } },
      ],
      defaultMode: DEFAULT_VOLUME_MODE,
    },
  };
}

/**
 * The ServiceAccount admission plugin on create: the `default` account, and unless automounting is
 * off, the projected token volume mounted into every container that has nothing at the token path.
 */
function admitServiceAccount(pod: JsonObject, spec: JsonObject, randomSuffix: () => string): void {
  const meta = isJsonObject(pod.metadata) ? pod.metadata : {};
  if (isJsonObject(meta.annotations) && 'kubernetes.io/config.mirror' in meta.annotations) return;
  defaultString(spec, 'serviceAccountName', 'default');
  spec.serviceAccount = spec.serviceAccountName;
  if (spec.automountServiceAccountToken === false) return;
  const volumes = childList(spec, 'volumes');
  const existing = volumes.find((v) => typeof v.name === 'string' && v.name.startsWith(SERVICE_ACCOUNT_VOLUME_PREFIX));
  const volumeName = typeof existing?.name === 'string' ? existing.name : `${SERVICE_ACCOUNT_VOLUME_PREFIX}${randomSuffix()}`;
  let needsVolume = false;
  for (const key of ['initContainers', 'containers']) {
    for (const c of childList(spec, key)) {
      const mounts = childList(c, 'volumeMounts');
      if (mounts.some((m) => m.mountPath === SERVICE_ACCOUNT_MOUNT_PATH)) continue;
      if (!Array.isArray(c.volumeMounts)) c.volumeMounts = [];
      (c.volumeMounts as unknown[]).push({ name: volumeName, readOnly: true, mountPath: SERVICE_ACCOUNT_MOUNT_PATH });
      needsVolume = true;
    }
  }
  if (needsVolume && !existing) {
    if (!Array.isArray(spec.volumes)) spec.volumes = [];
    (spec.volumes as unknown[]).push(serviceAccountTokenVolume(volumeName));
  }
}

/** The Priority plugin without PriorityClass objects: the two system classes or the default 0. */
function admitPriority(spec: JsonObject): void {
  const className = typeof spec.priorityClassName === 'string' ? spec.priorityClassName : '';
  const priority = className === '' ? 0 : systemPriorityClasses[className];
  if (priority === undefined) return;
  defaultField(spec, 'priority', priority);
  defaultField(spec, 'preemptionPolicy', 'PreemptLowerPriority');
}

/** DefaultTolerationSeconds: tolerate not-ready and unreachable nodes for 300 s unless already tolerated. */
function admitDefaultTolerations(spec: JsonObject): void {
  const tolerations = childList(spec, 'tolerations');
  const tolerates = (key: string): boolean =>
    tolerations.some((t) => (t.key === key || isUnset(t.key) || t.key === '') && (t.effect === 'NoExecute' || isUnset(t.effect) || t.effect === ''));
  const added = ['node.kubernetes.io/not-ready', 'node.kubernetes.io/unreachable']
    .filter((key) => !tolerates(key))
    .map((key) => ({ key, operator: 'Exists', effect: 'NoExecute', tolerationSeconds: DEFAULT_TOLERATION_SECONDS }));
  if (added.length === 0) return;
  if (!Array.isArray(spec.tolerations)) spec.tolerations = [];
  (spec.tolerations as unknown[]).push(...added);
}

/**
 * The pod strategy's PrepareForCreate, after mutating admission: a new pod is Pending with the QoS
 * class of its (possibly mutated) spec; scheduling gates show as a condition. Whatever status the
 * client sent is replaced.
 */
export function initialPodStatus(pod: JsonObject): JsonObject {
  const spec = isJsonObject(pod.spec) ? pod.spec : {};
  const status: JsonObject = { phase: 'Pending', qosClass: computePodQOS(spec) };
  if (childList(spec, 'schedulingGates').length > 0)
    status.conditions = [
      {
        type: 'PodScheduled',
        status: 'False',
        lastProbeTime: null,
        lastTransitionTime: null,
        reason: 'SchedulingGated',
        message: 'Scheduling is blocked due to non-empty scheduling gates',
      },
    ];
  return status;
}

export interface PodDefaultsContext {
  operation: 'create' | 'update';
  random: () => string;
}

/**
 * What a pod has before mutating webhooks see it: the decoder's defaults and, on create, the built-in
 * admission plugins that run before them (on update, the defaulters and DefaultTolerationSeconds).
 * Go's PodStatus is a struct, so a decoded pod always has a status: the client's, or `{}`.
 */
export function defaultPod(pod: JsonObject, ctx: PodDefaultsContext): void {
  const spec = child(pod, 'spec');
  defaultPodOnly(spec);
  defaultPodSpec(spec);
  if (ctx.operation === 'create') {
    admitServiceAccount(pod, spec, ctx.random);
    admitPriority(spec);
  }
  admitDefaultTolerations(spec);
  if (ctx.operation === 'create') defaultField(pod, 'status', {});
}
