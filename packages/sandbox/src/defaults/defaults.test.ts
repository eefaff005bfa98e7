import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { JsonObject } from '../meta/object.ts';
import { applyDefaults, computePodQOS, initialPodStatus, restoreSystemMetadata, type DefaultsContext, type GroupVersionKind } from './index.ts';
import { defaultStatefulSet } from './workloads.ts';

const gvk = (group: string, kind: string): GroupVersionKind => ({ group, version: 'v1', kind });
const POD = gvk('', 'Pod');
const create: DefaultsContext = { operation: 'create', random: () => 'wxkrx', allocateClusterIP: () => '10.96.0.10', allocateNodePort: () => 30080 };

function defaulted(kind: GroupVersionKind, obj: JsonObject, ctx: DefaultsContext = create): JsonObject {
  applyDefaults(kind, obj, ctx);
  return obj;
}

const minimalPod = (image: string, extra: JsonObject = {}): JsonObject => ({
  metadata: { name: 'p', namespace: 'probe', uid: 'u' },
  spec: { containers: [{ name: 'c', image, ...extra }] },
});

describe('N.4 pod defaults after a minimal create', () => {
  const pod = defaulted(POD, minimalPod('nginx'));
  const spec = pod.spec as JsonObject;
  const container = (spec.containers as JsonObject[])[0] as JsonObject;

  test('spec', () => {
    assert.equal(spec.restartPolicy, 'Always');
    assert.equal(spec.terminationGracePeriodSeconds, 30);
    assert.equal(spec.dnsPolicy, 'ClusterFirst');
    assert.equal(spec.serviceAccountName, 'default');
    assert.equal(spec.serviceAccount, 'default');
    assert.deepEqual(spec.securityContext, {});
    assert.equal(spec.schedulerName, 'default-scheduler');
    assert.equal(spec.priority, 0);
    assert.equal(spec.enableServiceLinks, true);
    assert.equal(spec.preemptionPolicy, 'PreemptLowerPriority');
    assert.deepEqual(spec.tolerations, [
      { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
      { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
    ]);
  });

  test('container', () => {
    assert.equal(container.terminationMessagePath, '/dev/termination-log');
    assert.equal(container.terminationMessagePolicy, 'File');
    assert.deepEqual(container.resources, {});
    assert.equal(container.imagePullPolicy, 'Always');
    assert.deepEqual(container.volumeMounts, [{ name: 'kube-api-access-wxkrx', readOnly: true, mountPath: '/var/run/secrets/kubernetes.io/serviceaccount' }]);
  });

  test('N.6 the service account token volume', () => {
    assert.deepEqual(spec.volumes, [
      {
        name: 'kube-api-access-wxkrx',
        projected: {
          sources: [
            { serviceAccountToken: { expirationSeconds: 3607, path: 'token' } },
            { configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
            { downwardAPI: { items: [{ path: 'namespace', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } }] } },
          ],
          defaultMode: 420,
        },
      },
    ]);
  });

  test('status and metadata: the decoded empty status until PrepareForCreate fills it', () => {
    assert.deepEqual(pod.status, {});
    assert.deepEqual(initialPodStatus(pod), { phase: 'Pending', qosClass: 'BestEffort' });
    assert.equal((pod.metadata as JsonObject).generation, undefined);
  });

  test('imagePullPolicy follows the tag', () => {
    const policy = (image: string): unknown => ((defaulted(POD, minimalPod(image)).spec as JsonObject).containers as JsonObject[])[0]?.imagePullPolicy;
    assert.equal(policy('nginx:1.27'), 'IfNotPresent');
    assert.equal(policy('nginx:latest'), 'Always');
    assert.equal(policy('localhost:5000/nginx'), 'Always');
    assert.equal(policy('nginx@sha256:abcd'), 'IfNotPresent');
    assert.equal(policy('', ), 'IfNotPresent');
  });

  test('limits only: requests copied, Guaranteed', () => {
    const guaranteed = defaulted(POD, minimalPod('nginx', { resources: { limits: { cpu: '100m', memory: '10Mi' } } }));
    const c = ((guaranteed.spec as JsonObject).containers as JsonObject[])[0] as JsonObject;
    assert.deepEqual(c.resources, { limits: { cpu: '100m', memory: '10Mi' }, requests: { cpu: '100m', memory: '10Mi' } });
    assert.deepEqual(initialPodStatus(guaranteed), { phase: 'Pending', qosClass: 'Guaranteed' });
  });

  test('quantities are stored canonical; requests without limits are Burstable', () => {
    const burstable = defaulted(POD, minimalPod('nginx', { resources: { requests: { cpu: '0.5', memory: '1024Mi' } } }));
    const c = ((burstable.spec as JsonObject).containers as JsonObject[])[0] as JsonObject;
    assert.deepEqual(c.resources, { requests: { cpu: '500m', memory: '1Gi' } });
    assert.equal(initialPodStatus(burstable).qosClass, 'Burstable');
  });
});

describe('pod admission details', () => {
  test('automountServiceAccountToken: false mounts nothing; an existing mount at the path is kept', () => {
    const noMount = defaulted(POD, { metadata: { name: 'p' }, spec: { automountServiceAccountToken: false, containers: [{ name: 'c', image: 'x' }] } });
    assert.equal((noMount.spec as JsonObject).volumes, undefined);
    const own = defaulted(POD, {
      metadata: { name: 'p' },
      spec: {
        volumes: [{ name: 'mine', emptyDir: {} }],
        containers: [{ name: 'c', image: 'x', volumeMounts: [{ name: 'mine', mountPath: '/var/run/secrets/kubernetes.io/serviceaccount' }] }],
      },
    });
    assert.deepEqual(((own.spec as JsonObject).volumes as JsonObject[]).map((v) => v.name), ['mine']);
  });

  test('init containers are mounted too, before the containers', () => {
    const pod = defaulted(POD, { metadata: { name: 'p' }, spec: { initContainers: [{ name: 'i', image: 'x' }], containers: [{ name: 'c', image: 'x' }] } });
    const spec = pod.spec as JsonObject;
    assert.equal(((spec.initContainers as JsonObject[])[0]?.volumeMounts as JsonObject[])[0]?.name, 'kube-api-access-wxkrx');
    assert.equal((spec.volumes as JsonObject[]).length, 1);
  });

  test('scheduling gates show as a PodScheduled=False condition', () => {
    const pod = defaulted(POD, { metadata: { name: 'p' }, spec: { schedulingGates: [{ name: 'example.com/gate' }], containers: [{ name: 'c', image: 'x' }] } });
    assert.deepEqual(initialPodStatus(pod).conditions, [
      { type: 'PodScheduled', status: 'False', lastProbeTime: null, lastTransitionTime: null, reason: 'SchedulingGated', message: 'Scheduling is blocked due to non-empty scheduling gates' },
    ]);
  });

  test('on update only the default tolerations come back; the status is left to the server', () => {
    const pod = defaulted(POD, { metadata: { name: 'p' }, spec: { tolerations: [{ key: 'a', operator: 'Exists', effect: 'NoSchedule' }], containers: [{ name: 'c', image: 'x' }] } }, { operation: 'update', random: () => 'zzzzz' });
    const spec = pod.spec as JsonObject;
    assert.deepEqual((spec.tolerations as JsonObject[]).map((t) => t.key), ['a', 'node.kubernetes.io/not-ready', 'node.kubernetes.io/unreachable']);
    assert.equal(spec.volumes, undefined);
    assert.equal(pod.status, undefined);
  });

  test('a toleration of everything needs no defaults', () => {
    const pod = defaulted(POD, { metadata: { name: 'p' }, spec: { tolerations: [{ operator: 'Exists' }], containers: [{ name: 'c', image: 'x' }] } });
    assert.deepEqual((pod.spec as JsonObject).tolerations, [{ operator: 'Exists' }]);
  });

  test('probe, port and volume defaults', () => {
    const pod = defaulted(POD, {
      metadata: { name: 'p' },
      spec: {
        volumes: [{ name: 'v' }, { name: 's', secret: { secretName: 's' } }],
        containers: [{ name: 'c', image: 'x', ports: [{ containerPort: 80 }], readinessProbe: { httpGet: { port: 80 } } }],
      },
    });
    const spec = pod.spec as JsonObject;
    const c = (spec.containers as JsonObject[])[0] as JsonObject;
    assert.deepEqual(c.ports, [{ containerPort: 80, protocol: 'TCP' }]);
    assert.deepEqual(c.readinessProbe, { httpGet: { port: 80, path: '/', scheme: 'HTTP' }, timeoutSeconds: 1, periodSeconds: 10, successThreshold: 1, failureThreshold: 3 });
    assert.deepEqual((spec.volumes as JsonObject[]).slice(0, 2), [
      { name: 'v', emptyDir: {} },
      { name: 's', secret: { secretName: 's', defaultMode: 420 } },
    ]);
  });

  test('QoS ignores resources other than cpu and memory', () => {
    assert.equal(computePodQOS({ containers: [{ resources: { limits: { 'ephemeral-storage': '1Gi' } } }] }), 'BestEffort');
    assert.equal(computePodQOS({ containers: [{ resources: { limits: { cpu: '1' } } }] }), 'Burstable');
  });
});

describe('workload defaults', () => {
  const template = { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx:1' }] } };

  test('Deployment (L.1)', () => {
    const spec = defaulted(gvk('apps', 'Deployment'), { metadata: { name: 'web' }, spec: { selector: { matchLabels: { app: 'web' } }, template: structuredClone(template) } }).spec as JsonObject;
    assert.equal(spec.replicas, 1);
    assert.deepEqual(spec.strategy, { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '25%', maxSurge: '25%' } });
    assert.equal(spec.revisionHistoryLimit, 10);
    assert.equal(spec.progressDeadlineSeconds, 600);
    const tpl = spec.template as JsonObject;
    assert.deepEqual(tpl.metadata, { labels: { app: 'web' }, creationTimestamp: null });
    const podSpec = tpl.spec as JsonObject;
    assert.equal(podSpec.restartPolicy, 'Always');
    assert.equal(podSpec.enableServiceLinks, undefined, 'templates do not get the pod-only defaults');
    assert.equal(podSpec.tolerations, undefined);
  });

  test('StatefulSet (L.2)', () => {
    const spec = defaulted(gvk('apps', 'StatefulSet'), {
      metadata: { name: 'db' },
      spec: { selector: { matchLabels: { app: 'web' } }, serviceName: 'db', template: structuredClone(template), volumeClaimTemplates: [{ metadata: { name: 'data' }, spec: { resources: { requests: { storage: '1Gi' } } } }] },
    }).spec as JsonObject;
    assert.deepEqual(spec.updateStrategy, { type: 'RollingUpdate', rollingUpdate: { partition: 0 } });
    assert.equal(spec.revisionHistoryLimit, 10);
    assert.deepEqual(spec.persistentVolumeClaimRetentionPolicy, { whenDeleted: 'Retain', whenScaled: 'Retain' });
    assert.equal(spec.podManagementPolicy, 'OrderedReady');
    assert.equal(spec.replicas, 1);
    assert.deepEqual((spec.volumeClaimTemplates as JsonObject[])[0], {
      metadata: { name: 'data', creationTimestamp: null },
      spec: { resources: { requests: { storage: '1Gi' } }, volumeMode: 'Filesystem' },
      status: { phase: 'Pending' },
    });
  });

  test('StatefulSet maxUnavailable: dropped with the gate off (unless stored), kept and defaulted to 1 with it on', () => {
    const withRollingUpdate = (rollingUpdate: JsonObject): JsonObject => ({ spec: { updateStrategy: { type: 'RollingUpdate', rollingUpdate } } });
    const strategy = (obj: JsonObject): unknown => (obj.spec as JsonObject).updateStrategy;
    const off = withRollingUpdate({ maxUnavailable: '50%' });
    defaultStatefulSet(off, undefined);
    assert.deepEqual(strategy(off), { type: 'RollingUpdate', rollingUpdate: { partition: 0 } });
    const stored = withRollingUpdate({ maxUnavailable: 2 });
    defaultStatefulSet(stored, withRollingUpdate({ maxUnavailable: 3 }));
    assert.deepEqual(strategy(stored), { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 2, partition: 0 } });
    const on = withRollingUpdate({ maxUnavailable: '50%' });
    defaultStatefulSet(on, undefined, { MaxUnavailableStatefulSet: true });
    assert.deepEqual(strategy(on), { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '50%', partition: 0 } });
    const unset: JsonObject = { spec: {} };
    defaultStatefulSet(unset, undefined, { MaxUnavailableStatefulSet: true });
    assert.deepEqual(strategy(unset), { type: 'RollingUpdate', rollingUpdate: { partition: 0, maxUnavailable: 1 } });
    const onDelete: JsonObject = { spec: { updateStrategy: { type: 'OnDelete' } } };
    defaultStatefulSet(onDelete, undefined, { MaxUnavailableStatefulSet: true });
    assert.deepEqual(strategy(onDelete), { type: 'OnDelete' });
  });

  test('DaemonSet: rolling update 1/0 and the template generation annotation', () => {
    const ds = defaulted(gvk('apps', 'DaemonSet'), { metadata: { name: 'ds' }, spec: { selector: { matchLabels: { app: 'web' } }, template: structuredClone(template) } });
    const spec = ds.spec as JsonObject;
    assert.deepEqual(spec.updateStrategy, { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1, maxSurge: 0 } });
    assert.equal(spec.revisionHistoryLimit, 10);
    assert.deepEqual((ds.metadata as JsonObject).annotations, { 'deprecated.daemonset.template.generation': '1' });
    const same = structuredClone(ds);
    applyDefaults(gvk('apps', 'DaemonSet'), same, { operation: 'update', random: () => '', old: ds });
    assert.equal(((same.metadata as JsonObject).annotations as JsonObject)['deprecated.daemonset.template.generation'], '1');
    const changed = structuredClone(ds);
    ((((changed.spec as JsonObject).template as JsonObject).spec as JsonObject).containers as JsonObject[])[0]!.image = 'nginx:2';
    applyDefaults(gvk('apps', 'DaemonSet'), changed, { operation: 'update', random: () => '', old: ds });
    assert.equal(((changed.metadata as JsonObject).annotations as JsonObject)['deprecated.daemonset.template.generation'], '2');
  });

  test('Job: counters, modes and the generated selector and labels', () => {
    const job = defaulted(gvk('batch', 'Job'), {
      metadata: { name: 'pi', namespace: 'probe', uid: 'job-uid' },
      spec: { template: { metadata: { labels: { app: 'pi' } }, spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'perl' }] } } },
    });
    const spec = job.spec as JsonObject;
    assert.equal(spec.completions, 1);
    assert.equal(spec.parallelism, 1);
    assert.equal(spec.backoffLimit, 6);
    assert.equal(spec.completionMode, 'NonIndexed');
    assert.equal(spec.suspend, false);
    assert.equal(spec.podReplacementPolicy, 'TerminatingOrFailed');
    assert.equal(spec.manualSelector, false);
    assert.deepEqual(spec.selector, { matchLabels: { 'batch.kubernetes.io/controller-uid': 'job-uid' } });
    const labels = {
      app: 'pi',
      'job-name': 'pi',
      'batch.kubernetes.io/job-name': 'pi',
      'controller-uid': 'job-uid',
      'batch.kubernetes.io/controller-uid': 'job-uid',
    };
    assert.deepEqual(((spec.template as JsonObject).metadata as JsonObject).labels, labels);
    assert.deepEqual((job.metadata as JsonObject).labels, labels, 'the job shares its template labels');
  });

  test('Job without template labels keeps its own labels empty; parallelism alone leaves completions unset', () => {
    const job = defaulted(gvk('batch', 'Job'), { metadata: { name: 'pi', uid: 'u' }, spec: { parallelism: 3, template: { spec: { containers: [] } } } });
    assert.equal((job.metadata as JsonObject).labels, undefined);
    assert.equal((job.spec as JsonObject).completions, undefined);
  });
});

describe('service defaults', () => {
  const SERVICE = gvk('', 'Service');

  test('a ClusterIP service gets an address, single-stack IPv4 fields and port defaults', () => {
    const svc = defaulted(SERVICE, { metadata: { name: 's' }, spec: { selector: { app: 'web' }, ports: [{ port: 80 }] } });
    assert.deepEqual(svc.spec, {
      selector: { app: 'web' },
      ports: [{ port: 80, protocol: 'TCP', targetPort: 80 }],
      sessionAffinity: 'None',
      type: 'ClusterIP',
      internalTrafficPolicy: 'Cluster',
      clusterIP: '10.96.0.10',
      clusterIPs: ['10.96.0.10'],
      ipFamilies: ['IPv4'],
      ipFamilyPolicy: 'SingleStack',
    });
    assert.deepEqual(svc.status, { loadBalancer: {} });
  });

  test('headless services; NodePort services get node ports and an external traffic policy', () => {
    const headless = defaulted(SERVICE, { metadata: { name: 'h' }, spec: { clusterIP: 'None', ports: [{ port: 80 }] } }).spec as JsonObject;
    assert.deepEqual([headless.clusterIPs, headless.ipFamilyPolicy, headless.ipFamilies], [['None'], 'RequireDualStack', ['IPv4']]);
    const nodePort = defaulted(SERVICE, { metadata: { name: 'n' }, spec: { type: 'NodePort', ports: [{ port: 80, targetPort: 'http' }] } }).spec as JsonObject;
    assert.deepEqual(nodePort.ports, [{ port: 80, targetPort: 'http', protocol: 'TCP', nodePort: 30080 }]);
    assert.equal(nodePort.externalTrafficPolicy, 'Cluster');
  });

  test('an update keeps the allocated address and node ports', () => {
    const old = defaulted(SERVICE, { metadata: { name: 'n' }, spec: { type: 'NodePort', ports: [{ port: 80 }] } });
    const next: JsonObject = { metadata: { name: 'n' }, spec: { type: 'NodePort', ports: [{ port: 80 }] } };
    applyDefaults(SERVICE, next, { operation: 'update', random: () => '', old, allocateNodePort: () => 31999 });
    const spec = next.spec as JsonObject;
    assert.equal(spec.clusterIP, '10.96.0.10');
    assert.deepEqual((spec.ports as JsonObject[])[0]?.nodePort, 30080);
  });
});

describe('other kinds', () => {
  test('Namespace (N.1)', () => {
    const ns = defaulted(gvk('', 'Namespace'), { metadata: { name: 'team' } });
    assert.deepEqual(ns, { metadata: { name: 'team', labels: { 'kubernetes.io/metadata.name': 'team' } }, spec: { finalizers: ['kubernetes'] }, status: { phase: 'Active' } });
    const next: JsonObject = { metadata: { name: 'team' }, spec: { finalizers: [] } };
    applyDefaults(gvk('', 'Namespace'), next, { operation: 'update', random: () => '', old: ns });
    assert.deepEqual((next.spec as JsonObject).finalizers, ['kubernetes']);
  });

  test('webhook configurations', () => {
    const config = defaulted(gvk('admissionregistration.k8s.io', 'MutatingWebhookConfiguration'), {
      metadata: { name: 'm' },
      webhooks: [{ name: 'a.example.com', clientConfig: { service: { name: 's', namespace: 'n' } }, rules: [{ operations: ['CREATE'] }] }],
    });
    assert.deepEqual((config.webhooks as JsonObject[])[0], {
      name: 'a.example.com',
      clientConfig: { service: { name: 's', namespace: 'n', port: 443 } },
      rules: [{ operations: ['CREATE'], scope: '*' }],
      failurePolicy: 'Fail',
      matchPolicy: 'Equivalent',
      namespaceSelector: {},
      objectSelector: {},
      timeoutSeconds: 10,
      reinvocationPolicy: 'Never',
    });
    const validating = defaulted(gvk('admissionregistration.k8s.io', 'ValidatingWebhookConfiguration'), { metadata: { name: 'v' }, webhooks: [{ name: 'a.example.com' }] });
    assert.equal((validating.webhooks as JsonObject[])[0]?.reinvocationPolicy, undefined);
  });

  test('Secret: Opaque, stringData folded into data', () => {
    const secret = defaulted(gvk('', 'Secret'), { metadata: { name: 's' }, data: { a: 'eA==' }, stringData: { b: 'hello' } });
    assert.deepEqual(secret, { metadata: { name: 's' }, data: { a: 'eA==', b: 'aGVsbG8=' }, type: 'Opaque' });
  });

  test('M. a minimal core event', () => {
    const event = defaulted(gvk('', 'Event'), { metadata: { name: 'e' }, involvedObject: { kind: 'Pod' }, reason: 'R', message: 'm' });
    assert.deepEqual(event, {
      metadata: { name: 'e' },
      involvedObject: { kind: 'Pod' },
      reason: 'R',
      message: 'm',
      source: {},
      firstTimestamp: null,
      lastTimestamp: null,
      eventTime: null,
      reportingComponent: '',
      reportingInstance: '',
    });
  });

  test('kinds without defaults and other versions are left alone', () => {
    const cm = { metadata: { name: 'c' }, data: { a: '1' } };
    assert.deepEqual(defaulted(gvk('', 'ConfigMap'), structuredClone(cm)), cm);
    const pod = minimalPod('x');
    applyDefaults({ group: '', version: 'v2', kind: 'Pod' }, pod, create);
    assert.deepEqual(pod, minimalPod('x'));
  });

  test('restoreSystemMetadata keeps what an update may not change', () => {
    const obj: JsonObject = { metadata: { name: 'x', creationTimestamp: '2030-01-01T00:00:00Z' } };
    restoreSystemMetadata(obj, { metadata: { name: 'x', uid: 'u', creationTimestamp: '2026-01-01T00:00:00Z', deletionTimestamp: '2026-02-01T00:00:00Z', deletionGracePeriodSeconds: 30 } });
    assert.deepEqual(obj.metadata, { name: 'x', uid: 'u', creationTimestamp: '2026-01-01T00:00:00Z', deletionTimestamp: '2026-02-01T00:00:00Z', deletionGracePeriodSeconds: 30 });
  });
});
