// `kubectl podops …`: the package ships a `kubectl-podops` executable, so once podops is installed kubectl finds
// it as a plugin. kubectl runs a plugin with the arguments after its name, as given, and its own environment
// (KUBECONFIG included): podops' flags have kubectl's names (--kubeconfig, --context, -n).

import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { KubeObject } from '../../src/kube/client.ts';
import { NAMESPACES, PODS } from '../../src/kube/resources.ts';
import { kubectlPath, skipWithoutKubectl } from '../support/kubectl.ts';
import { pod } from '../support/pods.ts';
import { useSandboxClient } from '../support/sandbox-client.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));

test("the package's bin has kubectl-podops, the same program as podops", async () => {
  const { bin } = JSON.parse(await readFile(join(root, 'package.json'), 'utf8')) as { bin: Record<string, string> };
  assert.equal(bin['kubectl-podops'], bin.podops);
});

describe('kubectl podops', { skip: skipWithoutKubectl }, () => {
  const env = useSandboxClient();
  let kubeconfig: string;
  let plugins: string;

  before(async () => {
    const { client, sandbox } = env;
    const dir = await mkdtemp(join(tmpdir(), 'podops-plugin-'));
    kubeconfig = join(dir, 'kubeconfig');
    await writeFile(kubeconfig, sandbox.kubeconfig);
    await client.create(NAMESPACES, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'demo' } });
    const { status: _status, ...web } = pod({ namespace: 'demo', name: 'web-0', labels: { 'podopslifecycle.kusionstack.io/service-available': '1' } });
    await client.create(PODS, web as KubeObject);
    // What npm links for the bin entry, run from this checkout's sources (the build is of the same file).
    const { bin } = JSON.parse(await readFile(join(root, 'package.json'), 'utf8')) as { bin: Record<string, string> };
    const source = join(root, (bin['kubectl-podops'] ?? '').replace(/^dist\//, '').replace(/\.js$/, '.ts'));
    plugins = join(dir, 'bin');
    await mkdir(plugins);
    const executable = join(plugins, 'kubectl-podops');
    await writeFile(executable, `#!/bin/sh\nexec "${process.execPath}" "${source}" "$@"\n`);
    await chmod(executable, 0o755);
  });

  const kubectl = (args: string[], extraEnv: NodeJS.ProcessEnv): Promise<{ code: number; stdout: string; stderr: string }> =>
    new Promise((resolve) => {
      const environment = { PATH: `${plugins}${delimiter}${process.env.PATH ?? ''}`, HOME: plugins, ...extraEnv };
      execFile(kubectlPath!, args, { env: environment }, (err, stdout, stderr) => resolve({ code: typeof err?.code === 'number' ? err.code : 0, stdout, stderr }));
    });

  test('kubectl podops status -n demo, with KUBECONFIG from the environment', async () => {
    const { code, stdout, stderr } = await kubectl(['podops', 'status', '-n', 'demo'], { KUBECONFIG: kubeconfig });
    assert.equal(stderr, '');
    assert.equal(code, 0);
    assert.match(stdout, /^POD +PHASE +LIFECYCLES +WAITING FOR\nweb-0 +ServiceAvailable /);
  });

  test('the kubeconfig flags after the plugin name reach podops', async () => {
    const { code, stdout } = await kubectl(['podops', 'status', '--kubeconfig', kubeconfig, '--context', 'podops-sandbox', '-n', 'demo'], {});
    assert.equal(code, 0);
    assert.match(stdout, /\nweb-0 +ServiceAvailable /);
    const typo = await kubectl(['podops', 'stauts'], {});
    assert.equal(typo.code, 2);
    assert.match(typo.stderr, /Did you mean this\?\n\tstatus\n/);
  });
});
