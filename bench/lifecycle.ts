// Mutation + validation throughput of the PodOpsLifecycle core on a realistic pod with two lifecycle IDs,
// objects already parsed (what the webhook does per AdmissionReview after JSON parsing).
// Target (issue 2): >= 100,000 mutations+validations per second on one core.

import type { Pod } from '../src/api/kube.ts';
import { CONTROL_LABEL, SERVICE_READY_GATE, idLabelKey, operationPermissionKey } from '../src/api/protocol.ts';
import { mutatePod, type MutationInput } from '../src/lifecycle/mutate.ts';
import { validatePod } from '../src/lifecycle/validate.ts';
import { formatRate, measureRate, printTable } from './measure.ts';
import { fileURLToPath } from 'node:url';

const T = '1717505885197871195';

/** A pod of about 5 KB as a Deployment would create it, with two lifecycles in flight. */
export function realisticPod(lifecycleLabels: Record<string, string>): Pod {
  const env = Array.from({ length: 12 }, (_, i) => ({ name: `APP_SETTING_${i}`, value: `value-${i}-${'x'.repeat(20)}` }));
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: 'checkout-7d9f8b6c5d-x2kqz',
      generateName: 'checkout-7d9f8b6c5d-',
      namespace: 'shop',
      uid: '1f7c2a1e-8a4b-4c1d-9e2f-3a4b5c6d7e8f',
      resourceVersion: '48213377',
      creationTimestamp: '2024-06-04T12:50:00Z',
      labels: {
        app: 'checkout',
        'pod-template-hash': '7d9f8b6c5d',
        'app.kubernetes.io/part-of': 'shop',
        'app.kubernetes.io/version': '2.14.1',
        [CONTROL_LABEL]: 'true',
        ...lifecycleLabels,
      },
      annotations: {
        'kubectl.kubernetes.io/restartedAt': '2024-06-04T12:49:58Z',
        'prometheus.io/scrape': 'true',
        'prometheus.io/port': '9102',
        'pod.kusionstack.io/available-conditions': JSON.stringify({
          expectedFinalizers: { 'Service/shop/checkout': 'prot.podopslifecycle.kusionstack.io/5f1c2a3b4d5e6f70' },
        }),
      },
      finalizers: ['prot.podopslifecycle.kusionstack.io/5f1c2a3b4d5e6f70'],
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'checkout-7d9f8b6c5d', uid: '9a8b7c6d-5e4f-3a2b-1c0d-ffeeddccbbaa', controller: true, blockOwnerDeletion: true }],
    },
    spec: {
      containers: [
        {
          name: 'checkout',
          image: 'registry.example.com/shop/checkout:2.14.1',
          ports: [{ name: 'http', containerPort: 8080, protocol: 'TCP' }, { name: 'metrics', containerPort: 9102, protocol: 'TCP' }],
          env,
          resources: { requests: { cpu: '500m', memory: '512Mi' }, limits: { cpu: '2', memory: '1Gi' } },
          readinessProbe: { httpGet: { path: '/healthz', port: 8080, scheme: 'HTTP' }, periodSeconds: 5, timeoutSeconds: 1, successThreshold: 1, failureThreshold: 3 },
          volumeMounts: [{ name: 'config', mountPath: '/etc/checkout' }, { name: 'kube-api-access-abcde', mountPath: '/var/run/secrets/kubernetes.io/serviceaccount', readOnly: true }],
          terminationMessagePath: '/dev/termination-log',
          terminationMessagePolicy: 'File',
          imagePullPolicy: 'IfNotPresent',
        },
        { name: 'proxy', image: 'registry.example.com/mesh/proxy:1.22.3', args: ['proxy', 'sidecar', '--concurrency', '2'], resources: { requests: { cpu: '100m', memory: '128Mi' } } },
      ],
      volumes: [
        { name: 'config', configMap: { name: 'checkout-config', defaultMode: 420 } },
        {
          name: 'kube-api-access-abcde',
          projected: {
            defaultMode: 420,
            sources: [
              { serviceAccountToken: { expirationSeconds: 3607, path: 'token' } },
              { configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
              { downwardAPI: { items: [{ path: 'namespace', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } }] } },
            ],
          },
        },
      ],
      readinessGates: [{ conditionType: SERVICE_READY_GATE }],
      nodeName: 'node-17',
      serviceAccountName: 'checkout',
      terminationGracePeriodSeconds: 30,
      dnsPolicy: 'ClusterFirst',
      restartPolicy: 'Always',
      schedulerName: 'default-scheduler',
      tolerations: [
        { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
        { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
      ],
    },
    status: {
      phase: 'Running',
      podIP: '10.42.17.33',
      hostIP: '192.168.10.17',
      startTime: '2024-06-04T12:50:01Z',
      conditions: [
        { type: 'Initialized', status: 'True', lastTransitionTime: '2024-06-04T12:50:01Z' },
        { type: 'Ready', status: 'False', lastTransitionTime: '2024-06-04T12:58:05Z' },
        { type: 'ContainersReady', status: 'True', lastTransitionTime: '2024-06-04T12:50:09Z' },
        { type: 'PodScheduled', status: 'True', lastTransitionTime: '2024-06-04T12:50:00Z' },
        { type: SERVICE_READY_GATE, status: 'False', lastTransitionTime: '2024-06-04T12:58:05Z', message: 'updated by PodOpsLifecycle' },
      ],
      containerStatuses: [
        { name: 'checkout', ready: true, restartCount: 0, image: 'registry.example.com/shop/checkout:2.14.1', imageID: 'registry.example.com/shop/checkout@sha256:' + 'a'.repeat(64), containerID: 'containerd://' + 'b'.repeat(64), started: true, state: { running: { startedAt: '2024-06-04T12:50:05Z' } } },
        { name: 'proxy', ready: true, restartCount: 0, image: 'registry.example.com/mesh/proxy:1.22.3', imageID: 'registry.example.com/mesh/proxy@sha256:' + 'c'.repeat(64), containerID: 'containerd://' + 'd'.repeat(64), started: true, state: { running: { startedAt: '2024-06-04T12:50:04Z' } } },
      ],
    },
  };
}

const L = idLabelKey;

/** Admission inputs at several points of two concurrent lifecycles (IDs `collaset` and `pod-delete`). */
export function scenarios(): [string, MutationInput][] {
  const twoBegun = { [L('operating', 'collaset')]: T, [L('operation-type', 'collaset')]: 'update', [L('operating', 'pod-delete')]: T, [L('operation-type', 'pod-delete')]: 'delete' };
  const twoPreChecked = { ...twoBegun, [L('pre-checked', 'collaset')]: T, [L('pre-checked', 'pod-delete')]: T, [operationPermissionKey('update')]: T, [operationPermissionKey('delete')]: T };
  const twoPreparing = { ...twoPreChecked, [L('preparing', 'collaset')]: T, [L('preparing', 'pod-delete')]: T };
  const twoOperate = { ...twoPreChecked, [L('operate', 'collaset')]: T, [L('operate', 'pod-delete')]: T };
  const { [L('operating', 'collaset')]: _a, [L('operating', 'pod-delete')]: _b, ...twoFinished } = twoOperate;
  const twoPostChecked = {
    [L('operated', 'collaset')]: T, [L('done-operation-type', 'collaset')]: 'update', [L('post-checked', 'collaset')]: T,
    [L('operated', 'pod-delete')]: T, [L('done-operation-type', 'pod-delete')]: 'delete', [L('post-checked', 'pod-delete')]: T,
  };
  const input = (labels: Record<string, string>, old: Record<string, string> = labels): MutationInput => ({
    operation: 'UPDATE',
    pod: realisticPod(labels),
    oldPod: realisticPod(old),
    now: 1717505899000000000n,
  });
  return [
    ['no change (preparing, finalizer held)', input(twoPreparing)],
    ['begin: adds pre-check to both', input(twoBegun)],
    ['pre-checked: preparing to both', input(twoPreChecked)],
    ['both finished: operated + post-check', input(twoFinished, twoOperate)],
    ['both post-checked: completing (3 passes)', input(twoPostChecked)],
  ];
}

export async function runLifecycleBench(): Promise<void> {
  const cases = scenarios();
  const size = Buffer.byteLength(JSON.stringify(cases[0]![1].pod));
  const rows: [string, string][] = [[`pod size`, `${size} bytes, 2 lifecycle IDs`]];
  const baselinePod = cases[0]![1].pod;
  const baseline = measureRate(() => JSON.stringify(baselinePod), 500);
  rows.push(['baseline: JSON.stringify(pod)', formatRate(baseline)]);
  let slowest = Infinity;
  for (const [name, input] of cases) {
    const rate = measureRate(() => {
      const mutation = mutatePod(input);
      validatePod({ ...input.pod, metadata: { ...input.pod.metadata, labels: mutation.labels } });
    }, 700);
    slowest = Math.min(slowest, rate.opsPerSecond);
    rows.push([`mutate+validate: ${name}`, `${formatRate(rate)}  ${(rate.opsPerSecond / baseline.opsPerSecond).toFixed(2)}x baseline`]);
  }
  rows.push(['slowest case vs target 100,000/s', `${Math.round(slowest).toLocaleString('en-US')}/s ${slowest >= 100_000 ? 'meets' : 'MISSES'} the target`]);
  printTable('PodOpsLifecycle admission core (one core, objects already parsed)', rows);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await runLifecycleBench();
