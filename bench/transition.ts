// Cost of one PodTransitionRule reconcile for 5,000 selected pods in PreCheck and 3 rules: availablePolicy,
// labelCheck and a webhook rule. First the pure evaluation (results known, no HTTP), with a baseline measured
// in the same run (iterating the pods' labels once); then the whole reconcile through the real controller,
// informers and client against a sandbox in its own process, with the rule's webhook served on 127.0.0.1.

import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import type { Pod } from '../src/api/kube.ts';
import type { PodTransitionRule, PodTransitionRuleStatus } from '../src/api/podtransitionrule.ts';
import { idLabelKey, SERVICE_AVAILABLE_LABEL } from '../src/api/protocol.ts';
import { evaluate, type EvaluationInput } from '../src/transition/evaluate.ts';
import { podTransitionRuleCRD } from '../src/api/podtransitionrule.ts';
import { CONTROL_LABEL, CONTROL_LABEL_VALUE } from '../src/api/protocol.ts';
import { TransitionReconciler } from '../src/controllers/transition-controller.ts';
import { isNotFound, KubeClient, type KubeObject } from '../src/kube/client.ts';
import { Informer } from '../src/kube/informer.ts';
import { CUSTOM_RESOURCE_DEFINITIONS, NAMESPACES, PODS as POD_RESOURCE, PODTRANSITIONRULES } from '../src/kube/resources.ts';
import { CallManager } from '../src/transition/webhook/call-manager.ts';
import { PollManager } from '../src/transition/webhook/poll-manager.ts';
import { startServerProcess } from './processes.ts';
import type { PollResult } from '../src/transition/webhook-rule.ts';
import { realisticPod } from './lifecycle.ts';
import { printTable } from './measure.ts';

const PODS = 5000;
const NOW = 1717505899000000000n;
const T = '1717505885197871195';

function pods(): Pod[] {
  const template = realisticPod({ [idLabelKey('operating', 'collaset')]: T, [idLabelKey('operation-type', 'collaset')]: 'update', [idLabelKey('pre-check', 'collaset')]: T });
  return Array.from({ length: PODS }, (_, i) => {
    const pod = structuredClone(template);
    pod.metadata.name = `checkout-${String(i).padStart(5, '0')}`;
    pod.metadata.uid = `uid-${i}`;
    const labels = pod.metadata.labels as Record<string, string>;
    if (i % 10 !== 0) labels[SERVICE_AVAILABLE_LABEL] = T;
    if (i % 7 !== 0) labels['app.custom/ready'] = 'true';
    return pod;
  });
}

function rule(status?: PodTransitionRuleStatus): PodTransitionRule {
  return {
    metadata: { name: 'checkout', namespace: 'shop', generation: 1 },
    spec: {
      selector: { matchLabels: { app: 'checkout' } },
      rules: [
        { name: 'max-unavailable', availablePolicy: { maxUnavailableValue: '50%', minAvailableValue: '20%' } },
        { name: 'ready', labelCheck: { requires: { matchLabels: { 'app.custom/ready': 'true' }, matchExpressions: [{ key: 'app.custom/forbidden', operator: 'DoesNotExist' }] } } },
        {
          name: 'traffic',
          webhook: {
            clientConfig: { url: 'https://traffic.shop.svc/check', poll: { url: 'https://traffic.shop.svc/fetch', intervalSeconds: 5, timeoutSeconds: 60 } },
            parameters: [{ key: 'podIP', valueFrom: { fieldRef: { fieldPath: 'status.podIP' } } }],
          },
        },
      ],
    },
    ...(status ? { status } : {}),
  };
}

/** Milliseconds per call of `fn`, after a warm-up, over at least `minMs`. */
function msPerRun(fn: () => unknown, minMs = 1500): number {
  for (let i = 0; i < 3; i++) fn();
  let runs = 0;
  const start = performance.now();
  while (performance.now() - start < minMs) {
    fn();
    runs++;
  }
  return (performance.now() - start) / runs;
}

/** The steady state: the webhook already approved the pods that reached it (sticky through status). */
function steadyState(all: Pod[]): EvaluationInput {
  const first = evaluate({ ptr: rule(), pods: all, now: NOW, newTraceId: () => 'bench' });
  const call = first.calls[0];
  if (!call) throw new Error('expected a first request');
  const answered = evaluate({
    ptr: rule(),
    pods: all,
    now: NOW,
    newTraceId: () => 'bench',
    webhookOutcomes: new Map([[call.ruleIndex, { traceId: 'bench', pods: call.pods, response: { success: true, message: '', poll: false, async: false, traceId: '', taskId: '' } }]]),
  });
  return { ptr: rule(answered.status), pods: all, now: NOW };
}

/** A poll task in flight for the pods that reached the webhook, half of them approved by the last poll. */
function pollInFlight(all: Pod[]): EvaluationInput {
  const first = evaluate({ ptr: rule(), pods: all, now: NOW, newTraceId: () => 'bench' });
  const call = first.calls[0];
  if (!call) throw new Error('expected a first request');
  const started = evaluate({
    ptr: rule(),
    pods: all,
    now: NOW,
    newTraceId: () => 'bench',
    webhookOutcomes: new Map([[call.ruleIndex, { traceId: 'bench', pods: call.pods, response: { success: true, message: 'accepted', poll: true, async: false, traceId: '', taskId: 'task-1' } }]]),
  });
  const result: PollResult = {
    count: 3,
    stopped: false,
    timedOut: false,
    approveAll: false,
    approved: new Set(call.pods.filter((_, i) => i % 2 === 0)),
    lastMessage: 'working',
    lastQueryTime: NOW + 15_000_000_000n,
  };
  return { ptr: rule(started.status), pods: all, now: NOW + 16_000_000_000n, polls: () => result };
}

export async function runTransitionBench(): Promise<void> {
  const all = pods();
  const baseline = msPerRun(() => {
    let n = 0;
    for (const pod of all) for (const key in pod.metadata.labels) n += key.length;
    return n;
  });
  const rows: [string, string][] = [
    ['selected pods / rules', `${PODS} in PreCheck / availablePolicy + labelCheck + webhook`],
    ['baseline: iterate the pods’ labels once', `${baseline.toFixed(3)} ms`],
  ];
  for (const [name, input] of [
    ['evaluate, webhook results sticky in status', steadyState(all)],
    ['evaluate, poll task in flight (results known)', pollInFlight(all)],
  ] as const) {
    const evaluation = evaluate(input);
    if (evaluation.calls.length > 0) throw new Error(`${name}: unexpected webhook call`);
    const ms = msPerRun(() => evaluate(input));
    const passed = evaluation.status.summary?.passed ?? 0;
    rows.push([name, `${ms.toFixed(2)} ms/evaluation  ${(ms / baseline).toFixed(1)}x baseline  (${passed} passed, ${evaluation.status.summary?.blocked ?? 0} blocked)`]);
  }
  printTable('PodTransitionRule evaluation (one core, pods already in memory)', rows);
  printTable('PodTransitionRule reconcile (controller, informers and HTTP client; sandbox in its own process)', await reconcileRows());
}

/** A webhook server that approves every pod it is asked about. */
async function approvingWebhook(): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ success: true, message: 'ok' }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/check`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

async function reconcileRows(): Promise<[string, string][]> {
  const server = await startServerProcess();
  const webhook = await approvingWebhook();
  const client = KubeClient.fromKubeconfigText(server.kubeconfig);
  const stop = new AbortController();
  const calls = new CallManager({ onAnswered: () => {} });
  const polls = new PollManager({ onPolled: () => {} });
  try {
    await client.create(CUSTOM_RESOURCE_DEFINITIONS, podTransitionRuleCRD() as KubeObject);
    await client.create(NAMESPACES, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'shop' } });
    const all = pods();
    let next = 0;
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        while (next < all.length) {
          const pod = all[next++] as Pod;
          const { uid: _uid, ...metadata } = pod.metadata;
          await client.create(POD_RESOURCE, { ...pod, apiVersion: 'v1', kind: 'Pod', metadata: { ...metadata, namespace: 'shop', labels: { ...metadata.labels, [CONTROL_LABEL]: CONTROL_LABEL_VALUE } } });
        }
      }),
    );
    const spec = rule().spec ?? { rules: [] };
    const traffic = (spec.rules ?? []).find((r) => r.name === 'traffic');
    if (traffic?.webhook) traffic.webhook.clientConfig = { url: webhook.url };
    for (;;) {
      try {
        await client.create(PODTRANSITIONRULES, { apiVersion: 'apps.kusionstack.io/v1alpha1', kind: 'PodTransitionRule', metadata: { name: 'checkout', namespace: 'shop' }, spec });
        break;
      } catch (err) {
        if (!isNotFound(err)) throw err;
        await new Promise((resolve) => setTimeout(resolve, 50)); // the CRD is not served yet
      }
    }
    const podCache = new Informer<Pod>({ client, type: POD_RESOURCE, labelSelector: `${CONTROL_LABEL}=${CONTROL_LABEL_VALUE}` });
    const rules = new Informer<PodTransitionRule>({ client, type: PODTRANSITIONRULES });
    void podCache.run(stop.signal);
    void rules.run(stop.signal);
    await Promise.all([podCache.waitForSync(stop.signal), rules.waitForSync(stop.signal)]);
    const reconciler = new TransitionReconciler({ client, rules, pods: podCache, polls, calls });
    const request = { namespace: 'shop', name: 'checkout' };
    const currentRv = async (): Promise<string> => (await client.list(NAMESPACES, { limit: 1 })).metadata.resourceVersion ?? '';
    // Until nothing is left to write: the finalizer, the first request (answered in the background), the
    // verdicts in status and on the pods. Each round waits for the caches to see the round's writes.
    const rounds: string[] = [];
    for (let round = 0; round < 20; round++) {
      const before = await currentRv();
      const started = performance.now();
      await reconciler.reconcile(request, AbortSignal.timeout(60_000));
      const ms = performance.now() - started;
      const after = await currentRv();
      if (after === before && calls.inFlight === 0) break;
      rounds.push(`${Math.round(ms)}`);
      const seen = (): boolean => Number(rules.get('shop', 'checkout')?.metadata.resourceVersion ?? 0) >= Number(after);
      for (let i = 0; i < 200 && (!seen() || calls.inFlight > 0); i++) await new Promise((resolve) => setTimeout(resolve, 25));
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    const times: number[] = [];
    for (let i = 0; i < 10; i++) {
      const started = performance.now();
      await reconciler.reconcile(request, AbortSignal.timeout(60_000));
      times.push(performance.now() - started);
    }
    const status = rules.get('shop', 'checkout')?.status;
    const median = times.sort((a, b) => a - b)[Math.floor(times.length / 2)] ?? 0;
    return [
      ['rounds until settled (ms each)', `${rounds.join(', ')}   (finalizer, webhook call, status, pod annotations)`],
      ['steady reconcile, nothing to write', `${median.toFixed(1)} ms (median of 10)  (${status?.summary?.passed ?? 0} passed, ${status?.summary?.blocked ?? 0} blocked)`],
    ];
  } finally {
    stop.abort();
    calls.stop();
    polls.stop();
    client.close();
    await webhook.close();
    await server.stop();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await runTransitionBench();
