// `podops conformance` against the sandbox: with podops' in-process stack every scenario passes but where podops
// is known to depart from the protocol; scenarios are picked by --focus and --skip; Ctrl-C stops a run and
// still deletes its namespaces; and against a sandbox without podops the suite says that no implementation was
// found and fails naming the missing behaviour. This is podops' own end-to-end check of what the scenarios
// cover: they are not repeated elsewhere.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { CREATED_BY, CREATED_BY_LABEL } from '../../src/conformance/namespaces.ts';
import { scenarios } from '../../src/conformance/scenarios/index.ts';
import type { Report } from '../../src/conformance/runner.ts';
import { NAMESPACES } from '../../src/kube/resources.ts';
import { runCli } from '../support/cli.ts';
import { until } from '../support/wait.ts';
import { parseXml, type XmlElement } from '../support/xml.ts';
import { startCluster, type Cluster } from './harness.ts';
import { startOperatorProcess, type OperatorProcess } from './operator-process.ts';
import { registerWebhooks } from '../../src/cli/local-stack.ts';

const mainScript = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));

/**
 * Where podops departs from the protocol, by scenario: the step it fails at (docs/conformance.md, known
 * differences). Each must fail exactly there: once podops is fixed, this test says to remove the entry.
 */
const KNOWN_DEVIATIONS: Record<string, string> = {};

async function suiteNamespaces(cluster: Cluster): Promise<string[]> {
  const list = await cluster.client.list<{ metadata: { name?: string } }>(NAMESPACES, { labelSelector: `${CREATED_BY_LABEL}=${CREATED_BY}` });
  return list.items.map((n) => n.metadata.name!);
}

const elements = (root: XmlElement, name: string): XmlElement[] => [...(root.name === name ? [root] : []), ...root.children.flatMap((c) => elements(c, name))];

describe('podops conformance against the sandbox with podops', () => {
  let cluster: Cluster;
  before(async () => {
    cluster = await startCluster();
  });
  after(() => cluster.stop());

  test('every scenario passes but the known deviations, reported as JUnit, and no namespace is left', async () => {
    const result = await runCli(['conformance', '--kubeconfig', cluster.kubeconfigPath, '-o', 'junit']);
    const root = parseXml(result.stdout);
    assert.equal(root.name, 'testsuites');
    const cases = elements(root, 'testcase');
    assert.deepEqual(cases.map((c) => c.attributes.name!.split(':')[0]), scenarios.map((s) => s.name), 'a test case per scenario, in order');
    assert.equal(root.attributes.tests, String(scenarios.length));
    assert.equal(elements(root, 'skipped').length, 0, `nothing skipped: podops has every capability\n${result.stderr}`);
    const failed = Object.fromEntries(cases.flatMap((c) => c.children.filter((f) => f.name === 'failure').map((f) => [c.attributes.name!.split(':')[0], f])));
    for (const [name, step] of Object.entries(KNOWN_DEVIATIONS)) {
      assert.ok(failed[name], `${name} passes now: podops follows the protocol there, remove it from KNOWN_DEVIATIONS and docs/conformance.md`);
      assert.ok(failed[name].attributes.message!.startsWith(`${step}: `), `${name} fails elsewhere: ${failed[name].attributes.message}`);
    }
    assert.deepEqual(Object.keys(failed).sort(), Object.keys(KNOWN_DEVIATIONS).sort(), `unexpected failures:\n${result.stderr}`);
    assert.equal(root.attributes.failures, String(Object.keys(KNOWN_DEVIATIONS).length));
    assert.equal(result.code, Object.keys(KNOWN_DEVIATIONS).length > 0 ? 1 : 0);

    // The progress went to stderr: what the implementation offers, then a line per scenario, then the summary.
    assert.match(result.stderr, /^ {2}pod lifecycle webhooks +found: mutating-pod\.apps\.kusionstack\.io \(podops-mutating\), validating-pod\.apps\.kusionstack\.io \(podops-validating\)$/m);
    assert.match(result.stderr, /^ {2}GraceDelete +on: /m);
    // The sandbox's API server presents no client certificate: podops defers evictions from nodes being emptied.
    assert.match(result.stderr, /^ {2}graceful evictions +on for nodes being emptied: /m);
    for (const scenario of scenarios) assert.match(result.stderr, new RegExp(`^(PASS|FAIL) {2}${scenario.name} `, 'm'));
    assert.match(result.stderr, new RegExp(`^${scenarios.length - Object.keys(KNOWN_DEVIATIONS).length} passed, ${Object.keys(KNOWN_DEVIATIONS).length} failed, 0 skipped of ${scenarios.length} scenarios in [\\d.]+s; ${scenarios.length + 1} namespaces deleted$`, 'm'));
    assert.deepEqual(await suiteNamespaces(cluster), [], 'every namespace of the suite is gone');
  });

  test('--focus and --skip pick scenarios by name or title; -o json is the report', async () => {
    const result = await runCli(['conformance', '--kubeconfig', cluster.kubeconfigPath, '--focus', '^(validation|lifecycle)/', '--skip', 'pair|readiness|one-id|two-ids|permission|invalid-label', '-o', 'json']);
    const report = JSON.parse(result.stdout) as Report;
    assert.deepEqual(report.results.map((r) => `${r.name}:${r.status}`), ['validation/available-conditions:passed'], result.stderr);
    assert.equal(result.code, 0);
    assert.equal(report.capabilities?.graceDelete.available, true);
    assert.deepEqual(report.namespaces, { created: 2, left: [] });
    assert.deepEqual(await suiteNamespaces(cluster), []);
  });

  test('Ctrl-C stops the run, deletes every namespace it made, and exits 130', async () => {
    const child = spawn(process.execPath, [mainScript, 'conformance', '--kubeconfig', cluster.kubeconfigPath], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    try {
      await until(() => stdout, (out) => /^PASS /m.test(out), `a first scenario to pass (stderr: ${stderr})`, 30_000);
      assert.ok((await suiteNamespaces(cluster)).length > 0, 'namespaces of scenarios under way');
      child.kill('SIGINT');
      assert.equal(await exited, 130, `${stdout}\n${stderr}`);
    } finally {
      child.kill('SIGKILL');
    }
    assert.match(stdout, /; interrupted, \d+ not finished of \d+ scenarios in [\d.]+s; \d+ namespaces deleted\n$/);
    assert.match(stdout, /^STOP {2}/m, 'the scenarios stopped or never run are listed');
    assert.deepEqual(await suiteNamespaces(cluster), [], 'no namespace of the suite is left');
  });
});

describe('podops conformance against a sandbox without an implementation', () => {
  let cluster: Cluster;
  before(async () => {
    // The CRDs are there, but neither the operator nor its webhooks.
    cluster = await startCluster({ operator: 'external' });
  });
  after(() => cluster.stop());

  test('says that no implementation was found, and fails naming the step and what it observed', async () => {
    const result = await runCli(['conformance', '--kubeconfig', cluster.kubeconfigPath, '--focus', 'readiness-gate|operated-pair|grace-delete']);
    assert.equal(result.code, 1, result.stdout);
    assert.match(result.stdout, /^ {2}pod lifecycle webhooks +no implementation found: no mutating webhook receives pods labelled kusionstack\.io\/control=true \(is podops or Kuperator installed\?\)$/m);
    assert.match(result.stdout, /^ {2}GraceDelete +unknown: no controlled pod to probe with: the readiness gate pod\.kusionstack\.io\/service-ready was not injected/m);
    assert.match(result.stdout, /^FAIL {2}lifecycle\/readiness-gate .*\n {6}step: {6}create a controlled pod: the service-ready gate is injected\n {6}failure: {3}the readiness gate pod\.kusionstack\.io\/service-ready was not injected when the controlled pod was created/m);
    assert.match(result.stdout, /^ {6}observed: {2}pod gated \(Pending\)\n {17}labels: {6}kusionstack\.io\/control=true$/m, 'the pod as the API server stored it');
    assert.match(result.stdout, /^FAIL {2}validation\/operated-pair .*\n {6}step: {6}create a pod with operated but no done-operation-type: denied\n {6}failure: {3}create pod operated-only was accepted, expected a refusal$/m);
    assert.match(result.stdout, /^SKIP {2}grace-delete\/delete .*\n {6}reason: {4}unknown: no controlled pod to probe with/m);
    assert.match(result.stdout, /^0 passed, 2 failed, 1 skipped of 3 scenarios in [\d.]+s; 3 namespaces deleted$/m);
    assert.deepEqual(await suiteNamespaces(cluster), []);
  });
});

describe('podops conformance against podops with GraceDelete and graceful evictions off', () => {
  let cluster: Cluster;
  let operator: OperatorProcess;
  before(async () => {
    cluster = await startCluster({ operator: 'external' });
    operator = await startOperatorProcess(cluster.kubeconfigPath, { extraArgs: ['--feature-gates', 'GraceDeleteWebhook=false,GracefulEviction=false'] });
    await operator.ready();
    await registerWebhooks(cluster.client, `127.0.0.1:${operator.webhookPort}`);
  });
  after(async () => {
    await operator?.kill();
    await cluster?.stop();
  });

  test('finds both off by their probes, and skips their scenarios saying so', async () => {
    const result = await runCli(['conformance', '--kubeconfig', cluster.kubeconfigPath, '--focus', 'grace-delete|eviction|readiness-gate']);
    assert.equal(result.code, 0, result.stdout);
    assert.match(result.stdout, /^ {2}GraceDelete +off: a dry-run DELETE of a controlled pod with the service-ready gate went through/m);
    assert.match(result.stdout, /^ {2}graceful evictions +off: validating-pod-eviction\.apps\.kusionstack\.io \(podops-validating\) let a dry-run eviction of a controlled pod through/m);
    assert.match(result.stdout, /^SKIP {2}grace-delete\/delete .*\n {6}reason: {4}off: a dry-run DELETE/m);
    assert.match(result.stdout, /^SKIP {2}eviction\/evict .*\n {6}reason: {4}off: /m);
    assert.match(result.stdout, /^1 passed, 0 failed, 2 skipped of 3 scenarios in [\d.]+s; 2 namespaces deleted$/m);
  });
});
