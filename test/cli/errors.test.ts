// What a new user sees when something is wrong: one line naming the command and the problem, no stack trace,
// exit code 1 for a cluster that cannot be used or a package that is not installed, and 2 for malformed arguments.

import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer as createHttpsServer } from 'node:https';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { ConnectionError, KubeClient } from '../../src/kube/client.ts';
import { PODS } from '../../src/kube/resources.ts';
import { runCli } from '../support/cli.ts';
import { localCertificates } from '../support/tls.ts';
import { freePort } from '../support/wait.ts';

let dir: string;
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'podops-cli-errors-'));
});
after(() => rm(dir, { recursive: true, force: true }));

const file = async (name: string, content: string): Promise<string> => {
  const path = join(dir, name);
  await writeFile(path, content);
  return path;
};

const kubeconfigText = (server: string, cluster: Record<string, string> = {}): string =>
  JSON.stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'c', cluster: { server, ...cluster } }],
    users: [{ name: 'u', user: { token: 't' } }],
    contexts: [{ name: 'x', context: { cluster: 'c', user: 'u' } }],
    'current-context': 'x',
  });

const listening = async <T extends Server>(server: T): Promise<T & { port: number }> => {
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return Object.assign(server, { port: (server.address() as AddressInfo).port });
};

describe('an API server podops cannot use: which server, and why, in words', () => {
  const servers: Server[] = [];
  after(() => servers.forEach((s) => s.close()));
  const pki = localCertificates(['127.0.0.1']);
  const otherPki = localCertificates(['127.0.0.1']);
  const httpsServer = async (): Promise<number> => {
    const { serving } = await pki;
    const server = await listening(createHttpsServer({ cert: serving.cert, key: serving.key }, (_req, res) => res.end('{}')));
    servers.push(server);
    return server.port;
  };

  const cases: [string, () => Promise<{ server: string; cluster?: Record<string, string> }>, string][] = [
    ['nothing listens', async () => ({ server: `https://127.0.0.1:${await freePort()}` }), 'connection refused'],
    ['a host name that does not resolve', async () => ({ server: 'https://podops-test.invalid:6443' }), '(host not found|host name lookup failed \\(DNS temporarily unavailable\\))'],
    [
      'the connection is closed before an answer',
      async () => {
        const server = await listening(createServer((socket) => socket.destroy()));
        servers.push(server);
        return { server: `https://127.0.0.1:${server.port}` };
      },
      'connection reset',
    ],
    [
      'a certificate another CA signed',
      async () => ({ server: `https://127.0.0.1:${await httpsServer()}`, cluster: { 'certificate-authority-data': Buffer.from((await otherPki).ca.cert).toString('base64') } }),
      'TLS certificate signed by an unknown authority',
    ],
    [
      'a certificate for another host',
      async () => ({
        server: `https://127.0.0.1:${await httpsServer()}`,
        cluster: { 'certificate-authority-data': Buffer.from((await pki).ca.cert).toString('base64'), 'tls-server-name': 'api.example.com' },
      }),
      'TLS certificate does not match the host name \\(Host: api\\.example\\.com\\. is not [^\\n]*\\)',
    ],
  ];
  for (const [name, start, reason] of cases) {
    test(name, async () => {
      const { server, cluster } = await start();
      const kubeconfig = await file('kubeconfig', kubeconfigText(server, cluster));
      for (const args of [['status', '-n', 'demo'], ['begin', 'web-0', '--id', 'up', '--type', 'update']]) {
        const result = await runCli([...args, '--kubeconfig', kubeconfig]);
        const pattern = new RegExp(`^podops ${args[0]}: cannot reach the API server ${server.replaceAll('.', '\\.')}: ${reason}\\n$`);
        assert.match(result.stderr, pattern);
        assert.equal(result.code, 1);
        assert.equal(result.stdout, '');
      }
    });
  }

  test('the client keeps the cause for logs, says which request timed out, and leaves an abort an AbortError', async () => {
    const silent = await listening(createServer(() => {}));
    servers.push(silent);
    const server = `http://127.0.0.1:${silent.port}`;
    const client = KubeClient.fromKubeconfigText(kubeconfigText(server), { timeoutMs: 100 });
    try {
      await assert.rejects(client.get(PODS, 'demo', 'web-0'), (err: unknown) => {
        assert.ok(err instanceof ConnectionError);
        assert.equal(err.message, `cannot reach the API server ${server}: timed out (no answer to GET /api/v1/namespaces/demo/pods/web-0 within 100 ms)`);
        return true;
      });
      const refused = KubeClient.fromKubeconfigText(kubeconfigText(`http://127.0.0.1:${await freePort()}`));
      await assert.rejects(refused.get(PODS, 'demo', 'web-0'), (err: unknown) => err instanceof ConnectionError && (err.cause as NodeJS.ErrnoException).code === 'ECONNREFUSED');
      refused.close();
      await assert.rejects(client.get(PODS, 'demo', 'web-0', AbortSignal.timeout(20)), { name: 'AbortError' });
    } finally {
      client.close();
    }
  });
});

describe('a file that is not a usable kubeconfig', () => {
  const cases: [string, () => Promise<string>, (path: string) => string][] = [
    ['an empty file', async () => '/dev/null', () => '/dev/null is not a kubeconfig: it defines no clusters and no contexts'],
    ['some other YAML', () => file('values.yaml', 'foo: bar\n'), (path) => `${path} is not a kubeconfig: it defines no clusters and no contexts`],
    [
      'broken YAML',
      () => file('broken.yaml', 'clusters: [unclosed\n'),
      (path) => `invalid kubeconfig ${path}: Flow sequence in block collection must be sufficiently indented and end with a ] (line 2, column 1)`,
    ],
  ];
  for (const [name, make, message] of cases) {
    test(`${name}: one line saying so`, async () => {
      const path = await make();
      const result = await runCli(['status', '--kubeconfig', path]);
      assert.deepEqual(result, { code: 1, stdout: '', stderr: `podops status: ${message(path)}\n` });
    });
  }
});

describe('a mistyped command or a missing file, in words', () => {
  test('a command podops does not have: what it may have meant, as kubectl answers, not the whole help', async () => {
    assert.deepEqual(await runCli(['stauts']), {
      code: 2,
      stdout: '',
      stderr: 'podops: unknown command "stauts"\n\nDid you mean this?\n\tstatus\n\nRun \'podops --help\' for the commands.\n',
    });
    assert.match((await runCli(['rollouts'])).stderr, /Did you mean this\?\n\trollout\n/);
    assert.deepEqual(await runCli(['xyzzy']), { code: 2, stdout: '', stderr: 'podops: unknown command "xyzzy"\n\nRun \'podops --help\' for the commands.\n' });
  });

  test('a kubeconfig that does not exist', async () => {
    const path = join(dir, 'nowhere', 'kubeconfig');
    assert.deepEqual(await runCli(['status', '--kubeconfig', path]), { code: 1, stdout: '', stderr: `podops status: cannot read kubeconfig ${path}: no such file or directory\n` });
  });
});

describe('podops up and podops sandbox do not take over a kubeconfig', () => {
  const sandboxKubeconfig = (server: string): string =>
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'podops-sandbox', cluster: { server } }],
      users: [{ name: 'podops-sandbox', user: { token: 'podops-sandbox' } }],
      contexts: [{ name: 'podops-sandbox', context: { cluster: 'podops-sandbox', user: 'podops-sandbox' } }],
      'current-context': 'podops-sandbox',
    });

  test('another instance still serves the file: said so, and the file is left alone', async () => {
    // The first instance's API server, as far as a second one can tell: something answers at its address.
    const first = await listening(createServer((socket) => socket.end()));
    try {
      const text = sandboxKubeconfig(`http://127.0.0.1:${first.port}`);
      const path = await file('running.kubeconfig', text);
      for (const command of ['up', 'sandbox']) {
        const result = await runCli([command, '--kubeconfig', path]);
        assert.deepEqual(result, {
          code: 1,
          stdout: '',
          stderr: `podops ${command}: another podops up or podops sandbox is running with ${path}: its API server http://127.0.0.1:${first.port} answers. Stop that one first, or start this one with a kubeconfig of its own: --kubeconfig PATH (npm start -- --kubeconfig PATH)\n`,
        });
        assert.equal(await readFile(path, 'utf8'), text, 'the file is untouched');
      }
    } finally {
      first.close();
    }
  });

  test('a kubeconfig of another cluster is never overwritten', async () => {
    const path = await file('mine.kubeconfig', kubeconfigText('https://cluster.example.com:6443'));
    const result = await runCli(['up', '--kubeconfig', path]);
    assert.equal(result.code, 1);
    assert.equal(result.stderr, `podops up: ${path} is a kubeconfig podops up did not write (its current context is "x"), which it would overwrite: give it another file with --kubeconfig PATH\n`);
  });
});

describe('malformed arguments', () => {
  const cases: [string[], string][] = [
    [['status', '--bogus'], 'unknown option "--bogus"'],
    [['inspect', '--bogus'], 'unknown option "--bogus"'],
    [['status', '-x'], 'unknown option "-x"'],
    [['status', '-o'], 'option -o needs a value'],
    [['status', '--output', '-A'], 'option --output needs a value, got the option-like "-A"; write --output=-A if that is the value'],
    [['status', '--all-namespaces=yes'], 'option --all-namespaces takes no value, got "yes"'],
    [['manifests', 'extra'], 'unexpected argument "extra"'],
    [['sandbox', 'extra'], 'unexpected argument "extra"'],
  ];
  for (const [args, message] of cases) {
    test(`podops ${args.join(' ')}: ${message}`, async () => {
      assert.deepEqual(await runCli(args), { code: 2, stdout: '', stderr: `podops ${args[0]}: ${message} (see podops ${args[0]} --help)\n` });
    });
  }
});

describe('a production install, which has no sandbox', () => {
  // Resolves @podops/sandbox as from a directory without node_modules: Node's own error for a package that is
  // not installed.
  const withoutSandbox = `
    import { registerHooks } from 'node:module';
    registerHooks({ resolve: (specifier, context, next) => next(specifier, specifier === '@podops/sandbox' ? { ...context, parentURL: 'file:///' } : context) });`;
  const podops = (args: string[]): Promise<{ code: number; stdout: string; stderr: string }> =>
    new Promise((resolve) => {
      const main = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));
      execFile(process.execPath, ['--import', `data:text/javascript,${encodeURIComponent(withoutSandbox)}`, main, ...args], (err, stdout, stderr) =>
        resolve({ code: typeof err?.code === 'number' ? err.code : 0, stdout, stderr }),
      );
    });

  for (const command of ['up', 'sandbox']) {
    test(`podops ${command}: one line saying which package is missing and how to install it`, async () => {
      assert.deepEqual(await podops([command, '--kubeconfig', join(dir, `${command}.kubeconfig`)]), {
        code: 1,
        stdout: '',
        stderr: `podops ${command}: needs the sandbox package @podops/sandbox, which a production install leaves out: install it with npm install @podops/sandbox (in this repository, npm ci installs it)\n`,
      });
    });
  }

  test('podops up --help needs no sandbox', async () => {
    const { code, stdout } = await podops(['up', '--help']);
    assert.equal(code, 0);
    assert.match(stdout, /^Usage: podops up/);
  });
});
