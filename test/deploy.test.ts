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
  // validation writes (GraceDelete labels the pod), and not on dry-run; the others never write.
  const sideEffects = [...byKind('MutatingWebhookConfiguration').webhooks ?? [], ...byKind('ValidatingWebhookConfiguration').webhooks ?? []].map((w) => `${w.name}=${w.sideEffects}`);
  assert.deepEqual(sideEffects.sort(), [
    'mutating-generic.apps.kusionstack.io=None',
    'mutating-pod.apps.kusionstack.io=None',
    'validating-generic.apps.kusionstack.io=None',
    'validating-pod.apps.kusionstack.io=NoneOnDryRun',
  ]);
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
  const files = (await Promise.all(['src/controllers', 'src/operator', 'src/webhook', 'src/kube'].map(sourceFiles))).flat().filter((f) => f !== join('src', 'kube', 'client.ts'));
  const sources = new Map(await Promise.all(files.map(async (f) => [f, await readFile(join(ROOT, f), 'utf8')] as const)));
  // Informers list and watch the type they are made with.
  const informed = [...sources.values()].flatMap((s) => [...s.matchAll(/new Informer(?:<[^>]*>)?\(\{[^}]*?\btype: (\w+)/g)].map((m) => m[1] as string));
  // Call sites whose resource is a variable: what it can hold there.
  const variables: Record<string, string[]> = {
    [`${join('src', 'kube', 'informer.ts')}:type`]: informed,
    [`${join('src', 'webhook', 'certificate-manager.ts')}:type`]: ['MUTATING_WEBHOOK_CONFIGURATIONS', 'VALIDATING_WEBHOOK_CONFIGURATIONS'],
  };
  const used = new Set<string>();
  const grant = (name: string, verb: string, subresource?: string): void => {
    const type = CONSTANTS[name];
    assert.ok(type, `unknown resource constant ${name}`);
    used.add(`${type.group}/${type.resource}${subresource ? `/${subresource}` : ''} ${verb}`);
  };
  for (const [file, source] of sources) {
    for (const match of source.matchAll(/\bclient\.(get|list|create|replace|patch|delete|watch)\s*(?:<[^(]*>)?\(/g)) {
      const text = callText(source, (match.index ?? 0) + match[0].length - 1);
      const first = (text.split(',')[0] ?? '').trim();
      const subresource = /subresource: '(\w+)'/.exec(text)?.[1];
      const verb = match[1] as string;
      // watch takes a path; the informer builds it from its type.
      const names = verb === 'watch' || !(first in CONSTANTS) ? variables[`${file}:${verb === 'watch' ? 'type' : first}`] : [first];
      assert.ok(names, `${relative(ROOT, join(ROOT, file))}: cannot tell which resource \`client.${verb}(${first}, ...)\` reaches; add it to this test`);
      for (const name of names) grant(name, verb === 'watch' ? 'watch' : (CALL_VERBS[verb] as string), subresource);
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
