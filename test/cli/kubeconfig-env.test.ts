// Commands find the cluster through the environment they are given ($KUBECONFIG, then $HOME/.kube/config),
// never through the environment of the process that runs them.

import assert from 'node:assert/strict';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { startSandbox, type Sandbox } from '@podops/sandbox';
import { runCli } from '../support/cli.ts';

describe('podops status: where the kubeconfig comes from', () => {
  let sandbox: Sandbox;
  let dir: string;
  before(async () => {
    sandbox = await startSandbox();
    dir = await mkdtemp(join(tmpdir(), 'podops-env-'));
    await writeFile(join(dir, 'kubeconfig'), sandbox.kubeconfig);
  });
  after(() => sandbox.stop());

  test('$KUBECONFIG of the command', async () => {
    const result = await runCli(['status'], { env: { KUBECONFIG: join(dir, 'kubeconfig'), HOME: dir } });
    assert.equal(result.stderr, '');
    assert.equal(result.stdout, 'No pods under PodOpsLifecycle in namespace default.\n');
    assert.equal(result.code, 0);
  });

  test('neither $KUBECONFIG nor ~/.kube/config: one clear line', async () => {
    const result = await runCli(['status'], { env: { HOME: dir } });
    assert.notEqual(result.code, 0);
    assert.equal(result.stderr.trim(), `podops status: no kubeconfig: KUBECONFIG is not set and ${join(dir, '.kube', 'config')} does not exist; pass --kubeconfig`);
  });
});
