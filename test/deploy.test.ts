// deploy/ is generated from src/operator/manifests.ts: it must match what the code generates today, what
// `podops manifests` prints, and grant podops exactly the API access its code uses.

import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { test } from 'node:test';
import { run } from '@bufbuild/cel';
import { parseAllDocuments } from 'yaml';
import { RL_CRD_NAME, RL_WORKLOAD_LABEL } from '../src/api/rolloutlifecycle.ts';
import * as resources from '../src/kube/resources.ts';
import type { ResourceType } from '../src/kube/resources.ts';
import { deployFiles } from '../src/operator/deploy-files.ts';
import { DEFAULT_MANIFEST_OPTIONS, manifests, type ManifestOptions } from '../src/operator/manifests.ts';
import { toCel } from './support/admission-policy.ts';
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

test('the workload webhook sees only workloads labelled for a RolloutLifecycle, and fails closed for them', () => {
  const workload = byKind('MutatingWebhookConfiguration').webhooks?.find((w) => w.name === 'mutating-rollout-workload.apps.kusionstack.io');
  assert.ok(workload);
  // Any other Deployment, StatefulSet or DaemonSet updates while podops is down.
  assert.deepEqual(workload.objectSelector, { matchExpressions: [{ key: RL_WORKLOAD_LABEL, operator: 'Exists' }] });
  assert.equal(workload.failurePolicy, 'Fail');
  assert.deepEqual(workload.rules, [{ operations: ['UPDATE'], apiGroups: ['apps'], apiVersions: ['v1'], resources: ['deployments', 'statefulsets', 'daemonsets'], scope: 'Namespaced' }]);
});

test("a RolloutLifecycle's spec.targetRef is immutable: the CRD's rule, evaluated as the API server does", () => {
  type Validations = { 'x-kubernetes-validations'?: { rule: string; message: string }[] };
  const crd = objects().find((o) => o.kind === 'CustomResourceDefinition' && o.metadata.name === RL_CRD_NAME) as { spec: { versions: { schema: { openAPIV3Schema: { properties: { spec: { properties: { targetRef: Validations } } } } } }[] } } | undefined;
  const rules = crd?.spec.versions[0]?.schema.openAPIV3Schema.properties.spec.properties.targetRef['x-kubernetes-validations'] ?? [];
  assert.equal(rules.length, 1);
  const [rule] = rules as [{ rule: string; message: string }];
  assert.equal(rule.message, 'field is immutable');
  const ref = (kind: string, name: string) => ({ apiVersion: 'apps/v1', kind, name });
  const holds = (self: unknown, oldSelf: unknown) => run(rule.rule, { self: toCel(self), oldSelf: toCel(oldSelf) } as never);
  assert.equal(holds(ref('Deployment', 'web'), ref('Deployment', 'web')), true);
  assert.equal(holds(ref('Deployment', 'api'), ref('Deployment', 'web')), false);
  assert.equal(holds(ref('StatefulSet', 'web'), ref('Deployment', 'web')), false);
  // The message kube-apiserver gives (it runs the rule before any webhook) names the target, as the webhook's does.
  const { messageExpression } = rule as { messageExpression?: string };
  assert.equal(run(messageExpression ?? '', { self: toCel(ref('Deployment', 'api')), oldSelf: toCel(ref('Deployment', 'web')) } as never), 'field is immutable (it targets Deployment/web: delete this RolloutLifecycle and create one for the other workload)');
});

// ---- RBAC: what the code calls, read from the code --------------------------------------------------------

const CALL_VERBS: Record<string, string> = { get: 'get', list: 'list', create: 'create', replace: 'update', patch: 'patch', delete: 'delete' };
const CONSTANTS = Object.fromEntries(Object.entries(resources).filter(([, v]) => typeof v === 'object' && v !== null && 'resource' in v)) as Record<string, ResourceType>;

/** Every source file `podops operator` can load: the modules reachable by relative imports from its command. */
async function operatorFiles(): Promise<string[]> {
  const seen = new Set<string>();
  for (const queue = [join('src', 'cli', 'commands', 'operator.ts')]; queue.length > 0; ) {
    const file = queue.pop() as string;
    if (seen.has(file)) continue;
    seen.add(file);
    const source = await readFile(join(ROOT, file), 'utf8');
    for (const match of source.matchAll(/(?:\bfrom|\bimport\()\s*'(\.{1,2}\/[^']+\.ts)'/g)) queue.push(join(dirname(file), match[1] as string));
  }
  return [...seen];
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

const CERTIFICATE_MANAGER = join('src', 'webhook', 'certificate-manager.ts');

/** `group/resource[/subresource] verb` for every KubeClient call `podops operator` can make (less the files left out). */
async function usedAccess(leftOut: readonly string[] = []): Promise<Set<string>> {
  const files = (await operatorFiles()).filter((f) => f !== join('src', 'kube', 'client.ts') && !leftOut.includes(f));
  const sources = new Map(await Promise.all(files.map(async (f) => [f, await readFile(join(ROOT, f), 'utf8')] as const)));
  // Informers list and watch the type they are made with.
  const informed = [...sources.values()].flatMap((s) => [...s.matchAll(/new Informer(?:<[^>]*>)?\(\{[^}]*?\btype: (\w+)/g)].map((m) => m[1] as string));
  // Call sites whose resource is a variable: what it can hold there.
  const variables: Record<string, string[]> = {
    [`${join('src', 'kube', 'informer.ts')}:type`]: informed,
    [`${join('src', 'webhook', 'certificate-manager.ts')}:type`]: ['MUTATING_WEBHOOK_CONFIGURATIONS', 'VALIDATING_WEBHOOK_CONFIGURATIONS'],
    [`${join('src', 'controllers', 'rollout-controller.ts')}:WORKLOAD_TYPES[kind]`]: ['DEPLOYMENTS', 'STATEFULSETS', 'DAEMONSETS'],
    // The requests src/rollout/writes.ts builds, sent as they are; a release made again reads its workload afresh.
    [`${join('src', 'controllers', 'rollout-controller.ts')}:RESOURCES[request.kind]`]: ['JOBS', 'REPLICASETS', 'ROLLOUTLIFECYCLES', 'DEPLOYMENTS', 'STATEFULSETS', 'DAEMONSETS'],
    [`${join('src', 'controllers', 'rollout-controller.ts')}:RESOURCES[sending.kind]`]: ['DEPLOYMENTS', 'STATEFULSETS', 'DAEMONSETS'],
    // The owners a pod's or a ReplicaSet's owner reference names, read live when the cache lacks them.
    [`${join('src', 'cache', 'workloads.ts')}:type`]: ['REPLICASETS', 'DEPLOYMENTS'],
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
      // A subresource the request the pure core builds chooses: pods or pods/status (podWrite), a RolloutLifecycle or
      // its status (src/rollout/writes.ts).
      const chosen = /subresource: (write|request)\.subresource/.test(text);
      const subresourcesOf = (name: string) => (chosen ? [undefined, ...(['PODS', 'ROLLOUTLIFECYCLES'].includes(name) ? ['status'] : [])] : [/subresource: '(\w+)'/.exec(text)?.[1]]);
      // watch takes a path; the informer builds it from its type.
      const names = verb === 'watch' || !(first in CONSTANTS) ? variables[`${file}:${verb === 'watch' ? 'type' : first}`] : [first];
      assert.ok(names, `${relative(ROOT, join(ROOT, file))}: cannot tell which resource \`client.${verb}(${first}, ...)\` reaches; add it to this test`);
      for (const name of names) for (const subresource of subresourcesOf(name)) grant(name, verb === 'watch' ? 'watch' : (CALL_VERBS[verb] as string), subresource);
    }
  }
  return used;
}

/** `group/resource verb` for every right the ClusterRole and Role grant (and no wildcards among them). */
function grantedAccess(objects: Manifest[]): Set<string> {
  const granted = new Set<string>();
  for (const rule of objects.filter((o) => o.kind === 'ClusterRole' || o.kind === 'Role').flatMap((o) => o.rules ?? [])) {
    for (const field of [rule.apiGroups, rule.resources, rule.verbs, rule.resourceNames ?? []]) assert.ok(!field.includes('*'), `no wildcard: ${JSON.stringify(rule)}`);
    for (const group of rule.apiGroups) for (const resource of rule.resources) for (const verb of rule.verbs) granted.add(`${group}/${resource} ${verb}`);
  }
  return granted;
}

test('RBAC grants exactly the resources and verbs the code uses, no wildcards, named where it can be', async () => {
  const clusterRole = byKind('ClusterRole');
  const role = byKind('Role');
  assert.deepEqual([...grantedAccess(objects())].sort(), [...(await usedAccess())].sort());

  // The operator's own Lease and Secret: only in its namespace, and only by name where Kubernetes allows it.
  assert.equal(role.metadata.namespace, DEFAULT_MANIFEST_OPTIONS.namespace);
  for (const rule of clusterRole.rules ?? []) assert.ok(!rule.resources.some((r) => r === 'secrets' || r === 'leases'), 'no cluster-wide access to Secrets or Leases');
  for (const rule of role.rules ?? []) {
    if (!rule.verbs.includes('create')) assert.ok(rule.resourceNames?.length, `${rule.resources.join(',')} ${rule.verbs.join(',')} is limited to podops' objects`);
  }
  const webhookRule = clusterRole.rules?.find((r) => r.apiGroups.includes('admissionregistration.k8s.io'));
  assert.deepEqual(webhookRule?.resourceNames, ['podops-mutating', 'podops-validating'], 'only podops\' own webhook configurations');
});

test('with cert-manager, RBAC grants exactly what the code uses less the self-managed certificates: no Secrets, no webhook configurations', async () => {
  // --cert-dir: the operator never starts its CertificateManager, the only code touching either.
  const certManager = manifests({ ...DEFAULT_MANIFEST_OPTIONS, certManager: true }) as Manifest[];
  const granted = grantedAccess(certManager);
  assert.deepEqual([...granted].sort(), [...(await usedAccess([CERTIFICATE_MANAGER]))].sort());
  for (const right of granted) assert.ok(!/^\/secrets |^admissionregistration\.k8s\.io\//.test(right), `no ${right}`);
});

// ---- The Helm chart renders to what `podops manifests` prints for the same settings -----------------------

const VAP_API = 'admissionregistration.k8s.io/v1/ValidatingAdmissionPolicy';
const CHART = join(ROOT, 'deploy', 'helm', 'podops');

const isMap = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Helm's merge of user values over the chart's: maps merge key by key, null deletes, anything else replaces. */
function coalesce(defaults: Record<string, unknown>, values: Record<string, unknown>): Record<string, unknown> {
  const out = structuredClone(defaults);
  for (const [key, value] of Object.entries(values)) {
    if (value === null) delete out[key];
    else out[key] = isMap(value) && isMap(out[key]) ? coalesce(out[key], value) : structuredClone(value);
  }
  return out;
}

const chartValues = async (): Promise<Record<string, unknown>> => parseYaml(await readFile(join(CHART, 'values.yaml'), 'utf8'))[0] as Record<string, unknown>;

async function renderChart(values: Record<string, unknown>, apiVersions: readonly string[] = [VAP_API]): Promise<unknown[]> {
  const chart = parseYaml(await readFile(join(CHART, 'Chart.yaml'), 'utf8'))[0] as { name: string; version: string; appVersion: string };
  const template = await readFile(join(CHART, 'templates', 'podops.yaml'), 'utf8');
  const rendered = renderTemplate(template, {
    Values: coalesce(await chartValues(), values),
    Release: { Namespace: 'ops', Name: 'podops' },
    Chart: { Name: chart.name, Version: chart.version, AppVersion: chart.appVersion },
    apiVersions,
  });
  const crds = (await Promise.all(['podtransitionrules', 'rolloutlifecycles'].map((plural) => readFile(join(CHART, 'crds', `${plural}.yaml`), 'utf8')))).flatMap(parseYaml);
  return [...crds, ...parseYaml(rendered).filter((d) => d !== null)];
}

const withoutNamespace = (objects: unknown[]): unknown[] => objects.filter((o) => (o as Manifest).kind !== 'Namespace');

test('the chart with its default values renders the objects of `podops manifests` (less the Namespace, which Helm creates)', async () => {
  assert.deepEqual(await renderChart({}), withoutNamespace(manifests({ ...DEFAULT_MANIFEST_OPTIONS, namespace: 'ops' })));
});

// What the checks below look at in rendered objects.
type Rendered = Manifest[];
const find = (objects: Rendered, kind: string, name?: string): Manifest | undefined => objects.find((o) => o.kind === kind && (name === undefined || o.metadata.name === name));
interface PodTemplate {
  metadata: { labels: Record<string, string>; annotations?: Record<string, string> };
  spec: Record<string, unknown> & { containers: ({ args: string[]; volumeMounts?: { name: string; mountPath: string }[] } & Record<string, unknown>)[]; volumes?: { name: string; secret: { secretName: string } }[] };
}
const podTemplate = (objects: Rendered): PodTemplate => (find(objects, 'Deployment') as unknown as { spec: { template: PodTemplate } }).spec.template;
const container = (objects: Rendered) => podTemplate(objects).spec.containers[0] as PodTemplate['spec']['containers'][number];
const webhooks = (objects: Rendered): Webhook[] => objects.flatMap((o) => o.webhooks ?? []);
const EVICTION_WEBHOOK = 'validating-pod-eviction.apps.kusionstack.io';

interface ValueCase {
  /** Chart values (merged over values.yaml as Helm merges them). */
  values: Record<string, unknown>;
  /** The `podops manifests` options that render the same objects. */
  options: Partial<ManifestOptions>;
  /** Where the value must show in the rendered objects. */
  check: (objects: Rendered) => void;
}

const ISSUER = { kind: 'ClusterIssuer', name: 'corp-ca', group: 'cert-manager.io' };
/** A CA's PEM, as `podops manifests --webhook-client-auth` writes it into the Helm values: several lines. */
const CLIENT_CA_PEM = '-----BEGIN CERTIFICATE-----\nMIIBkTCB+wIJAKHBfpegPjMCMA0GCSqGSIb3DQEBCwUAMBExDzANBgNVBAMMBnRl\nc3RjYTAeFw0yNDAxMDEwMDAwMDBaFw0zNDAxMDEwMDAwMDBaMBExDzANBgNVBAMM\n-----END CERTIFICATE-----\n';

/** One case per value (or per value and what it needs), each set to something other than its default. */
const VALUE_CASES: Record<string, ValueCase> = {
  'image.repository and image.tag': {
    values: { image: { repository: 'registry.example.com/podops', tag: '9.9.9' } },
    options: { image: 'registry.example.com/podops:9.9.9' },
    check: (o) => assert.equal(container(o).image, 'registry.example.com/podops:9.9.9'),
  },
  'image as one string (the chart before image.repository)': {
    values: { image: 'registry.example.com/podops:8.8.8' },
    options: { image: 'registry.example.com/podops:8.8.8' },
    check: (o) => assert.equal(container(o).image, 'registry.example.com/podops:8.8.8'),
  },
  'image.pullPolicy': {
    values: { image: { pullPolicy: 'Always' } },
    options: { imagePullPolicy: 'Always' },
    check: (o) => assert.equal(container(o).imagePullPolicy, 'Always'),
  },
  imagePullSecrets: {
    values: { imagePullSecrets: [{ name: 'regcred' }] },
    options: { imagePullSecrets: ['regcred'] },
    check: (o) => assert.deepEqual(podTemplate(o).spec.imagePullSecrets, [{ name: 'regcred' }]),
  },
  replicaCount: {
    values: { replicaCount: 3 },
    options: { replicas: 3 },
    check: (o) => assert.equal((find(o, 'Deployment')?.spec as { replicas: number }).replicas, 3),
  },
  resources: {
    values: { resources: { requests: { cpu: '250m', memory: '256Mi' }, limits: { cpu: '1', memory: '1Gi' } } },
    options: { resources: { requests: { cpu: '250m', memory: '256Mi' }, limits: { cpu: '1', memory: '1Gi' } } },
    check: (o) => assert.deepEqual(container(o).resources, { requests: { cpu: '250m', memory: '256Mi' }, limits: { cpu: '1', memory: '1Gi' } }),
  },
  nodeSelector: {
    values: { nodeSelector: { 'kubernetes.io/os': 'linux', 'node-role.kubernetes.io/infra': '' } },
    options: { nodeSelector: { 'kubernetes.io/os': 'linux', 'node-role.kubernetes.io/infra': '' } },
    check: (o) => assert.deepEqual(podTemplate(o).spec.nodeSelector, { 'kubernetes.io/os': 'linux', 'node-role.kubernetes.io/infra': '' }),
  },
  tolerations: {
    values: { tolerations: [{ key: 'node-role.kubernetes.io/infra', operator: 'Exists', effect: 'NoSchedule' }] },
    options: { tolerations: [{ key: 'node-role.kubernetes.io/infra', operator: 'Exists', effect: 'NoSchedule' }] },
    check: (o) => assert.deepEqual(podTemplate(o).spec.tolerations, [{ key: 'node-role.kubernetes.io/infra', operator: 'Exists', effect: 'NoSchedule' }]),
  },
  affinity: {
    values: { affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'pool', operator: 'In', values: ['system'] }] }] } } } },
    options: { affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'pool', operator: 'In', values: ['system'] }] }] } } } },
    check: (o) => assert.deepEqual(Object.keys(podTemplate(o).spec.affinity as object), ['nodeAffinity']),
  },
  priorityClassName: {
    values: { priorityClassName: 'system-cluster-critical' },
    options: { priorityClassName: 'system-cluster-critical' },
    check: (o) => assert.equal(podTemplate(o).spec.priorityClassName, 'system-cluster-critical'),
  },
  podAnnotations: {
    values: { podAnnotations: { 'example.com/team': 'platform', 'example.com/port': '8080' } },
    options: { podAnnotations: { 'example.com/team': 'platform', 'example.com/port': '8080' } },
    check: (o) => assert.deepEqual(podTemplate(o).metadata.annotations, { 'example.com/team': 'platform', 'example.com/port': '8080' }),
  },
  podLabels: {
    values: { podLabels: { team: 'platform' } },
    options: { podLabels: { team: 'platform' } },
    check: (o) => {
      assert.deepEqual(podTemplate(o).metadata.labels, { team: 'platform', 'app.kubernetes.io/name': 'podops' });
      assert.deepEqual((find(o, 'Deployment')?.spec as { selector: unknown }).selector, { matchLabels: { 'app.kubernetes.io/name': 'podops' } }, 'the selector stays');
    },
  },
  logLevel: {
    values: { logLevel: 'debug' },
    options: { logLevel: 'debug' },
    check: (o) => assert.ok(container(o).args.includes('--log-level=debug')),
  },
  leaderElection: {
    values: { leaderElection: { leaseDuration: '30s', renewDeadline: '20s', retryPeriod: '4s' } },
    options: { leaderElection: { leaseDuration: '30s', renewDeadline: '20s', retryPeriod: '4s' } },
    check: (o) => {
      for (const arg of ['--leader-elect-lease-duration=30s', '--leader-elect-renew-deadline=20s', '--leader-elect-retry-period=4s']) assert.ok(container(o).args.includes(arg), arg);
    },
  },
  evictionAbandonedAfter: {
    values: { evictionAbandonedAfter: '2m' },
    options: { evictionAbandonedAfter: '2m' },
    check: (o) => assert.ok(container(o).args.includes('--eviction-abandoned-after=2m')),
  },
  featureGates: {
    values: { featureGates: 'GraceDeleteWebhook=true' },
    options: { featureGates: 'GraceDeleteWebhook=true' },
    check: (o) => assert.ok(container(o).args.includes('--feature-gates=GraceDeleteWebhook=true')),
  },
  'webhooks.failurePolicy': {
    values: { webhooks: { failurePolicy: 'Ignore' } },
    options: { webhookFailurePolicy: 'Ignore' },
    check: (o) => assert.deepEqual(new Set(webhooks(o).map((w) => w.failurePolicy)), new Set(['Ignore'])),
  },
  'webhooks.timeoutSeconds': {
    values: { webhooks: { timeoutSeconds: 10 } },
    options: { webhookTimeoutSeconds: 10 },
    check: (o) => assert.deepEqual(new Set(webhooks(o).map((w) => w.timeoutSeconds)), new Set([10])),
  },
  'networkPolicy.webhookSourceCIDRs': {
    values: { networkPolicy: { webhookSourceCIDRs: ['10.0.0.0/16', 'fd00::/64'] } },
    options: { webhookSourceCIDRs: ['10.0.0.0/16', 'fd00::/64'] },
    check: (o) => assert.ok(find(o, 'NetworkPolicy')),
  },
  'admissionPolicy.enabled': {
    values: { admissionPolicy: { enabled: false } },
    options: { admissionPolicy: false },
    check: (o) => assert.equal(find(o, 'ValidatingAdmissionPolicy'), undefined),
  },
  webhookClientAuth: {
    values: { webhookClientAuth: { secretName: 'apiserver-client-ca', names: 'kube-apiserver' } },
    options: { webhookClientCASecret: 'apiserver-client-ca', webhookClientNames: 'kube-apiserver' },
    check: (o) => {
      assert.ok(container(o).args.includes('--webhook-client-names=kube-apiserver'));
      assert.deepEqual(podTemplate(o).spec.volumes?.find((v) => v.name === 'webhook-client-ca'), { name: 'webhook-client-ca', secret: { secretName: 'apiserver-client-ca' } });
    },
  },
  'webhookClientAuth.caCert': {
    values: { webhookClientAuth: { caCert: CLIENT_CA_PEM, names: 'kube-apiserver' } },
    options: { webhookClientCA: CLIENT_CA_PEM, webhookClientNames: 'kube-apiserver' },
    check: (o) => {
      assert.deepEqual((find(o, 'Secret') as { stringData?: unknown } | undefined)?.stringData, { 'ca.crt': CLIENT_CA_PEM });
      assert.ok(container(o).args.includes('--webhook-client-ca-file=/etc/podops/webhook-client-ca/ca.crt'));
      assert.deepEqual(podTemplate(o).spec.volumes?.find((v) => v.name === 'webhook-client-ca'), { name: 'webhook-client-ca', secret: { secretName: 'podops-webhook-client-ca' } });
    },
  },
  'certManager.enabled': {
    values: { certManager: { enabled: true } },
    options: { certManager: true },
    check: (o) => assert.deepEqual(o.filter((x) => x.kind === 'Issuer' || x.kind === 'Certificate').map((x) => `${x.kind}/${x.metadata.name}`), ['Issuer/podops-selfsigned', 'Certificate/podops-webhook-ca', 'Issuer/podops-webhook-ca', 'Certificate/podops-webhook']),
  },
  'certManager.issuerRef': {
    values: { certManager: { enabled: true, issuerRef: ISSUER } },
    options: { certManager: true, certManagerIssuerRef: ISSUER },
    check: (o) => {
      assert.deepEqual(o.filter((x) => x.kind === 'Issuer' || x.kind === 'Certificate').map((x) => `${x.kind}/${x.metadata.name}`), ['Certificate/podops-webhook']);
      assert.deepEqual((find(o, 'Certificate')?.spec as { issuerRef: unknown }).issuerRef, ISSUER);
    },
  },
  'serviceMonitor.enabled': {
    values: { serviceMonitor: { enabled: true } },
    options: { serviceMonitor: true },
    check: (o) => {
      const monitor = find(o, 'ServiceMonitor')?.spec as { selector: { matchLabels: Record<string, string> }; endpoints: unknown[] };
      assert.deepEqual(monitor.endpoints, [{ port: 'metrics', path: '/metrics' }]);
      // It picks the metrics Service (not the webhook one), which reaches the container's metrics port.
      const service = find(o, 'Service', 'podops-metrics') as Manifest & { spec: { ports: { targetPort: string; port: number }[] } };
      assert.deepEqual(service.metadata as unknown as { labels: unknown }, { name: 'podops-metrics', namespace: 'ops', labels: monitor.selector.matchLabels });
      assert.ok(!Object.entries(monitor.selector.matchLabels).every(([k, v]) => (find(o, 'Service', 'podops-webhook')?.metadata as unknown as { labels: Record<string, string> }).labels[k] === v));
      assert.deepEqual(service.spec.ports.map((p) => [p.port, p.targetPort]), [[8080, 'metrics']]);
      assert.ok((container(o).ports as { name: string; containerPort: number }[]).some((p) => p.name === 'metrics' && p.containerPort === 8080));
    },
  },
  'serviceMonitor.interval and serviceMonitor.labels': {
    values: { serviceMonitor: { enabled: true, interval: '30s', labels: { release: 'prometheus' } } },
    options: { serviceMonitor: true, serviceMonitorInterval: '30s', serviceMonitorLabels: { release: 'prometheus' } },
    check: (o) => {
      const monitor = find(o, 'ServiceMonitor') as Manifest & { spec: { endpoints: { interval?: string }[] } };
      assert.equal(monitor.spec.endpoints[0]?.interval, '30s');
      assert.deepEqual((monitor.metadata as unknown as { labels: unknown }).labels, { release: 'prometheus', 'app.kubernetes.io/name': 'podops' });
    },
  },
  'podDisruptionBudget.enabled': {
    values: { podDisruptionBudget: { enabled: false } },
    options: { podDisruptionBudget: false },
    check: (o) => assert.equal(find(o, 'PodDisruptionBudget'), undefined),
  },
};

/** The paths of values.yaml a user sets: its leaves, with free-form maps (resources) as one. */
function valuePaths(values: unknown, prefix = ''): string[] {
  if (!isMap(values) || Object.keys(values).length === 0 || prefix === 'resources') return [prefix];
  return Object.entries(values).flatMap(([key, value]) => valuePaths(value, prefix ? `${prefix}.${key}` : key));
}

const OPS = { ...DEFAULT_MANIFEST_OPTIONS, namespace: 'ops' };

test('every chart value, set on its own, changes the rendered objects where it should, as the matching `podops manifests` option does', async () => {
  const sets = (values: unknown, path: string): boolean => path.split('.').reduce<unknown>((at, key) => (isMap(at) ? at[key] : undefined), values) !== undefined;
  const uncovered = valuePaths(await chartValues()).filter((path) => !Object.values(VALUE_CASES).some((c) => sets(c.values, path)));
  assert.deepEqual(uncovered, [], 'every value of values.yaml has a case here');
  const defaults = await renderChart({});
  for (const [name, { values, options, check }] of Object.entries(VALUE_CASES)) {
    const rendered = await renderChart(values);
    assert.notDeepEqual(rendered, defaults, `${name} changes the rendered objects`);
    assert.deepEqual(rendered, withoutNamespace(manifests({ ...OPS, ...options })), `${name} renders as the matching manifests option`);
    check(rendered as Rendered);
  }
});

test('every chart value reaches the rendered objects as the matching `podops manifests` option does, all at once', async () => {
  const cases = Object.entries(VALUE_CASES).filter(([name]) => !name.startsWith('image as one string'));
  const values = cases.reduce<Record<string, unknown>>((all, [, c]) => coalesce(all, c.values), {});
  const options: ManifestOptions = cases.reduce((all, [, c]) => ({ ...all, ...c.options }), OPS);
  const rendered = await renderChart(values);
  assert.deepEqual(rendered, withoutNamespace(manifests(options)));
  // (The checks of cert-manager's own CA, of a ServiceMonitor without interval and of the Secret the chart makes
  // of caCert being mounted do not hold with the cases that refine them: a secretName given too wins.)
  const refined = ['certManager.enabled', 'serviceMonitor.enabled', 'webhookClientAuth.caCert'];
  for (const [name, { check }] of cases) if (!refined.includes(name)) check(rendered as Rendered);

  // The options `podops manifests` has flags for (the pod's resources, scheduling, annotations and labels are the chart's).
  const flags = ['--namespace', 'ops', '--image', options.image, '--image-pull-policy', options.imagePullPolicy, '--image-pull-secrets', options.imagePullSecrets.join(','), '--replicas', String(options.replicas), '--priority-class-name', options.priorityClassName, '--log-level', options.logLevel];
  flags.push('--leader-elect-lease-duration', options.leaderElection.leaseDuration, '--leader-elect-renew-deadline', options.leaderElection.renewDeadline, '--leader-elect-retry-period', options.leaderElection.retryPeriod);
  flags.push('--eviction-abandoned-after', options.evictionAbandonedAfter, '--feature-gates', options.featureGates, '--webhook-failure-policy', options.webhookFailurePolicy, '--webhook-timeout-seconds', String(options.webhookTimeoutSeconds), '--webhook-source-cidrs', options.webhookSourceCIDRs.join(','), '--no-admission-policy');
  flags.push('--webhook-client-ca-secret', options.webhookClientCASecret, '--webhook-client-names', options.webhookClientNames, '--cert-manager', '--cert-manager-issuer', 'ClusterIssuer/corp-ca');
  flags.push('--service-monitor', '--service-monitor-interval', options.serviceMonitorInterval, '--no-pod-disruption-budget');
  const { code, stdout, stderr } = await runCli(['manifests', ...flags]);
  assert.equal(code, 0, stderr);
  const { resources, nodeSelector, tolerations, affinity, podAnnotations, podLabels, serviceMonitorLabels } = OPS;
  // (The CA the manifests carry comes with --webhook-client-auth, tested on its own.)
  assert.deepEqual(withoutNamespace(parseYaml(stdout)), withoutNamespace(manifests({ ...options, webhookClientCA: '', resources, nodeSelector, tolerations, affinity, podAnnotations, podLabels, serviceMonitorLabels })));
});

test('image.tag defaults to the chart appVersion, which is the tag of the default image', async () => {
  const chart = parseYaml(await readFile(join(CHART, 'Chart.yaml'), 'utf8'))[0] as { appVersion: string };
  const values = (await chartValues()) as { image: { repository: string; tag: string } };
  assert.equal(values.image.tag, '');
  assert.equal(`${values.image.repository}:${chart.appVersion}`, DEFAULT_MANIFEST_OPTIONS.image);
  assert.equal(container((await renderChart({ image: { repository: 'registry.example.com/podops' } })) as Rendered).image, `registry.example.com/podops:${chart.appVersion}`);
});

test('resources merge with the defaults as Helm merges values: null drops a part, or all of them', async () => {
  const requests = DEFAULT_MANIFEST_OPTIONS.resources.requests as Record<string, string>;
  assert.deepEqual(await renderChart({ resources: { limits: null } }), withoutNamespace(manifests({ ...OPS, resources: { requests } })));
  assert.deepEqual(await renderChart({ resources: { requests: { cpu: '1' } } }), withoutNamespace(manifests({ ...OPS, resources: { ...OPS.resources, requests: { ...requests, cpu: '1' } } })));
  const none = (await renderChart({ resources: null })) as Rendered;
  assert.equal(container(none).resources, undefined);
  assert.deepEqual(none, withoutNamespace(manifests({ ...OPS, resources: {} })));
});

test('no failurePolicy value makes the pod-eviction webhook fail closed; the others follow it', async () => {
  for (const policy of ['Fail', 'Ignore'] as const) {
    const rendered = (await renderChart({ webhooks: { failurePolicy: policy } })) as Rendered;
    assert.deepEqual(rendered, withoutNamespace(manifests({ ...OPS, webhookFailurePolicy: policy })));
    for (const webhook of webhooks(rendered)) assert.equal(webhook.failurePolicy, webhook.name === EVICTION_WEBHOOK ? 'Ignore' : policy, webhook.name);
  }
});

test('with cert-manager, the operator serves the Certificate\'s Secret and manages no certificate, and cainjector fills both caBundles', async () => {
  const rendered = (await renderChart({ certManager: { enabled: true } })) as Rendered;
  const certificate = find(rendered, 'Certificate', 'podops-webhook') as Manifest & { spec: { secretName: string; dnsNames: string[]; issuerRef: unknown } };
  // The names the operator's self-managed certificate covers (its --webhook-hosts default), for the webhook Service.
  assert.deepEqual(certificate.spec.dnsNames, ['podops-webhook.ops.svc', 'podops-webhook.ops.svc.cluster.local']);
  assert.deepEqual(certificate.spec.issuerRef, { name: 'podops-webhook-ca', kind: 'Issuer', group: 'cert-manager.io' });
  assert.equal((find(rendered, 'Issuer', 'podops-webhook-ca')?.spec as { ca: { secretName: string } }).ca.secretName, (find(rendered, 'Certificate', 'podops-webhook-ca')?.spec as { secretName: string }).secretName);
  // Its own Secret, never the one podops managed before (podops-webhook-certs), so the two never share one.
  assert.notEqual(certificate.spec.secretName, 'podops-webhook-certs');
  const { args, volumeMounts } = container(rendered);
  const mount = volumeMounts?.find((m) => m.name === 'webhook-certs');
  assert.equal(podTemplate(rendered).spec.volumes?.find((v) => v.name === 'webhook-certs')?.secret.secretName, certificate.spec.secretName);
  assert.ok(args.includes(`--cert-dir=${mount?.mountPath}`), 'served from the mounted Secret (--cert-dir: the operator runs no CertificateManager)');
  assert.ok(!args.some((a) => a.startsWith('--webhook-secret')));
  for (const kind of ['MutatingWebhookConfiguration', 'ValidatingWebhookConfiguration']) {
    assert.deepEqual((find(rendered, kind)?.metadata as unknown as { annotations: unknown }).annotations, { 'cert-manager.io/inject-ca-from': 'ops/podops-webhook' }, kind);
  }
  // And without cert-manager, none of it.
  const selfManaged = (await renderChart({})) as Rendered;
  assert.ok(!selfManaged.some((o) => o.kind === 'Certificate' || o.kind === 'Issuer' || (o.metadata as unknown as { annotations?: unknown }).annotations));
  assert.ok(container(selfManaged).args.includes('--webhook-secret=podops-webhook-certs'));
});

test('the test renderer follows Helm where the chart relies on it', () => {
  const render = (template: string, values: Record<string, unknown> = {}) => renderTemplate(template, { Values: values, Release: { Namespace: 'ops' }, Chart: { AppVersion: '1.0.0' }, apiVersions: [] });
  assert.equal(render('a:\n  {{- with .Values.m }}\n  m:\n    {{- toYaml . | nindent 4 }}\n  {{- end }}\nb: 1', { m: { z: 1, a: [{ k: 'v' }] } }), 'a:\n  m:\n    a:\n    - k: v\n    z: 1\nb: 1');
  assert.equal(render('a:\n  {{- with .Values.m }}\n  m: {{ . }}\n  {{- end }}\nb: 1', { m: {} }), 'a:\nb: 1');
  assert.equal(render('{{ if kindIs "string" .Values.image }}{{ .Values.image }}{{ else }}{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}{{ end }}', { image: { repository: 'r', tag: '' } }), 'r:1.0.0');
  assert.equal(render('{{ if kindIs "string" .Values.image }}{{ .Values.image }}{{ else }}{{ .Values.image.repository }}{{ end }}', { image: 'r:2' }), 'r:2', 'the untaken branch is not evaluated');
  assert.throws(() => render('{{ .Values.image.repository }}', { image: 'r:2' }), /can't evaluate field repository/);
  assert.throws(() => render('{{ .Values.missing.field }}'), /nil pointer evaluating interface \{\}\.field/);
  assert.equal(render('[{{ .Values.missing }}]'), '[]');
  assert.equal(render('{{ .Values.n }} {{ .Values.big }} {{ .Values.s | quote }}', { n: 5, big: 1000000, s: 'a"b' }), '5 1e+06 "a\\"b"');
  assert.equal(render('{{ and .Values.a .Values.a.b }}|{{ or .Values.x "d" }}|{{ not .Values.l }}', { a: null, l: [] }), '|d|true');
  assert.equal(render('{{- range .Values.l }}\n- {{ . }}\n{{- else }}none{{- end }}', { l: ['x', 'y'] }), '\n- x\n- y');
  assert.throws(() => render('{{ include "x" . }}'), /unsupported/);
  assert.throws(() => render('{{ .Values.m }}', { m: { a: 1 } }), /toYaml/);
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

test('`podops manifests` refuses settings the operator or the API server would refuse after the install', async () => {
  const refusals: [string[], RegExp][] = [
    [['--webhook-failure-policy', 'Never'], /--webhook-failure-policy must be Fail or Ignore/],
    [['--webhook-timeout-seconds', '31'], /--webhook-timeout-seconds must be an integer from 1 to 30/],
    [['--leader-elect-lease-duration', '10s'], /--leader-elect-lease-duration must be longer than --leader-elect-renew-deadline/],
    [['--leader-elect-retry-period', '9s'], /--leader-elect-renew-deadline must be longer than 1\.2 x --leader-elect-retry-period/],
    [['--leader-elect-retry-period', '2'], /--leader-elect-retry-period must be a duration/],
    [['--log-level', 'verbose'], /--log-level must be one of/],
    [['--image-pull-policy', 'always'], /--image-pull-policy must be Always, IfNotPresent or Never/],
    [['--cert-manager-issuer', 'ClusterIssuer/corp-ca'], /--cert-manager-issuer needs --cert-manager/],
    [['--cert-manager', '--cert-manager-issuer', 'corp-ca'], /--cert-manager-issuer must be Issuer\/NAME or ClusterIssuer\/NAME/],
    [['--service-monitor-interval', '30s'], /--service-monitor-interval needs --service-monitor/],
  ];
  for (const [args, message] of refusals) {
    const { code, stderr } = await runCli(['manifests', ...args]);
    assert.equal(code, 2, args.join(' '));
    assert.match(stderr, message);
  }
});
