// Discovery, OpenAPI, Table output and /metrics, and the kubectl commands that depend on them
// (api-resources, get, describe, explain).

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { CoreV1Api, type V1Pod } from '@kubernetes/client-node';
import { podManifest, skipWithoutKubectl, startHarness, type Harness } from './harness.ts';

let h: Harness;
let core: CoreV1Api;
const ns = 'disc';
const tableAccept = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json';

before(async () => {
  h = await startHarness();
  core = h.kc.makeApiClient(CoreV1Api);
  await core.createNamespace({ body: { metadata: { name: ns } } });
  await core.createNamespacedPod({ namespace: ns, body: podManifest('t1', { spec: { readinessGates: [{ conditionType: 'example.com/ready' }] } }) as V1Pod });
  await core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'cm' }, data: { a: '1', b: '2' } } });
});
after(() => h.stop());

describe('discovery', () => {
  test('/version, /api and /api/v1 have the real shapes', async () => {
    const version = await h.http('GET', '/version');
    assert.equal(version.json.major, '1');
    assert.equal(version.json.minor, '32');
    const api = await h.http('GET', '/api');
    assert.equal(api.json.kind, 'APIVersions');
    assert.deepEqual(api.json.versions, ['v1']);
    const v1 = await h.http('GET', '/api/v1');
    assert.deepEqual(Object.keys(v1.json), ['kind', 'groupVersion', 'resources']);
    const pods = v1.json.resources.find((r: { name: string }) => r.name === 'pods');
    assert.deepEqual(pods, {
      name: 'pods',
      singularName: 'pod',
      namespaced: true,
      kind: 'Pod',
      verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
      shortNames: ['po'],
      categories: ['all'],
      storageVersionHash: 'xPOwRZ+Yhw8=',
    });
    assert.deepEqual(v1.json.resources.find((r: { name: string }) => r.name === 'pods/status'), {
      name: 'pods/status',
      singularName: '',
      namespaced: true,
      kind: 'Pod',
      verbs: ['get', 'patch', 'update'],
    });
  });

  test('/apis and /apis/apps/v1 list groups and subresources', async () => {
    const groups = await h.http('GET', '/apis');
    const names = groups.json.groups.map((g: { name: string }) => g.name);
    for (const g of ['apps', 'batch', 'coordination.k8s.io', 'events.k8s.io', 'discovery.k8s.io', 'admissionregistration.k8s.io', 'apiextensions.k8s.io']) {
      assert.ok(names.includes(g), g);
    }
    const appsV1 = await h.http('GET', '/apis/apps/v1');
    assert.equal(appsV1.json.apiVersion, 'v1');
    assert.deepEqual(appsV1.json.resources.find((r: { name: string }) => r.name === 'deployments/scale'), {
      name: 'deployments/scale',
      singularName: '',
      namespaced: true,
      group: 'autoscaling',
      version: 'v1',
      kind: 'Scale',
      verbs: ['get', 'patch', 'update'],
    });
  });

  test('core/v1 lists the pods subresources, in the legacy and the aggregated documents', async () => {
    const expected = [
      ['attach', '', '', 'PodAttachOptions', ['create', 'get']],
      ['binding', '', '', 'Binding', ['create']],
      ['ephemeralcontainers', '', '', 'Pod', ['get', 'patch', 'update']],
      ['eviction', 'policy', 'v1', 'Eviction', ['create']],
      ['exec', '', '', 'PodExecOptions', ['create', 'get']],
      ['log', '', '', 'Pod', ['get']],
      ['portforward', '', '', 'PodPortForwardOptions', ['create', 'get']],
      ['proxy', '', '', 'PodProxyOptions', ['create', 'delete', 'get', 'patch', 'update']],
      ['status', '', '', 'Pod', ['get', 'patch', 'update']],
    ];
    const v1 = await h.http('GET', '/api/v1');
    const legacy = v1.json.resources.filter((r: { name: string }) => r.name.startsWith('pods/'));
    assert.deepEqual(
      legacy.map((r: { name: string; group?: string; version?: string; kind: string; verbs: string[] }) => [r.name.slice(5), r.group ?? '', r.version ?? '', r.kind, r.verbs]),
      expected,
    );
    const accept = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList';
    const aggregated = await h.http('GET', '/api', undefined, { Accept: accept });
    const pods = aggregated.json.items[0].versions[0].resources.find((r: { resource: string }) => r.resource === 'pods');
    assert.deepEqual(
      pods.subresources.map((s: { subresource: string; responseKind: { group: string; version: string; kind: string }; verbs: string[] }) => [
        s.subresource,
        s.responseKind.group,
        s.responseKind.version,
        s.responseKind.kind,
        s.verbs,
      ]),
      expected,
    );
  });

  test('/apis lists authorization.k8s.io/v1, policy/v1, rbac.authorization.k8s.io/v1 and autoscaling v2 then v1, in the real order', async () => {
    const groups = (await h.http('GET', '/apis')).json.groups as { name: string; versions: { groupVersion: string }[]; preferredVersion: { version: string } }[];
    assert.deepEqual(
      groups.map((g) => g.name),
      ['apps', 'events.k8s.io', 'authorization.k8s.io', 'autoscaling', 'batch', 'policy', 'rbac.authorization.k8s.io', 'admissionregistration.k8s.io', 'apiextensions.k8s.io', 'coordination.k8s.io', 'discovery.k8s.io'],
    );
    const autoscaling = groups.find((g) => g.name === 'autoscaling');
    assert.deepEqual(autoscaling?.versions.map((v) => v.groupVersion), ['autoscaling/v2', 'autoscaling/v1']);
    assert.equal(autoscaling?.preferredVersion.version, 'v2');
    const names = async (path: string): Promise<string[]> => (await h.http('GET', path)).json.resources.map((r: { name: string }) => r.name);
    assert.deepEqual(await names('/apis/policy/v1'), ['poddisruptionbudgets', 'poddisruptionbudgets/status']);
    assert.deepEqual(await names('/apis/rbac.authorization.k8s.io/v1'), ['clusterrolebindings', 'clusterroles', 'rolebindings', 'roles']);
    assert.deepEqual(await names('/apis/autoscaling/v1'), ['horizontalpodautoscalers', 'horizontalpodautoscalers/status']);
    assert.deepEqual(await names('/apis/admissionregistration.k8s.io/v1'), [
      'mutatingwebhookconfigurations',
      'validatingadmissionpolicies',
      'validatingadmissionpolicies/status',
      'validatingadmissionpolicybindings',
      'validatingwebhookconfigurations',
    ]);
    const hpas = (await h.http('GET', '/apis/autoscaling/v2')).json.resources as { name: string; storageVersionHash: string; shortNames: string[] }[];
    const v1Hpas = (await h.http('GET', '/apis/autoscaling/v1')).json.resources as { name: string; storageVersionHash: string }[];
    assert.deepEqual(hpas[0]?.shortNames, ['hpa']);
    assert.equal(hpas[0]?.storageVersionHash, v1Hpas[0]?.storageVersionHash, 'one store, one hash');
  });

  test('aggregated discovery answers kubectl’s Accept header', async () => {
    const accept = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json';
    const res = await h.http('GET', '/apis', undefined, { Accept: accept });
    assert.equal(res.headers.get('content-type'), 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList');
    assert.equal(res.headers.get('x-varied-accept'), accept);
    const apps = res.json.items.find((i: { metadata: { name: string } }) => i.metadata.name === 'apps');
    const deployments = apps.versions[0].resources.find((r: { resource: string }) => r.resource === 'deployments');
    assert.deepEqual(deployments.responseKind, { group: '', version: '', kind: 'Deployment' });
    assert.deepEqual(deployments.subresources.map((s: { subresource: string }) => s.subresource), ['scale', 'status']);
    const legacy = await h.http('GET', '/api', undefined, { Accept: accept });
    assert.deepEqual(legacy.json.items[0].metadata, { creationTimestamp: null });
  });

  test('OpenAPI v3: an index of hashed group-version documents with the kinds’ schemas', async () => {
    const index = await h.http('GET', '/openapi/v3');
    assert.equal(index.headers.get('content-type'), 'text/plain; charset=utf-8');
    const url: string = index.json.paths['api/v1'].serverRelativeURL;
    const doc = await h.http('GET', url);
    assert.equal(doc.headers.get('cache-control'), 'public, immutable');
    assert.equal(doc.json.openapi, '3.0.0');
    assert.ok(doc.json.components.schemas['io.k8s.api.core.v1.Pod']);
    const wrong = await fetch(`${h.sandbox.url}/openapi/v3/api/v1?hash=WRONG`, { redirect: 'manual' });
    assert.equal(wrong.status, 301);
  });
});

describe('Table output', () => {
  test('pods: kubectl’s columns, string cells, PartialObjectMetadata rows', async () => {
    const res = await h.http('GET', `/api/v1/namespaces/${ns}/pods?limit=500`, undefined, { Accept: tableAccept });
    assert.equal(res.headers.get('content-type'), 'application/json');
    assert.equal(res.json.kind, 'Table');
    assert.deepEqual(
      res.json.columnDefinitions.map((c: { name: string; priority: number }) => [c.name, c.priority]),
      [['Name', 0], ['Ready', 0], ['Status', 0], ['Restarts', 0], ['Age', 0], ['IP', 1], ['Node', 1], ['Nominated Node', 1], ['Readiness Gates', 1]],
    );
    const [row] = res.json.rows;
    assert.deepEqual(row.cells.slice(0, 4), ['t1', '0/1', 'Pending', '0']);
    assert.match(row.cells[4], /^\d+s$/);
    assert.deepEqual(row.cells.slice(5), ['<none>', '<none>', '<none>', '0/1']);
    assert.equal(row.object.kind, 'PartialObjectMetadata');
    const none = await h.http('GET', `/api/v1/namespaces/${ns}/pods?includeObject=None`, undefined, { Accept: tableAccept });
    assert.equal(none.json.rows[0].object, null);
  });

  test('configmaps: Name, Data, Age; a single GET is a one-row Table', async () => {
    const res = await h.http('GET', `/api/v1/namespaces/${ns}/configmaps/cm`, undefined, { Accept: tableAccept });
    assert.deepEqual(res.json.columnDefinitions.map((c: { name: string }) => c.name), ['Name', 'Data', 'Age']);
    assert.equal(res.json.rows.length, 1);
    assert.deepEqual(res.json.rows[0].cells.slice(0, 2), ['cm', 2]);
  });

  test('PartialObjectMetadataList, YAML, and 406 for unsupported types', async () => {
    const partial = await h.http('GET', `/api/v1/namespaces/${ns}/configmaps`, undefined, { Accept: 'application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io' });
    assert.equal(partial.json.kind, 'PartialObjectMetadataList');
    assert.deepEqual(Object.keys(partial.json.items[0]), ['kind', 'apiVersion', 'metadata']);
    const yaml = await h.http('GET', `/api/v1/namespaces/${ns}/configmaps/cm`, undefined, { Accept: 'application/yaml' });
    assert.match(yaml.text, /^kind: ConfigMap\n/);
  });

  test('406 is a JSON Status: from route selection (details {}) or from the handler (no details)', async () => {
    const html = await h.http('GET', `/api/v1/namespaces/${ns}/configmaps`, undefined, { Accept: 'text/html' });
    assert.equal(html.status, 406);
    assert.equal(html.headers.get('content-type'), 'application/json');
    assert.deepEqual(html.json, {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: '406: Not Acceptable',
      reason: 'NotAcceptable',
      details: {},
      code: 406,
    });
    // Written as WriteRawJSON writes it: indented.
    assert.match(html.text, /^\{\n {2}"kind": "Status",\n/);
    const unknownAs = await h.http('GET', `/api/v1/namespaces/${ns}/configmaps`, undefined, { Accept: 'application/json;as=Unknown;v=v1;g=meta.k8s.io' });
    assert.equal(unknownAs.status, 406);
    assert.deepEqual(unknownAs.json, {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf',
      reason: 'NotAcceptable',
      code: 406,
    });
  });

  test('column types are the real printers\' (counts shown as strings where the printers say so)', async () => {
    await core.createNamespacedSecret({ namespace: ns, body: { metadata: { name: 's' }, data: { k: 'dg==' } } });
    await core.createNamespacedServiceAccount({ namespace: ns, body: { metadata: { name: 'sa' } } });
    await core.createNamespacedEvent({
      namespace: ns,
      body: { metadata: { name: 'ev' }, involvedObject: { kind: 'Pod', name: 't1', namespace: ns }, reason: 'Tested', message: 'm', type: 'Normal' },
    });
    const types = async (path: string): Promise<[string, string, string][]> =>
      (await h.http('GET', path, undefined, { Accept: tableAccept })).json.columnDefinitions.map((c: { name: string; type: string; format: string }) => [c.name, c.type, c.format]);
    assert.deepEqual(await types(`/api/v1/namespaces/${ns}/configmaps`), [['Name', 'string', 'name'], ['Data', 'string', ''], ['Age', 'string', '']]);
    assert.deepEqual(await types(`/api/v1/namespaces/${ns}/secrets`), [['Name', 'string', 'name'], ['Type', 'string', ''], ['Data', 'string', ''], ['Age', 'string', '']]);
    assert.deepEqual(await types(`/api/v1/namespaces/${ns}/serviceaccounts`), [['Name', 'string', 'name'], ['Secrets', 'string', ''], ['Age', 'string', '']]);
    assert.deepEqual((await types(`/api/v1/namespaces/${ns}/events`)).slice(-2), [['Count', 'string', ''], ['Name', 'string', 'name']]);
    assert.deepEqual((await types(`/apis/apps/v1/namespaces/${ns}/deployments`)).slice(1, 4), [['Ready', 'string', ''], ['Up-to-date', 'string', ''], ['Available', 'string', '']]);
    assert.deepEqual(await types(`/apis/apps/v1/namespaces/${ns}/controllerrevisions`), [['Name', 'string', 'name'], ['Controller', 'string', ''], ['Revision', 'string', ''], ['Age', 'string', '']]);
    assert.deepEqual((await types(`/apis/policy/v1/namespaces/${ns}/poddisruptionbudgets`)).map(([n, t]) => `${n}:${t}`), [
      'Name:string',
      'Min Available:string',
      'Max Unavailable:string',
      'Allowed Disruptions:integer',
      'Age:string',
    ]);
    assert.deepEqual((await types('/apis/rbac.authorization.k8s.io/v1/clusterroles')).map(([n, t]) => `${n}:${t}`), ['Name:string', 'Created At:date']);
    // The cells keep the numbers.
    const cm = await h.http('GET', `/api/v1/namespaces/${ns}/configmaps/cm`, undefined, { Accept: tableAccept });
    assert.equal(cm.json.rows[0].cells[1], 2);
  });
});

describe('/metrics', () => {
  test("counts every request as kube-apiserver's apiserver_request_total does, in the Prometheus text format", async () => {
    const series = (labels: string): RegExp => new RegExp(`^apiserver_request_total\\{${labels}\\} (\\d+)$`, 'm');
    const creates = 'code="201",component="apiserver",dry_run="",group="",resource="configmaps",scope="namespace",subresource="",verb="POST",version="v1"';
    const before = h.sandbox.requestCount({ verb: 'POST', resource: 'configmaps', code: '201', dry_run: '' });
    await core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'm1' } } });
    await assert.rejects(core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'm1' } } }));
    await core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'm2' } }, dryRun: 'All' });
    await core.replaceNamespacedPodStatus({ name: 't1', namespace: ns, body: await core.readNamespacedPod({ name: 't1', namespace: ns }) });
    await core.listNamespacedConfigMap({ namespace: ns });
    await core.listConfigMapForAllNamespaces();
    const res = await h.http('GET', '/metrics');
    assert.match(res.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
    assert.match(res.text, /^# TYPE apiserver_request_total counter$/m);
    assert.equal(Number(series(creates).exec(res.text)?.[1]), before + 1);
    assert.match(res.text, series(creates.replace('201', '409')));
    assert.match(res.text, series(creates.replace('dry_run=""', 'dry_run="All"')));
    assert.match(res.text, series('code="200",component="apiserver",dry_run="",group="",resource="pods",scope="resource",subresource="status",verb="PUT",version="v1"'));
    assert.match(res.text, series('code="200",component="apiserver",dry_run="",group="",resource="pods",scope="resource",subresource="",verb="GET",version="v1"'));
    assert.match(res.text, series('code="200",component="apiserver",dry_run="",group="",resource="configmaps",scope="namespace",subresource="",verb="LIST",version="v1"'));
    assert.match(res.text, series('code="200",component="apiserver",dry_run="",group="",resource="configmaps",scope="cluster",subresource="",verb="LIST",version="v1"'));
    assert.equal(h.sandbox.requestCount({ verb: 'POST', resource: 'configmaps', code: '201', dry_run: '' }), before + 1);
  });

  test('a subresource the resource does not serve is answered 404 and not counted: the path never becomes a label', async () => {
    const before = h.sandbox.requestCount();
    for (let i = 0; i < 200; i++) {
      assert.equal((await h.http('GET', `/api/v1/namespaces/${ns}/pods/t1/forged-${i}`)).status, 404);
      assert.equal((await h.http('GET', `/apis/apps/v1/namespaces/${ns}/deployments/d/__proto__${i}`)).status, 404);
    }
    assert.equal(h.sandbox.requestCount(), before);
    assert.doesNotMatch((await h.http('GET', '/metrics')).text, /forged-|__proto__/);
  });

  test('counts a watch once it ends, and a server-side apply as APPLY', async () => {
    const watches = (): number => h.sandbox.requestCount({ verb: 'WATCH', resource: 'configmaps', scope: 'namespace' });
    const before = watches();
    const res = await h.http('GET', `/api/v1/namespaces/${ns}/configmaps?watch=true&timeoutSeconds=1`);
    assert.equal(res.status, 200);
    assert.equal(watches(), before + 1);
    const applies = h.sandbox.requestCount({ verb: 'APPLY', resource: 'configmaps' });
    await h.http('PATCH', `/api/v1/namespaces/${ns}/configmaps/applied?fieldManager=test`, JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'applied' } }), {
      'Content-Type': 'application/apply-patch+yaml',
    });
    assert.equal(h.sandbox.requestCount({ verb: 'APPLY', resource: 'configmaps' }), applies + 1);
  });
});

describe('kubectl over discovery, tables and OpenAPI', { skip: skipWithoutKubectl }, () => {
  test('api-resources, get -o wide, describe, explain', async () => {
    const resources = await h.kubectl(['api-resources', '--api-group=apps', '-o', 'name']);
    assert.deepEqual(resources.stdout.trim().split('\n').sort(), [
      'controllerrevisions.apps',
      'daemonsets.apps',
      'deployments.apps',
      'replicasets.apps',
      'statefulsets.apps',
    ]);
    const wide = await h.kubectl(['get', 'pods', '-n', ns, '-o', 'wide']);
    assert.match(wide.stdout, /^NAME\s+READY\s+STATUS\s+RESTARTS\s+AGE\s+IP\s+NODE\s+NOMINATED NODE\s+READINESS GATES\n/);
    assert.match(wide.stdout, /\nt1\s+0\/1\s+Pending\s+0\s+\d+s\s+<none>\s+<none>\s+<none>\s+0\/1\n/);
    const described = await h.kubectl(['describe', 'pod', 't1', '-n', ns]);
    assert.match(described.stdout, /^Name:\s+t1$/m);
    assert.match(described.stdout, /^QoS Class:\s+BestEffort$/m);
    const explained = await h.kubectl(['explain', 'pods.spec.containers']);
    assert.match(explained.stdout, /^KIND:\s+Pod$/m);
    assert.match(explained.stdout, /^\s+image\s+<string>$/m);
  });
});
