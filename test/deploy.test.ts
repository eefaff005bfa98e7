// deploy/ is generated from src/operator/manifests.ts: it must match what the code generates today, what
// `podops manifests` prints, and grant podops exactly the API access its code uses.

import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { test } from 'node:test';
import { parseAllDocuments } from 'yaml';
import { PODTRANSITIONRULES } from '../src/controllers/transition-controller.ts';
import * as resources from '../src/kube/resources.ts';
import type { ResourceType } from '../src/kube/resources.ts';
import { deployFiles } from '../src/operator/deploy-files.ts';
import { DEFAULT_MANIFEST_OPTIONS, manifests } from '../src/operator/manifests.ts';
import { runCli } from './support/cli.ts';
import { renderTemplate } from './support/helm-template.ts';

const ROOT = join(import.meta.dirname, '..');

interface Rule {
  apiGroups: string[];
  resources: string[];
  verbs: string[];
  resourceNames?: string[];
}
interface Webhook {
  name: string;
  objectSelector?: unknown;
  failurePolicy?: string;
  timeoutSeconds?: number;
  sideEffects?: string;
  rules: { operations: string[]; apiGroups: string[]; apiVersions: string[]; resources: string[] }[];
}
type Manifest = { kind: string; metadata: { name: string; namespace?: string }; rules?: Rule[]; webhooks?: Webhook[] } & Record<string, unknown>;

const objects = () => manifests() as Manifest[];
const byKind = (kind: string): Manifest => {
  const found = objects().find((o) => o.kind === kind);
  assert.ok(found, `the manifests hold a ${kind}`);
  return found;
};
const parseYaml = (text: string): unknown[] => parseAllDocuments(text).map((d) => d.toJS() as unknown);

test('deploy/ is up to date (run `npm run generate:deploy` after changing the manifests)', async () => {
  for (const [path, content] of Object.entries(deployFiles())) {
    assert.equal(await readFile(join(ROOT, 'deploy', path), 'utf8'), content, `deploy/${path} is stale`);
  }
});

test('`podops manifests` prints YAML holding exactly the objects of deploy/manifests', async () => {
  const { code, stdout, stderr } = await runCli(['manifests']);
  assert.equal(code, 0, stderr);
  const printed = parseYaml(stdout);
  assert.deepEqual(printed, parseYaml(await readFile(join(ROOT, 'deploy', 'manifests', 'podops.yaml'), 'utf8')));
  assert.deepEqual(printed.map((o) => (o as Manifest).kind), objects().map((o) => o.kind));

  const elsewhere = await runCli(['manifests', '--namespace', 'ops']);
  assert.equal(elsewhere.code, 0, elsewhere.stderr);
  for (const object of parseYaml(elsewhere.stdout) as Manifest[]) {
    if (object.metadata.namespace !== undefined) assert.equal(object.metadata.namespace, 'ops', `${object.kind}/${object.metadata.name} is installed in --namespace`);
  }
});

test('the pod webhooks only see controlled pods, fail closed and answer within 5 s', () => {
  const controlled = { matchExpressions: [{ key: 'kusionstack.io/control', operator: 'In', values: ['true'] }] };
  const validating = byKind('ValidatingWebhookConfiguration').webhooks?.find((w) => w.name === 'validating-pod.apps.kusionstack.io');
  assert.deepEqual(validating?.objectSelector, controlled);
  assert.equal(validating?.failurePolicy, 'Fail');
  assert.equal(validating?.timeoutSeconds, 5);
  assert.deepEqual(validating?.rules.map((r) => [r.resources, r.operations]), [[['pods'], ['CREATE', 'UPDATE', 'DELETE']]]);

  const mutating = byKind('MutatingWebhookConfiguration').webhooks?.find((w) => w.name === 'mutating-pod.apps.kusionstack.io');
  assert.ok(mutating);
  assert.deepEqual(mutating.objectSelector, controlled);
  assert.equal(mutating.failurePolicy, 'Fail');
  assert.equal(mutating.timeoutSeconds, 5);
  assert.deepEqual(mutating.rules, [{ operations: ['CREATE', 'UPDATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods', 'pods/status'], scope: 'Namespaced' }]);
  // Dry-run requests (kubectl --dry-run=server) are sent to the webhooks rather than refused. Only the pod
  // validation (GraceDelete labels the pod) and the eviction webhook (it marks the pod) write, and not on
  // dry-run; the others never write.
  const sideEffects = [...byKind('MutatingWebhookConfiguration').webhooks ?? [], ...byKind('ValidatingWebhookConfiguration').webhooks ?? []].map((w) => `${w.name}=${w.sideEffects}`);
  assert.deepEqual(sideEffects.sort(), [
    'mutating-generic.apps.kusionstack.io=None',
    'mutating-pod.apps.kusionstack.io=None',
    'mutating-rollout-workload.apps.kusionstack.io=None',
    'validating-generic.apps.kusionstack.io=None',
    'validating-pod-eviction.apps.kusionstack.io=NoneOnDryRun',
    'validating-pod.apps.kusionstack.io=NoneOnDryRun',
  ]);

  // Evictions carry no pod labels, so all of them come; podops down must never block a drain.
  const eviction = byKind('ValidatingWebhookConfiguration').webhooks?.find((w) => w.name === 'validating-pod-eviction.apps.kusionstack.io');
  assert.equal(eviction?.failurePolicy, 'Ignore');
  assert.deepEqual(eviction?.rules.map((r) => [r.resources, r.operations]), [[['pods/eviction'], ['CREATE']]]);
});

// ---- RBAC: what the code calls, read from the code --------------------------------------------------------

const CALL_VERBS: Record<string, string> = { get: 'get', list: 'list', create: 'create', replace: 'update', patch: 'patch', delete: 'delete' };
const CONSTANTS: Record<string, ResourceType> = {
  ...(Object.fromEntries(Object.entries(resources).filter(([, v]) => typeof v === 'object' && v !== null && 'resource' in v)) as Record<string, ResourceType>),
  PODTRANSITIONRULES,
};

async function sourceFiles(dir: string): Promise<string[]> {
  const entries = await readdir(join(ROOT, dir), { recursive: true });
  return entries.filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts') && !f.includes('test-support')).map((f) => join(dir, f));
}

/** The text from an opening parenthesis to its matching one. */
function callText(source: string, open: number): string {
  let depth = 0;
  for (let i = open; i < source.length; i++) {
    if (source[i] === '(') depth++;
    if (source[i] === ')' && --depth === 0) return source.slice(open + 1, i);
  }
  throw new Error('unbalanced call');
}

/** `group/resource[/subresource] verb` for every KubeClient call in the operator's code. */
async function usedAccess(): Promise<Set<string>> {
  const files = [...(await Promise.all(['src/controllers', 'src/operator', 'src/webhook', 'src/kube'].map(sourceFiles))).flat().filter((f) => f !== join('src', 'kube', 'client.ts')), join('src', 'sdk', 'write-pod.ts'), join('src', 'sdk', 'replica-set-scale-down.ts')];
  const sources = new Map(await Promise.all(files.map(async (f) => [f, await readFile(join(ROOT, f), 'utf8')] as const)));
  // Informers list and watch the type they are made with.
  const informed = [...sources.values()].flatMap((s) => [...s.matchAll(/new Informer(?:<[^>]*>)?\(\{[^}]*?\btype: (\w+)/g)].map((m) => m[1] as string));
  // Call sites whose resource is a variable: what it can hold there.
  const variables: Record<string, string[]> = {
    [`${join('src', 'kube', 'informer.ts')}:type`]: informed,
    [`${join('src', 'webhook', 'certificate-manager.ts')}:type`]: ['MUTATING_WEBHOOK_CONFIGURATIONS', 'VALIDATING_WEBHOOK_CONFIGURATIONS'],
    [`${join('src', 'controllers', 'rollout-controller.ts')}:WORKLOAD_TYPES[kind]`]: ['DEPLOYMENTS', 'STATEFULSETS', 'DAEMONSETS'],
  };
  const used = new Set<string>();
  const grant = (name: string, verb: string, subresource?: string): void => {
    const type = CONSTANTS[name];
    assert.ok(type, `unknown resource constant ${name}`);
    used.add(`${type.group}/${type.resource}${subresource ? `/${subresource}` : ''} ${verb}`);
  };
  for (const [file, source] of sources) {
    if (/\bclient\.evict\(/.test(source)) grant('PODS', 'create', 'eviction');
    for (const match of source.matchAll(/\bclient\.(get|list|create|replace|patch|delete|watch)\s*(?:<[^(]*>)?\(/g)) {
      const text = callText(source, (match.index ?? 0) + match[0].length - 1);
      const first = (text.split(',')[0] ?? '').trim();
      const verb = match[1] as string;
      // A subresource the request the pure core builds chooses (pods or pods/status).
      const subresources = /subresource: write\.subresource/.test(text) ? [undefined, 'status'] : [/subresource: '(\w+)'/.exec(text)?.[1]];
      // watch takes a path; the informer builds it from its type.
      const names = verb === 'watch' || !(first in CONSTANTS) ? variables[`${file}:${verb === 'watch' ? 'type' : first}`] : [first];
      assert.ok(names, `${relative(ROOT, join(ROOT, file))}: cannot tell which resource \`client.${verb}(${first}, ...)\` reaches; add it to this test`);
      for (const name of names) for (const subresource of subresources) grant(name, verb === 'watch' ? 'watch' : (CALL_VERBS[verb] as string), subresource);
    }
  }
  return used;
}

test('RBAC grants exactly the resources and verbs the code uses, no wildcards, named where it can be', async () => {
  const clusterRole = byKind('ClusterRole');
  const role = byKind('Role');
  const granted = new Set<string>();
  for (const rule of [...(clusterRole.rules ?? []), ...(role.rules ?? [])]) {
    for (const field of [rule.apiGroups, rule.resources, rule.verbs, rule.resourceNames ?? []]) assert.ok(!field.includes('*'), `no wildcard: ${JSON.stringify(rule)}`);
    for (const group of rule.apiGroups) for (const resource of rule.resources) for (const verb of rule.verbs) granted.add(`${group}/${resource} ${verb}`);
  }
  const used = await usedAccess();
  assert.deepEqual([...granted].sort(), [...used].sort());

  // The operator's own Lease and Secret: only in its namespace, and only by name where Kubernetes allows it.
  assert.equal(role.metadata.namespace, DEFAULT_MANIFEST_OPTIONS.namespace);
  for (const rule of clusterRole.rules ?? []) assert.ok(!rule.resources.some((r) => r === 'secrets' || r === 'leases'), 'no cluster-wide access to Secrets or Leases');
  for (const rule of role.rules ?? []) {
    if (!rule.verbs.includes('create')) assert.ok(rule.resourceNames?.length, `${rule.resources.join(',')} ${rule.verbs.join(',')} is limited to podops' objects`);
  }
  const webhookRule = clusterRole.rules?.find((r) => r.apiGroups.includes('admissionregistration.k8s.io'));
  assert.deepEqual(webhookRule?.resourceNames, ['podops-mutating', 'podops-validating'], 'only podops\' own webhook configurations');
});

// ---- The Helm chart renders to what `podops manifests` prints for the same settings -----------------------

const VAP_API = 'admissionregistration.k8s.io/v1/ValidatingAdmissionPolicy';

async function renderChart(values: Record<string, unknown>, apiVersions: readonly string[] = [VAP_API]): Promise<unknown[]> {
  const chart = join(ROOT, 'deploy', 'helm', 'podops');
  const defaults = parseYaml(await readFile(join(chart, 'values.yaml'), 'utf8'))[0] as Record<string, unknown>;
  const merged = structuredClone(defaults);
  for (const [key, value] of Object.entries(values)) merged[key] = typeof value === 'object' && value !== null && !Array.isArray(value) ? { ...(merged[key] as object), ...value } : value;
  const template = await readFile(join(chart, 'templates', 'podops.yaml'), 'utf8');
  const rendered = renderTemplate(template, { Values: merged, Release: { Namespace: 'ops' }, apiVersions });
  const crds = (await Promise.all(['podtransitionrules', 'rolloutlifecycles'].map((plural) => readFile(join(chart, 'crds', `${plural}.yaml`), 'utf8')))).flatMap(parseYaml);
  return [...crds, ...parseYaml(rendered).filter((d) => d !== null)];
}

const withoutNamespace = (objects: unknown[]): unknown[] => objects.filter((o) => (o as Manifest).kind !== 'Namespace');

test('the chart with its default values renders the objects of `podops manifests` (less the Namespace, which Helm creates)', async () => {
  assert.deepEqual(await renderChart({}), withoutNamespace(manifests({ ...DEFAULT_MANIFEST_OPTIONS, namespace: 'ops' })));
});

test('every chart value reaches the rendered objects as the matching `podops manifests` option does', async () => {
  const rendered = await renderChart({
    image: 'registry.example.com/podops:9.9.9',
    replicaCount: 3,
    featureGates: 'GraceDeleteWebhook=true',
    networkPolicy: { webhookSourceCIDRs: ['10.0.0.0/16', 'fd00::/64'] },
    webhookClientAuth: { secretName: 'apiserver-client-ca', names: 'kube-apiserver' },
  });
  const options = {
    namespace: 'ops',
    image: 'registry.example.com/podops:9.9.9',
    replicas: 3,
    featureGates: 'GraceDeleteWebhook=true',
    webhookSourceCIDRs: ['10.0.0.0/16', 'fd00::/64'],
    admissionPolicy: true,
    webhookClientCASecret: 'apiserver-client-ca',
    webhookClientNames: 'kube-apiserver',
  };
  assert.deepEqual(rendered, withoutNamespace(manifests(options)));
  const { code, stdout, stderr } = await runCli(['manifests', '--namespace', 'ops', '--image', options.image, '--replicas', '3', '--feature-gates', options.featureGates, '--webhook-source-cidrs', '10.0.0.0/16,fd00::/64', '--webhook-client-ca-secret', 'apiserver-client-ca', '--webhook-client-names', 'kube-apiserver']);
  assert.equal(code, 0, stderr);
  assert.deepEqual(withoutNamespace(parseYaml(stdout)), rendered);
});

test('the admission policy is left out where the cluster does not serve it, or when turned off', async () => {
  const kinds = (objects: unknown[]) => objects.map((o) => (o as Manifest).kind);
  assert.ok(!kinds(await renderChart({}, [])).includes('ValidatingAdmissionPolicy'));
  assert.ok(!kinds(await renderChart({ admissionPolicy: { enabled: false } })).includes('ValidatingAdmissionPolicy'));
  const { stdout } = await runCli(['manifests', '--no-admission-policy']);
  assert.ok(!kinds(parseYaml(stdout)).includes('ValidatingAdmissionPolicyBinding'));
});

test('the NetworkPolicy admits the given CIDRs to the webhook port only, and leaves metrics and probes open', () => {
  const policy = manifests({ ...DEFAULT_MANIFEST_OPTIONS, webhookSourceCIDRs: ['10.0.0.0/16'] }).find((o) => o.kind === 'NetworkPolicy') as { spec: { ingress: unknown[] } } | undefined;
  assert.deepEqual(policy?.spec.ingress, [
    { from: [{ ipBlock: { cidr: '10.0.0.0/16' } }], ports: [{ protocol: 'TCP', port: 9443 }] },
    { ports: [{ protocol: 'TCP', port: 8080 }, { protocol: 'TCP', port: 8081 }] },
  ]);
  assert.equal(manifests().find((o) => o.kind === 'NetworkPolicy'), undefined, 'no NetworkPolicy without CIDRs: a wrong guess would fail every pod write');
});

test('`podops manifests` refuses a malformed CIDR and client names without a CA', async () => {
  const bad = await runCli(['manifests', '--webhook-source-cidrs', '10.0.0.0/33']);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /"10\.0\.0\.0\/33" is not a CIDR/);
  const names = await runCli(['manifests', '--webhook-client-names', 'kube-apiserver']);
  assert.equal(names.code, 2);
  assert.match(names.stderr, /--webhook-client-names needs --webhook-client-ca-secret/);
});
