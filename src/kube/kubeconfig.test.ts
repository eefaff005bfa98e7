import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { after, describe, test } from 'node:test';
import { KubeConfig } from '@kubernetes/client-node';
import { accessFromKubeconfig, inClusterAccess, KubeconfigError, loadDefaultAccess, mergeKubeconfigs, parseKubeconfig, readKubeconfigFile } from './kubeconfig.ts';

const dir = mkdtempSync(join(tmpdir(), 'podops-kubeconfig-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const file = (name: string, content: string): string => {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
};
const b64 = (s: string): string => Buffer.from(s).toString('base64');

const config = (o: { server?: string; cluster?: string; user?: string; context?: string; current?: string; namespace?: string } = {}): string => `
apiVersion: v1
kind: Config
clusters:
- name: ${o.cluster ?? 'c1'}
  cluster:
    server: ${o.server ?? 'https://10.0.0.1:6443'}
    certificate-authority: ca.pem
users:
- name: ${o.user ?? 'u1'}
  user:
    token: tok-${o.user ?? 'u1'}
contexts:
- name: ${o.context ?? 'ctx1'}
  context:
    cluster: ${o.cluster ?? 'c1'}
    user: ${o.user ?? 'u1'}
    ${o.namespace ? `namespace: ${o.namespace}` : ''}
${o.current === '' ? '' : `current-context: ${o.current ?? o.context ?? 'ctx1'}`}
`;

file('ca.pem', 'CA-PEM');
file('client.crt', 'CLIENT-CRT');
file('client.key', 'CLIENT-KEY');

describe('kubeconfig files', () => {
  test('the current context resolves to its server, namespace, CA file relative to the kubeconfig and token', async () => {
    const access = accessFromKubeconfig(readKubeconfigFile(file('one.yaml', config({ namespace: 'team-a' }))));
    assert.equal(access.server.toString(), 'https://10.0.0.1:6443/');
    assert.equal(access.namespace, 'team-a');
    const resolved = await access.credentials.resolve();
    assert.equal(resolved.ca?.toString(), 'CA-PEM');
    assert.equal(resolved.rejectUnauthorized, true);
    assert.equal(resolved.headers.Authorization, 'Bearer tok-u1');
  });

  test('merging: the first file to name an entry and the first current-context win', async () => {
    const first = readKubeconfigFile(file('a.yaml', config({ current: '', server: 'https://first:1' })));
    const second = readKubeconfigFile(file('b.yaml', config({ context: 'ctx2', user: 'u2', cluster: 'c2', current: 'ctx2' }) + ''));
    const merged = mergeKubeconfigs([first, second]);
    assert.equal(merged.currentContext, 'ctx2');
    assert.equal(accessFromKubeconfig(merged, 'ctx1').server.host, 'first:1');
    const env = { KUBECONFIG: [join(dir, 'a.yaml'), join(dir, 'b.yaml')].join(delimiter) };
    const access = loadDefaultAccess(env);
    assert.equal(access.server.host, '10.0.0.1:6443');
    assert.equal((await access.credentials.resolve()).headers.Authorization, 'Bearer tok-u2');
  });

  test('client certificates, CA data, basic auth and impersonation agree with @kubernetes/client-node', async () => {
    const text = `
clusters:
- name: c
  cluster: { server: "https://api.example.com", certificate-authority-data: ${b64('CA-DATA')}, tls-server-name: api.internal }
users:
- name: files
  user: { client-certificate: ${join(dir, 'client.crt')}, client-key: ${join(dir, 'client.key')}, as: jane, as-groups: [devs, ops] }
- name: data
  user: { client-certificate-data: ${b64('CRT-DATA')}, client-key-data: ${b64('KEY-DATA')} }
- name: basic
  user: { username: admin, password: s3cret }
contexts:
- { name: files, context: { cluster: c, user: files } }
- { name: data, context: { cluster: c, user: data } }
- { name: basic, context: { cluster: c, user: basic } }
current-context: files
`;
    for (const context of ['files', 'data', 'basic']) {
      const ours = await accessFromKubeconfig(parseKubeconfig('test', text, dir), context).credentials.resolve();
      const kc = new KubeConfig();
      kc.loadFromString(text);
      kc.setCurrentContext(context);
      const theirs: { ca?: Buffer; cert?: Buffer; key?: Buffer; auth?: string; headers?: Record<string, string> } = {};
      await kc.applyToHTTPSOptions(theirs as never);
      assert.equal(ours.ca?.toString(), theirs.ca?.toString(), context);
      assert.equal(ours.cert?.toString(), theirs.cert?.toString(), context);
      assert.equal(ours.key?.toString(), theirs.key?.toString(), context);
      if (theirs.auth) assert.equal(ours.headers.Authorization, `Basic ${Buffer.from(theirs.auth).toString('base64')}`);
      assert.equal(ours.servername, 'api.internal');
    }
    const files = await accessFromKubeconfig(parseKubeconfig('test', text, dir), 'files').credentials.resolve();
    assert.equal(files.headers['Impersonate-User'], 'jane');
    assert.equal(files.headers['Impersonate-Group'], 'devs, ops');
  });

  test('insecure-skip-tls-verify turns verification off and ignores the CA', async () => {
    const text = 'clusters: [{name: c, cluster: {server: "https://x", insecure-skip-tls-verify: true, certificate-authority: ca.pem}}]\nusers: [{name: u, user: {}}]\ncontexts: [{name: x, context: {cluster: c, user: u}}]\ncurrent-context: x\n';
    const resolved = await accessFromKubeconfig(parseKubeconfig('test', text, dir)).credentials.resolve();
    assert.equal(resolved.rejectUnauthorized, false);
    assert.equal(resolved.ca, undefined);
  });

  test('a tokenFile is read again at each resolve (rotated tokens)', async () => {
    const tokenPath = file('token', 'first\n');
    const text = `clusters: [{name: c, cluster: {server: "https://x"}}]\nusers: [{name: u, user: {tokenFile: token}}]\ncontexts: [{name: x, context: {cluster: c, user: u}}]\ncurrent-context: x\n`;
    const access = accessFromKubeconfig(parseKubeconfig('test', text, dir));
    assert.equal((await access.credentials.resolve()).headers.Authorization, 'Bearer first');
    writeFileSync(tokenPath, 'second');
    assert.equal((await access.credentials.resolve()).headers.Authorization, 'Bearer second');
  });

  test('errors name what is wrong', () => {
    const throwsKubeconfig = (fn: () => unknown, message: RegExp): void => assert.throws(fn, (err: unknown) => err instanceof KubeconfigError && message.test(err.message));
    throwsKubeconfig(() => readKubeconfigFile(join(dir, 'missing.yaml')), /^cannot read kubeconfig .*missing\.yaml: no such file or directory$/);
    throwsKubeconfig(() => parseKubeconfig('bad.yaml', 'clusters: [unclosed', dir), /^invalid kubeconfig bad\.yaml: Flow sequence in block collection must be sufficiently indented and end with a \] \(line 1, column 20\)$/);
    throwsKubeconfig(() => parseKubeconfig('list.yaml', '- a\n- b\n', dir), /expected a mapping/);
    throwsKubeconfig(() => parseKubeconfig('x', 'clusters: [{cluster: {server: "https://x"}}]', dir), /clusters\[0\] has no name/);
    throwsKubeconfig(() => accessFromKubeconfig(parseKubeconfig('x', config({ current: '' }), dir)), /^kubeconfig x has no current-context/);
    throwsKubeconfig(() => accessFromKubeconfig(parseKubeconfig('x', config(), dir), 'nope'), /context "nope" is not in kubeconfig x \(known: ctx1\)/);
    throwsKubeconfig(() => accessFromKubeconfig(parseKubeconfig('x', config().replace('cluster: c1\n    user', 'cluster: c9\n    user'), dir)), /names cluster "c9", which is not in kubeconfig x$/);
    throwsKubeconfig(() => accessFromKubeconfig(parseKubeconfig('x', config({ server: 'not a url' }), dir)), /invalid server URL: not a url/);
    const gcp = 'clusters: [{name: c, cluster: {server: "https://x"}}]\nusers: [{name: u, user: {auth-provider: {name: gcp}}}]\ncontexts: [{name: x, context: {cluster: c, user: u}}]\ncurrent-context: x\n';
    throwsKubeconfig(() => accessFromKubeconfig(parseKubeconfig('x', gcp, dir)), /auth-provider "gcp", which podops does not support; use an exec credential plugin/);
    throwsKubeconfig(() => loadDefaultAccess({ HOME: dir }), /^no kubeconfig: KUBECONFIG is not set and .*\.kube\/config does not exist; pass --kubeconfig$/);
  });

  test('a file that defines no cluster and no context is not a kubeconfig; beside one that does, it adds nothing', () => {
    const notKubeconfig = (path: string): RegExp => new RegExp(`^${path.replaceAll('.', '\\.')} is not a kubeconfig: it defines no clusters and no contexts$`);
    for (const content of ['', 'foo: bar\n', 'users: [{name: u, user: {token: t}}]\n']) {
      const path = file('not-a-kubeconfig.yaml', content);
      assert.throws(() => accessFromKubeconfig(readKubeconfigFile(path)), (err: unknown) => err instanceof KubeconfigError && notKubeconfig(path).test(err.message));
    }
    const empty = file('empty.yaml', '');
    assert.throws(() => loadDefaultAccess({ KUBECONFIG: [empty, empty].join(delimiter) }), (err: unknown) => err instanceof KubeconfigError && notKubeconfig([empty, empty].join(delimiter)).test(err.message));
    assert.equal(loadDefaultAccess({ KUBECONFIG: [empty, file('real.yaml', config())].join(delimiter) }).server.host, '10.0.0.1:6443');
  });
});

describe('exec credential plugins', () => {
  const plugin = file(
    'plugin.mjs',
    `import { appendFileSync } from 'node:fs';
const info = JSON.parse(process.env.KUBERNETES_EXEC_INFO);
appendFileSync(process.env.CALLS, 'x');
if (process.env.FAIL) { console.error('no credentials for you'); process.exit(1); }
const status = { token: 'exec-' + process.env.EXTRA + '-' + (info.spec.cluster ? info.spec.cluster.server : 'none') };
if (process.env.EXPIRES) status.expirationTimestamp = process.env.EXPIRES;
console.log(JSON.stringify({ apiVersion: info.apiVersion, kind: 'ExecCredential', status }));
`,
  );
  const execConfig = (env: Record<string, string>, extra = ''): string => `
clusters: [{name: c, cluster: {server: "https://api.example.com:6443"}}]
users:
- name: u
  user:
    exec:
      apiVersion: client.authentication.k8s.io/v1
      command: ${process.execPath}
      args: [${plugin}]
      interactiveMode: Never
      installHint: "install the plugin from example.com"
      env: [${Object.entries(env).map(([name, value]) => `{name: ${name}, value: "${value}"}`).join(', ')}]
      ${extra}
contexts: [{name: x, context: {cluster: c, user: u}}]
current-context: x
`;
  const calls = (path: string): number => readFileSync(path, 'utf8').length;

  test('the plugin is run with KUBERNETES_EXEC_INFO and its env; the token is cached until it expires or is refused', async () => {
    const callsPath = file('calls-1', '');
    const expires = new Date(Date.now() + 60_000).toISOString();
    const access = accessFromKubeconfig(parseKubeconfig('x', execConfig({ CALLS: callsPath, EXTRA: 'e1', EXPIRES: expires }, 'provideClusterInfo: true'), dir));
    assert.equal((await access.credentials.resolve()).headers.Authorization, 'Bearer exec-e1-https://api.example.com:6443/');
    await access.credentials.resolve();
    assert.equal(calls(callsPath), 1, 'cached while valid');
    await access.credentials.resolve(Date.now() + 120_000);
    assert.equal(calls(callsPath), 2, 'run again once expired');
    access.credentials.invalidate();
    await access.credentials.resolve();
    assert.equal(calls(callsPath), 3, 'run again after a 401');
  });

  test('a failing plugin: its stderr and the install hint', async () => {
    const access = accessFromKubeconfig(parseKubeconfig('x', execConfig({ CALLS: file('calls-2', ''), FAIL: '1' }), dir));
    await assert.rejects(access.credentials.resolve(), (err: unknown) => err instanceof KubeconfigError && /failed: no credentials for you\ninstall the plugin from example\.com$/.test(err.message));
  });

  test('an unknown apiVersion and an interactive-only plugin are refused', async () => {
    const v1alpha = accessFromKubeconfig(parseKubeconfig('x', execConfig({ CALLS: file('calls-3', '') }).replace('client.authentication.k8s.io/v1', 'client.authentication.k8s.io/v1alpha1'), dir));
    await assert.rejects(v1alpha.credentials.resolve(), /apiVersion "client.authentication.k8s.io\/v1alpha1" is not supported/);
    const interactive = accessFromKubeconfig(parseKubeconfig('x', execConfig({ CALLS: file('calls-4', '') }).replace('interactiveMode: Never', 'interactiveMode: Always'), dir));
    await assert.rejects(interactive.credentials.resolve(), /needs a terminal/);
  });
});

describe('in-cluster', () => {
  test('the service host and port from the environment; token, CA and namespace from the mounted account', async () => {
    const account = mkdtempSync(join(tmpdir(), 'podops-sa-'));
    writeFileSync(join(account, 'token'), 'sa-token');
    writeFileSync(join(account, 'ca.crt'), 'SA-CA');
    writeFileSync(join(account, 'namespace'), 'podops-system');
    const access = inClusterAccess({ KUBERNETES_SERVICE_HOST: 'fd00::1', KUBERNETES_SERVICE_PORT: '443' }, account);
    assert.equal(access.server.toString(), 'https://[fd00::1]/');
    assert.equal(access.namespace, 'podops-system');
    const resolved = await access.credentials.resolve();
    assert.equal(resolved.headers.Authorization, 'Bearer sa-token');
    assert.equal(resolved.ca?.toString(), 'SA-CA');
    assert.throws(() => inClusterAccess({}, account), /not running in a cluster/);
    assert.equal(loadDefaultAccess({ HOME: dir, KUBERNETES_SERVICE_HOST: '10.96.0.1', KUBERNETES_SERVICE_PORT: '443' }).server.host, '10.96.0.1', 'no kubeconfig: in-cluster');
  });
});
