// Cost of one PodTransitionRule evaluation (the pure core of one reconcile) for 5,000 selected pods in
// PreCheck and 3 rules: availablePolicy, labelCheck, and a webhook rule whose results are known (no HTTP).
// Baseline measured in the same run: iterating the pods' labels once.

import { fileURLToPath } from 'node:url';
import type { Pod } from '../src/api/kube.ts';
import type { PodTransitionRule, PodTransitionRuleStatus } from '../src/api/podtransitionrule.ts';
import { idLabelKey, SERVICE_AVAILABLE_LABEL } from '../src/api/protocol.ts';
import { evaluate, type EvaluationInput } from '../src/transition/evaluate.ts';
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
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await runTransitionBench();
