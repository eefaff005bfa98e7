// `podops status` against an API server: the controlled pods of a namespace as a table, with each
// lifecycle's phase and time in it (measured against an injected clock) and what it waits for.

import assert from 'node:assert/strict';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { before, describe, test } from 'node:test';
import { SERVICE_READY_GATE } from '../../src/api/protocol.ts';
import { NAMESPACES, PODS } from '../../src/kube/resources.ts';
import type { KubeObject } from '../../src/kube/client.ts';
import { runCli } from '../support/cli.ts';
import { L, PERM, pod } from '../support/pods.ts';
import { useSandboxClient } from '../support/sandbox-client.ts';

const T0 = 1717505885197871195n;
const at = (offsetMs: number): string => (T0 + BigInt(offsetMs) * 1_000_000n).toString();
/** 2m5.2s after T0: web-0 has been preparing for 2m0.2s, web-2 operating for 2m5.2s. */
const nowMs = Number(T0 / 1_000_000n) + 125_200;
const FINALIZER = 'prot.podopslifecycle.kusionstack.io/5f1c2a3b4d5e6f70';

const asObject = (p: ReturnType<typeof pod>): KubeObject => {
  const { status: _status, ...rest } = p;
  return rest as KubeObject;
};

describe('podops status', () => {
  const env = useSandboxClient();
  let kubeconfig: string;

  before(async () => {
    const { client, sandbox } = env;
    kubeconfig = join(await mkdtemp(join(tmpdir(), 'podops-status-')), 'kubeconfig');
    await writeFile(kubeconfig, sandbox.kubeconfig);
    for (const name of ['shop', 'other']) await client.create(NAMESPACES, { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
    const inShop = (options: Parameters<typeof pod>[0]) => asObject(pod({ namespace: 'shop', ...options }));
    // Preparing since +5 s, held by a cooperation controller's finalizer (the gate is already False).
    await client.create(
      PODS,
      inShop({
        name: 'web-0',
        finalizers: [FINALIZER],
        labels: {
          [L('operating', 'upgrade')]: at(0),
          [L('operation-type', 'upgrade')]: 'update',
          [L('pre-checked', 'upgrade')]: at(4_000),
          [PERM('update')]: at(4_000),
          [L('preparing', 'upgrade')]: at(5_000),
        },
      }),
    );
    await client.patch(PODS, 'shop', 'web-0', 'merge', { status: { conditions: [{ type: SERVICE_READY_GATE, status: 'False' }] } }, { subresource: 'status' });
    await client.create(PODS, inShop({ name: 'web-1', labels: { 'podopslifecycle.kusionstack.io/service-available': at(0) } }));
    // Operating since T0: the operation controller may act.
    await client.create(
      PODS,
      inShop({
        name: 'web-2',
        labels: {
          [L('operating', 'restart')]: at(-1_000),
          [L('operation-type', 'restart')]: 'restart',
          [L('pre-checked', 'restart')]: at(-500),
          [PERM('restart')]: at(-500),
          [L('operate', 'restart')]: at(0),
        },
      }),
    );
    await client.create(PODS, inShop({ name: 'not-ours', controlled: false }));
    await client.create(PODS, asObject(pod({ namespace: 'other', name: 'api-0', labels: { 'podopslifecycle.kusionstack.io/service-available': at(0) } })));
  });

  test('one row per controlled pod: phase, lifecycles with the time in their phase, and what each waits for', async () => {
    const { code, stdout, stderr } = await runCli(['status', '--kubeconfig', kubeconfig, '-n', 'shop'], { now: nowMs });
    assert.equal(stderr, '');
    assert.equal(code, 0);
    assert.equal(
      stdout,
      [
        'POD     PHASE              LIFECYCLES                        WAITING FOR',
        `web-0   Preparing          upgrade(update) Preparing 2m      waiting for protection finalizers: ${FINALIZER}`,
        'web-1   ServiceAvailable   -                                 -',
        'web-2   Operating          restart(restart) Operating 2m5s   waiting for the operation controller to operate and finish (restart)',
        '',
      ].join('\n'),
    );
  });

  test('-A adds a NAMESPACE column and lists every namespace', async () => {
    const { code, stdout } = await runCli(['status', '--kubeconfig', kubeconfig, '-A'], { now: nowMs });
    assert.equal(code, 0);
    const lines = stdout.trimEnd().split('\n');
    assert.match(lines[0]!, /^NAMESPACE +POD +PHASE +LIFECYCLES +WAITING FOR$/);
    assert.deepEqual(
      lines.slice(1).map((l) => l.split(/ {3,}/).slice(0, 3)),
      [
        ['other', 'api-0', 'ServiceAvailable'],
        ['shop', 'web-0', 'Preparing'],
        ['shop', 'web-1', 'ServiceAvailable'],
        ['shop', 'web-2', 'Operating'],
      ],
    );
  });

  test('a namespace without controlled pods says so', async () => {
    const { code, stdout } = await runCli(['status', '--kubeconfig', kubeconfig, '-n', 'empty']);
    assert.equal(code, 0);
    assert.equal(stdout, 'No pods under PodOpsLifecycle in namespace empty.\n');
  });
});

describe('podops status where RolloutLifecycles cannot be listed', () => {
  test('a refusal other than NotFound is an error, not "no rollouts"', async () => {
    // Pods may be listed, RolloutLifecycles not (403): the CRD is there, the user may not read it. The command
    // fails with the API server's answer, as for any other API error.
    const server = createServer((req, res) => {
      const forbidden = req.url?.includes('/rolloutlifecycles') === true;
      res.writeHead(forbidden ? 403 : 200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(forbidden ? { kind: 'Status', apiVersion: 'v1', status: 'Failure', message: 'rolloutlifecycles is forbidden', reason: 'Forbidden', code: 403 } : { kind: 'PodList', apiVersion: 'v1', metadata: {}, items: [] }));
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const kubeconfig = join(await mkdtemp(join(tmpdir(), 'podops-status-')), 'kubeconfig');
      const config = { clusters: [{ name: 'c', cluster: { server: url } }], users: [{ name: 'u', user: { token: 't' } }], contexts: [{ name: 'x', context: { cluster: 'c', user: 'u' } }] };
      await writeFile(kubeconfig, JSON.stringify({ apiVersion: 'v1', kind: 'Config', ...config, 'current-context': 'x' }));
      assert.deepEqual(await runCli(['status', '--kubeconfig', kubeconfig, '-n', 'shop']), {
        code: 1,
        stdout: '',
        stderr: 'podops status: GET /apis/apps.kusionstack.io/v1alpha1/namespaces/shop/rolloutlifecycles: rolloutlifecycles is forbidden\n',
      });
    } finally {
      server.close();
    }
  });
});
