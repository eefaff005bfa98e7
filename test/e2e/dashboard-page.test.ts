// The dashboard's page in a real browser (Debian's Chromium), against the local stack with the operator: a lifecycle
// begun with `podops begin` appears as a bar and changes colour as it advances, a click shows the inspect report, a
// PodTransitionRule's block shows its reason, GraceDelete's pod-delete lifecycle is drawn, a rolling update is
// photographed, 2,000 pods keep the DOM small, and an unreachable API server or dashboard is said so.

import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { renderKubeconfig, startSandbox, type Sandbox } from '@podops/sandbox';
import type { Page } from 'playwright-core';
import type { Pod } from '../../src/api/kube.ts';
import { CONTROL_LABEL } from '../../src/api/protocol.ts';
import { startDashboard, type Dashboard } from '../../src/dashboard/server.ts';
import { KubeClient, type KubeObject } from '../../src/kube/client.ts';
import { DEPLOYMENTS, NAMESPACES, PODS, PODTRANSITIONRULES } from '../../src/kube/resources.ts';
import { chromiumMissing, launchChromium, type Browser } from '../support/chromium.ts';
import { runCli } from '../support/cli.ts';
import { freePort, until } from '../support/wait.ts';
import { controlledPod, deploymentManifest, isServiceAvailable, serviceNamespace, startCluster, type Cluster } from './harness.ts';

const skip = chromiumMissing();
if (skip) console.log(`# skipping the dashboard page tests: ${skip}`);

const deployment = (namespace: string, image: string): KubeObject => deploymentManifest(namespace, 'web', { image });

/** The background colour the page gives a segment of the phase. */
const colourOf = (page: Page, selector: string): Promise<string> =>
  // Runs in the page, where getComputedStyle is a global (this file is type-checked without the DOM's types).
  page.locator(selector).first().evaluate((element) => (globalThis as unknown as { getComputedStyle(e: unknown): { backgroundColor: string } }).getComputedStyle(element).backgroundColor);

/**
 * Whether the element's text is cut (it overflows its own box, or a cell that hides what overflows it), and whether
 * another element covers its last line (a row below painted over it).
 */
const visibility = (page: Page, selector: string): Promise<{ clipped: boolean; covered: boolean }> =>
  page.locator(selector).evaluate((element) => {
    // Runs in the page (this file is type-checked without the DOM's types).
    interface Box {
      scrollWidth: number;
      clientWidth: number;
      scrollHeight: number;
      clientHeight: number;
      parentElement: Box;
      contains(other: unknown): boolean;
      getBoundingClientRect(): { left: number; right: number; bottom: number };
    }
    const page = globalThis as unknown as { document: { elementFromPoint(x: number, y: number): unknown }; getComputedStyle(e: unknown): { overflow: string } };
    const text = element as unknown as Box;
    const cell = text.parentElement;
    const overflows = (box: Box) => box.scrollWidth > box.clientWidth + 1 || box.scrollHeight > box.clientHeight + 1;
    const rect = text.getBoundingClientRect();
    const atLastLine = page.document.elementFromPoint(rect.left + 8, rect.bottom - 4);
    return { clipped: overflows(text) || (page.getComputedStyle(cell).overflow !== 'visible' && overflows(cell)), covered: !text.contains(atLastLine) };
  });

describe('the dashboard page in Chromium', { skip }, () => {
  let cluster: Cluster;
  let browser: Browser;
  let page: Page;
  const abort = new AbortController();
  const dashboards: Dashboard[] = [];
  const clients: KubeClient[] = [];
  const serve = async (kubeconfig: string, namespace?: string, signal = abort.signal): Promise<Dashboard> => {
    const client = KubeClient.fromKubeconfigText(kubeconfig);
    clients.push(client);
    const dashboard = await startDashboard({ client, namespace, port: 0 }, signal);
    dashboards.push(dashboard);
    return dashboard;
  };
  const webPods = async (): Promise<Pod[]> =>
    (await cluster.client.list<Pod>(PODS, { namespace: 'page' })).items.filter((p) => p.metadata.deletionTimestamp == null).sort((a, b) => (a.metadata.name! < b.metadata.name! ? -1 : 1));
  const row = (name: string, namespace = 'page'): string => `.pod[data-key="${namespace}/${name}"]`;
  const cli = (...args: string[]) => runCli([...args, '--kubeconfig', cluster.kubeconfigPath]);

  before(async () => {
    cluster = await startCluster();
    await serviceNamespace(cluster, 'page');
    await cluster.client.create(DEPLOYMENTS, deployment('page', 'nginx:1.27'));
    await until(webPods, (pods) => pods.length === 3 && pods.every(isServiceAvailable), 'the 3 pods in service', 30_000);
    browser = await launchChromium();
    page = await browser.context.newPage();
    await page.goto((await serve(cluster.sandbox.kubeconfig)).url);
  });
  after(async () => {
    await browser?.close();
    abort.abort();
    await Promise.all(dashboards.map((d) => d.done));
    for (const client of clients) client.close();
    await cluster?.stop();
  });

  test('a lifecycle begun with podops begin is a bar within 2 s, changes colour as it advances, and a click shows its report', async () => {
    const [pod] = await webPods();
    const name = pod!.metadata.name!;
    await page.waitForSelector(`${row(name)} .phase[data-phase=ServiceAvailable]`);
    assert.equal((await cli('begin', name, '-n', 'page', '--id', 'upgrade', '--type', 'update')).code, 0);
    await page.waitForSelector(`${row(name)} .segment[data-lifecycle=upgrade]`, { timeout: 2000 });
    // Nobody finishes the operation: it goes as far as Operating (the load balancer lets it out of traffic) and waits.
    await page.waitForSelector(`${row(name)} .segment[data-lifecycle=upgrade][data-phase=Operating]`);
    assert.match(await page.locator(`${row(name)} .waits`).innerText(), /^waiting for the operation controller to operate and finish \(update\)$/);
    const preCheck = await colourOf(page, `${row(name)} .segment[data-phase=PreCheck]`);
    const operating = await colourOf(page, `${row(name)} .segment[data-phase=Operating]`);
    assert.notEqual(preCheck, operating, 'each phase has its colour');
    assert.equal(await page.locator(`${row(name)} .traffic-left`).count(), 1, 'the moment it left traffic');

    await page.click(row(name));
    await page.waitForSelector(`[data-inspect="page/${name}"]`);
    assert.match(await page.locator('.inspect pre.report').innerText(), new RegExp(`^Pod page/${name}\\n {2}phase: Operating\\n {2}lifecycle upgrade \\(type update\\): Operating for `));

    assert.equal((await cli('finish', name, '-n', 'page', '--id', 'upgrade', '--type', 'update')).code, 0);
    await page.waitForSelector(`${row(name)} .phase[data-phase=ServiceAvailable]`);
    await page.waitForSelector(`${row(name)} .traffic-entered`);
    await page.waitForSelector(`[data-inspect="page/${name}"] pre.report:text-matches("phase: ServiceAvailable")`);
  });

  test("a PodTransitionRule's block shows its reason, on the pod and in the rule", async () => {
    await cluster.client.create(NAMESPACES, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'rules' } });
    await cluster.client.create(PODTRANSITIONRULES, {
      apiVersion: 'apps.kusionstack.io/v1alpha1',
      kind: 'PodTransitionRule',
      metadata: { name: 'gate', namespace: 'rules' },
      spec: { selector: { matchLabels: { app: 'web' } }, rules: [{ name: 'approved', labelCheck: { requires: { matchLabels: { approved: 'yes' } } } }] },
    });
    await cluster.client.create(PODS, controlledPod('rules', 'solo'));
    await page.waitForSelector(`${row('solo', 'rules')} .phase[data-phase=ServiceAvailable]`, { timeout: 15_000 });
    assert.equal((await cli('begin', 'solo', '-n', 'rules', '--id', 'upgrade', '--type', 'update')).code, 0);
    await page.waitForSelector(`${row('solo', 'rules')} .waits-text:text-matches("^blocked by PodTransitionRule gate: approved: ")`);
    // The reason is longer than its column: cut with an ellipsis, and whole under the pointer, above the rows below.
    const waits = `${row('solo', 'rules')} .waits-text`;
    assert.deepEqual(await visibility(page, waits), { clipped: true, covered: false });
    await page.hover(`${row('solo', 'rules')} .name`);
    assert.deepEqual(await visibility(page, waits), { clipped: false, covered: false });
    assert.match(await page.locator(waits).innerText(), /^blocked by PodTransitionRule gate: approved: block by label check policy, pod rules\/solo labels not match approved=yes$/);
    await page.mouse.move(0, 0);
    await page.click('[data-tab=rules]');
    const blocked = page.locator('[data-rule="rules/gate"] [data-blocked=solo]');
    await blocked.waitFor();
    assert.match(await blocked.innerText(), /^solo blocked in PreCheck\napproved: \S/);
  });

  test("GraceDelete's pod-delete lifecycle is drawn until the pod goes; a rolling update is photographed", async () => {
    const [, pod] = await webPods();
    const name = pod!.metadata.name!;
    await assert.rejects(cluster.client.delete(PODS, 'page', name), /pod deletion process is underway and being managed by PodOpsLifecycle/);
    await page.waitForSelector(`${row(name)} .segment[data-lifecycle=pod-delete]`);
    await page.waitForSelector(`.pod.gone[data-key="page/${name}"]`);

    await cluster.client.patch(DEPLOYMENTS, 'page', 'web', 'merge', { spec: { template: { spec: { containers: [{ name: 'web', image: 'nginx:1.28' }] } } } });
    await page.click('.windows button:text("1m")');
    // Two more pods on their way out, each through its pod-delete lifecycle.
    await until(() => page.locator('.pod:has(.segment[data-lifecycle=pod-delete])').count(), (n) => n >= 3, 'three pods through pod-delete');
    const out = join(tmpdir(), 'podops-test-output');
    await mkdir(out, { recursive: true });
    const file = join(out, 'dashboard-rolling-update.png');
    await page.screenshot({ path: file });
    console.log(`# the timeline during a rolling update: ${file}`);
  });

  test('2,000 pods: grouped by workload, and only the rows in view are in the DOM', async () => {
    const many: Sandbox = await startSandbox();
    try {
      const local = many.client();
      const pods = { group: '', version: 'v1', resource: 'pods' };
      await local.create({ group: '', version: 'v1', resource: 'namespaces' }, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'big' } });
      // Four StatefulSets own them (no controller runs in this sandbox to scale them; the garbage collector keeps
      // pods whose owner exists).
      const owners = [];
      for (let g = 0; g < 4; g++) {
        const spec = { replicas: 0, serviceName: 'db', selector: { matchLabels: { app: 'db' } }, template: { metadata: { labels: { app: 'db' } }, spec: { containers: [{ name: 'db', image: 'db' }] } } };
        const set = await local.create({ group: 'apps', version: 'v1', resource: 'statefulsets' }, { apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { name: `db-${g}`, namespace: 'big' }, spec }, { namespace: 'big' });
        owners.push({ apiVersion: 'apps/v1', kind: 'StatefulSet', name: `db-${g}`, uid: set.metadata.uid as string, controller: true });
      }
      for (let i = 0; i < 2000; i++) {
        const owner = owners[i % 4]!;
        await local.create(pods, { ...controlledPod('big', `db-${i % 4}-${i}`), metadata: { name: `db-${i % 4}-${i}`, namespace: 'big', labels: { [CONTROL_LABEL]: 'true' }, ownerReferences: [owner] } }, { namespace: 'big' });
      }
      const big = await browser.context.newPage();
      await big.goto((await serve(many.kubeconfig, 'big')).url);
      await big.waitForSelector('.shown:text("2000 of 2000 pods")');
      assert.match(await big.locator('.group').first().innerText(), /^▾\s*StatefulSet db-0\s*big\s*500 pods\s*500 Completing$/);
      const rendered = await big.locator('.item').count();
      assert.ok(rendered > 10 && rendered < 80, `${rendered} rows in the DOM`);
      await big.locator('.list').evaluate((list) => list.scrollTo(0, list.scrollHeight));
      await big.waitForSelector(`.pod[data-key="big/db-3-1999"]`);
      assert.ok((await big.locator('.item').count()) < 80);
      // Folding a group leaves its header.
      await big.locator('.list').evaluate((list) => list.scrollTo(0, 0));
      await big.click('.group[data-group="big/StatefulSet db-0"]');
      await big.waitForSelector('.group[data-group="big/StatefulSet db-1"]');
      assert.equal(await big.locator('.pod[data-key^="big/db-0-"]').count(), 0);
      assert.equal(await big.locator('.group[data-group="big/StatefulSet db-0"] .fold').innerText(), '▸');
      await big.close();
    } finally {
      await many.stop();
    }
  });

  test('an API server that cannot be reached, and a dashboard server that stopped, are said so', async () => {
    const port = await freePort();
    const lost = await browser.context.newPage();
    const unreachable = await serve(renderKubeconfig({ server: `http://127.0.0.1:${port}` }), 'any');
    await lost.goto(unreachable.url);
    const problem = lost.locator('[data-problem=unreachable]');
    await problem.waitFor();
    assert.equal(await problem.innerText(), `API server unreachable: cannot reach the API server http://127.0.0.1:${port}: connection refused`);
    assert.equal(await lost.locator('.note').first().innerText(), 'Waiting for the first list of pods from the API server…');

    const stopping = new AbortController();
    const stopped = await serve(cluster.sandbox.kubeconfig, 'page', stopping.signal);
    await lost.goto(stopped.url);
    await lost.waitForSelector('.live:text("live")');
    stopping.abort();
    await stopped.done;
    await lost.waitForSelector('[data-problem=disconnected]:text-matches("Lost the connection to the dashboard server")');
    assert.equal(await lost.locator('.live').innerText(), 'offline');
    await lost.close();
  });
});
