// Strings from the cluster must not drive the terminal that shows podops' output: whoever can name a
// PodTransitionRule's rule, write an annotation, or make a hook's Job fail with a message would otherwise set the
// window title (ESC ] 2 ; … BEL), clear the screen (ESC [ 2 J) or hide the start of a line (CR) in the terminal of
// whoever runs `podops status`. Every command's output shows such characters escaped.

import assert from 'node:assert/strict';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { before, describe, test } from 'node:test';
import { TRANSITION_DETAIL_ANNOTATION_PREFIX } from '../../src/api/protocol.ts';
import { rolloutLifecycleCRD, type RolloutLifecycle } from '../../src/api/rolloutlifecycle.ts';
import type { KubeObject } from '../../src/kube/client.ts';
import { CUSTOM_RESOURCE_DEFINITIONS, NAMESPACES, PODS, ROLLOUTLIFECYCLES } from '../../src/kube/resources.ts';
import { runCli } from '../support/cli.ts';
import { L, PERM, pod, STAMP } from '../support/pods.ts';
import { useSandboxClient } from '../support/sandbox-client.ts';
import { until } from '../support/wait.ts';

/** Sets the window title, clears the screen, returns to the start of the line; and an 8-bit CSI. */
const HOSTILE = '\u001b]2;pwned\u0007\u001b[2Jrule\rX\u009b31m\u202e';
const SHOWN = '\\u001b]2;pwned\\u0007\\u001b[2Jrule\\rX\\u009b31m\\u202e';
/** Whether the text has a character a terminal takes as control, but the newlines and tabs of podops' own layout. */
const hasControl = (text: string): boolean =>
  [...text].some((c) => {
    const code = c.codePointAt(0) as number;
    return (code < 0x20 && c !== '\t' && c !== '\n') || (code >= 0x7f && code <= 0x9f) || (code >= 0x202a && code <= 0x202e) || (code >= 0x2066 && code <= 0x2069);
  });

const NS = 'esc';

describe('what podops prints from the cluster is escaped', () => {
  const env = useSandboxClient();
  let kubeconfig: string;

  before(async () => {
    const { client, sandbox } = env;
    kubeconfig = join(await mkdtemp(join(tmpdir(), 'podops-escapes-')), 'kubeconfig');
    await writeFile(kubeconfig, sandbox.kubeconfig);
    await client.create(NAMESPACES, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
    // A pod in PreCheck, blocked by a rule whose name and reason carry terminal controls (a rule's name is any string).
    const detail = JSON.stringify({ stage: 'PreCheck', passed: false, rejectInfo: [{ ruleName: HOSTILE, reason: `reason ${HOSTILE}` }] });
    const blocked = pod({
      namespace: NS,
      name: 'web-0',
      labels: { [L('operating', 'upgrade')]: STAMP, [L('operation-type', 'upgrade')]: 'update', [L('pre-check', 'upgrade')]: STAMP, [PERM('update')]: STAMP },
      annotations: { [`${TRANSITION_DETAIL_ANNOTATION_PREFIX}/budget`]: detail },
    });
    const { status: _status, ...object } = blocked;
    await client.create(PODS, object as KubeObject);
    // A rollout held by a hook whose Job failed with a hostile message.
    await client.create(CUSTOM_RESOURCE_DEFINITIONS, rolloutLifecycleCRD() as KubeObject);
    await until(() => client.list(ROLLOUTLIFECYCLES, { namespace: NS }).then(() => true, () => false), (ok) => ok, 'the RolloutLifecycle CRD served');
    await client.create(ROLLOUTLIFECYCLES, { apiVersion: 'apps.kusionstack.io/v1alpha1', kind: 'RolloutLifecycle', metadata: { name: 'web', namespace: NS }, spec: { targetRef: { kind: 'Deployment', name: 'web' }, hooks: [] } });
  });

  const setRollout = async (phase: 'Failed' | 'Held'): Promise<void> => {
    const now = new Date().toISOString();
    const status: RolloutLifecycle['status'] = {
      target: 'Deployment/web',
      rollout: { id: 'r1', type: 'ROLLOUT', templateHash: 'abc', startTime: now, phase, replicas: 2, newAvailable: 1, points: [], pointReached: '0/1', message: `hook smoke failed: ${HOSTILE}` },
      hooks: [{ name: 'smoke', point: 1, rollout: 'r1', templateHash: 'abc', job: 'web-smoke-abc', attempt: 1, phase: phase === 'Failed' ? 'Failed' : 'Running', startTime: now, message: HOSTILE }],
      conditions: phase === 'Failed' ? [{ type: 'Failed', status: 'True', lastTransitionTime: now, reason: 'HookFailed', message: HOSTILE }] : [],
    };
    await env.client.patch(ROLLOUTLIFECYCLES, NS, 'web', 'merge', { status }, { subresource: 'status' });
  };

  test('podops status: the rule, its reason and the rollout message are shown escaped', async () => {
    await setRollout('Held');
    const { code, stdout, stderr } = await runCli(['status', '--kubeconfig', kubeconfig, '-n', NS]);
    assert.equal(stderr, '');
    assert.equal(code, 0);
    assert.ok(!hasControl(stdout), stdout);
    assert.ok(stdout.includes(`blocked by PodTransitionRule budget: ${SHOWN}: reason ${SHOWN}`), stdout);
    assert.ok(stdout.includes(`hook smoke failed: ${SHOWN}`), stdout);
    // JSON output stays valid and holds the text itself: its escapes stand for the same characters.
    const json = await runCli(['status', '--kubeconfig', kubeconfig, '-n', NS, '-o', 'json']);
    assert.ok(!hasControl(json.stdout));
    const report = JSON.parse(json.stdout) as { rollouts: { hooks: { message: string }[] }[] };
    assert.equal(report.rollouts[0]?.hooks[0]?.message, HOSTILE);
  });

  test('podops rollout status: the hook messages are escaped; a Failed rollout exits with 1, a held one with 0', async () => {
    await setRollout('Held');
    const held = await runCli(['rollout', 'status', 'deployment/web', '--kubeconfig', kubeconfig, '-n', NS]);
    assert.equal(held.code, 0, held.stderr);
    await setRollout('Failed');
    const failed = await runCli(['rollout', 'status', 'deployment/web', '--kubeconfig', kubeconfig, '-n', NS]);
    assert.equal(failed.code, 1, failed.stderr);
    assert.ok(!hasControl(failed.stdout), failed.stdout);
    assert.ok(failed.stdout.includes(`web-smoke-abc for`) && failed.stdout.includes(`: ${SHOWN}`), failed.stdout);
    const overview = await runCli(['status', '--kubeconfig', kubeconfig, '-n', NS]);
    assert.equal(overview.code, 1, 'podops status lists a Failed rollout');
  });

  test('podops inspect of the pod read from the cluster', async () => {
    const read = await env.client.get(PODS, NS, 'web-0');
    const { code, stdout } = await runCli(['inspect', '-'], { stdin: JSON.stringify(read) });
    assert.equal(code, 0);
    assert.ok(!hasControl(stdout), stdout);
    assert.ok(stdout.includes(SHOWN), stdout);
  });

  test('an error quoting the API server: one line, escaped, exit code 1', async () => {
    const server = createServer((_req, res) => {
      res.writeHead(403, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', message: `pods is forbidden: ${HOSTILE}`, reason: 'Forbidden', code: 403 }));
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const config = join(await mkdtemp(join(tmpdir(), 'podops-escapes-')), 'kubeconfig');
      const clusters = [{ name: 'c', cluster: { server: url } }];
      await writeFile(config, JSON.stringify({ apiVersion: 'v1', kind: 'Config', clusters, users: [{ name: 'u', user: { token: 't' } }], contexts: [{ name: 'x', context: { cluster: 'c', user: 'u' } }], 'current-context': 'x' }));
      const { code, stdout, stderr } = await runCli(['status', '--kubeconfig', config, '-n', 'shop']);
      assert.equal(code, 1);
      assert.equal(stdout, '');
      assert.equal(stderr, `podops status: GET /api/v1/namespaces/shop/pods: pods is forbidden: ${SHOWN}\n`);
    } finally {
      server.close();
    }
  });
});
