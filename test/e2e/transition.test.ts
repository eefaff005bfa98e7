// PodTransitionRules gating GraceDelete: six pods deleted at once under maxUnavailable 50% and minAvailable 2. And the
// admission of a rule's availablePolicy as a user meets it, in a server-side dry run: out-of-range counts refused with
// the field named, the values that mean something (0, 100%) admitted with a warning.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Pod } from '../../src/api/kube.ts';
import type { PodTransitionRule } from '../../src/api/podtransitionrule.ts';
import { SERVICE_AVAILABLE_LABEL } from '../../src/api/protocol.ts';
import { KubeClient, type ApiError } from '../../src/kube/client.ts';
import { DEPLOYMENTS, PODS, PODTRANSITIONRULES } from '../../src/kube/resources.ts';
import { lifecyclePhase } from '../../src/lifecycle/phase.ts';
import { parseLifecycles } from '../../src/lifecycle/parse.ts';
import { runCli } from '../support/cli.ts';
import { deploymentManifest, isServiceAvailable, serviceNamespace, startCluster, type Cluster } from './harness.ts';
import { until } from '../support/wait.ts';

/** Taken out of service by podops: a lifecycle past PreCheck. */
const takenOut = (pod: Pod): boolean => [...parseLifecycles(pod.metadata.labels).byId.values()].some((l) => lifecyclePhase(l) !== 'PreCheck');

describe('PodTransitionRule on GraceDelete', () => {
  let cluster: Cluster;
  before(async () => {
    // Replacements take a few seconds to start: long enough to see the rule hold the pods back.
    cluster = await startCluster({ startDelayMs: 3000 });
    await serviceNamespace(cluster, 'budget');
  });
  after(() => cluster.stop());

  test('deleting 6 pods at once never takes more out of service than the budget allows, and all 6 finish', async () => {
    const { client } = cluster;
    await client.create(PODTRANSITIONRULES, {
      apiVersion: 'apps.kusionstack.io/v1alpha1',
      kind: 'PodTransitionRule',
      metadata: { name: 'budget', namespace: 'budget' },
      spec: { selector: { matchLabels: { app: 'web' } }, rules: [{ name: 'half', availablePolicy: { maxUnavailableValue: '50%', minAvailableValue: 2 } }] },
    });
    await client.create(DEPLOYMENTS, deploymentManifest('budget', 'web', { replicas: 6 }));
    const live = async (): Promise<Pod[]> => (await client.list<Pod>(PODS, { namespace: 'budget' })).items;
    const original = await until(live, (pods) => pods.length === 6 && pods.every(isServiceAvailable), '6 pods service-available', 30_000);
    const startRv = Math.max(...original.map((p) => Number(p.metadata.resourceVersion)));

    const denials = await Promise.all(original.map((p) => client.delete(PODS, 'budget', p.metadata.name ?? '').then(() => 'deleted', (err: Error) => err.message)));
    for (const denial of denials) assert.match(denial, /pod deletion process is underway and being managed by PodOpsLifecycle/);

    // While the budget holds pods back, `podops status` names the rule that blocks them and why.
    const status = await until(
      () => runCli(['status', '-n', 'budget', '--kubeconfig', cluster.kubeconfigPath]),
      (result) => result.stdout.includes('blocked by PodTransitionRule budget'),
      'podops status showing the blocking rule',
      30_000,
    );
    assert.equal(status.code, 0);
    // The rule counts the pods it selects at that moment: a pod already gone, or a replacement
    // already created, changes the total, but the quota is always half of it, and it is spent.
    const reason = /blocked by PodTransitionRule budget: half: \[half\] blocked by max unavailable policy: \[max unavailable\]=(\d+)\/(\d+), \[current unavailable\]=(\d+)\/\2/.exec(status.stdout);
    assert.ok(reason, status.stdout);
    const [quota, total, unavailable] = reason.slice(1).map(Number) as [number, number, number];
    assert.equal(quota, Math.ceil(total * 0.5), status.stdout);
    assert.ok(unavailable >= quota, status.stdout);

    const originalNames = new Set(original.map((p) => p.metadata.name));
    await until(live, (pods) => pods.every((p) => !originalNames.has(p.metadata.name)) && pods.length === 6 && pods.every(isServiceAvailable), 'all 6 replaced', 90_000);

    // Replay the history: at every moment, podops kept within the rule.
    const state = new Map<string, Pod>();
    let maxOut = 0;
    for (const record of cluster.sandbox.history!.records('pods')) {
      if (record.namespace !== 'budget') continue;
      if (record.type === 'DELETED') state.delete(record.name);
      else state.set(record.name, record.object as unknown as Pod);
      if (record.resourceVersion <= startRv) continue;
      const pods = [...state.values()];
      const out = pods.filter(takenOut).length;
      const available = pods.filter((p) => p.metadata.labels?.[SERVICE_AVAILABLE_LABEL] !== undefined && !takenOut(p)).length;
      maxOut = Math.max(maxOut, out);
      assert.ok(out <= Math.ceil(pods.length * 0.5), `rv ${record.resourceVersion}: ${out} of ${pods.length} pods out of service`);
      assert.ok(available >= 2, `rv ${record.resourceVersion}: only ${available} pods available`);
    }
    assert.ok(maxOut >= 2, `the budget was used (at most ${maxOut} out at once)`);
  });

  test('a server-side dry run refuses an availablePolicy out of range, naming the field, and admits 0 and 100% with a warning', async () => {
    const warnings: string[] = [];
    const client = KubeClient.fromKubeconfigText(cluster.sandbox.kubeconfig, { onWarning: (warning) => warnings.push(warning) });
    const dryRun = async (availablePolicy: Record<string, unknown>): Promise<string> => {
      warnings.length = 0;
      const rule = { apiVersion: 'apps.kusionstack.io/v1alpha1', kind: 'PodTransitionRule', metadata: { name: 'dry', namespace: 'budget' }, spec: { selector: { matchLabels: { app: 'web' } }, rules: [{ name: 'budget', availablePolicy }] } };
      return client.create(PODTRANSITIONRULES, rule, { dryRun: true }).then(
        () => (warnings.length > 0 ? `admitted with: ${warnings.join(' | ')}` : 'admitted'),
        (err: ApiError) => err.status?.message ?? err.message,
      );
    };
    try {
      const denied = (field: string, value: string, why: string) =>
        `admission webhook "validating-generic.apps.kusionstack.io" denied the request: spec.rule.budget.availablePolicy.${field}: Invalid value: ${value}: ${why}`;
      assert.equal(await dryRun({ maxUnavailableValue: '150%' }), denied('maxUnavailableValue', '"150%"', 'must not be greater than 100%'));
      assert.equal(await dryRun({ maxUnavailableValue: -1 }), denied('maxUnavailableValue', '-1', 'must be greater than or equal to 0'));
      assert.equal(await dryRun({ minAvailableValue: '101%' }), denied('minAvailableValue', '"101%"', 'must not be greater than 100%'));
      assert.equal(await dryRun({ minAvailableValue: -2 }), denied('minAvailableValue', '-2', 'must be greater than or equal to 0'));
      // Kuperator reads these as they are written, and they mean something: kept, with a word when nothing can pass.
      assert.match(await dryRun({ maxUnavailableValue: 0 }), /^admitted with: spec\.rule\.budget\.availablePolicy\.maxUnavailableValue: 0 lets no service-available pod through this rule/);
      assert.match(await dryRun({ minAvailableValue: '100%' }), /^admitted with: spec\.rule\.budget\.availablePolicy\.minAvailableValue: "100%" keeps every selected pod available/);
      assert.equal(await dryRun({ minAvailableValue: 0 }), 'admitted');
      assert.equal(await dryRun({ maxUnavailableValue: '100%' }), 'admitted');
      assert.equal((await client.list<PodTransitionRule>(PODTRANSITIONRULES, { namespace: 'budget' })).items.filter((r) => r.metadata.name === 'dry').length, 0, 'a dry run stores nothing');
    } finally {
      client.close();
    }
  });
});
