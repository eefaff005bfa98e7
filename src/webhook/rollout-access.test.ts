// A RolloutLifecycle makes podops act with its own rights: it labels, holds and releases the target workload,
// and its hooks become Jobs. So a RolloutLifecycle is admitted only from a user the API server's authorizer
// lets update (or patch) that workload, and new hooks only from one it lets create Jobs in the namespace
// (SubjectAccessReviews for the review's userInfo). Here the API server is a small fake whose authorizer the
// test decides; the real request body is checked, and an authorizer that fails refuses the write rather than
// letting it through.

import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import type { RolloutLifecycle } from '../api/rolloutlifecycle.ts';
import { KubeClient } from '../kube/client.ts';
import { Informer } from '../kube/informer.ts';
import { silentLogger } from '../kube/log.ts';
import { ROLLOUTLIFECYCLES } from '../kube/resources.ts';
import type { AdmissionRequest, UserInfo } from './admission.ts';
import { validateRolloutLifecycleRequest } from './rollout.ts';

const rolloutLifecycle = (hooks: unknown[]): RolloutLifecycle => ({
  apiVersion: 'apps.kusionstack.io/v1alpha1',
  kind: 'RolloutLifecycle',
  metadata: { name: 'web', namespace: 'shop' },
  spec: { targetRef: { kind: 'Deployment', name: 'web' }, hooks } as never,
});
const smoke = { name: 'smoke', trigger: { progressAvailableParams: { progressPoint: 1 } }, jobSpec: { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'smoke', image: 'busybox' }] } } } };

const review = (userInfo: UserInfo, object: RolloutLifecycle, oldObject?: RolloutLifecycle): AdmissionRequest => ({
  uid: 'review-1',
  kind: { group: 'apps.kusionstack.io', version: 'v1alpha1', kind: 'RolloutLifecycle' },
  resource: { group: 'apps.kusionstack.io', version: 'v1alpha1', resource: 'rolloutlifecycles' },
  name: 'web',
  namespace: 'shop',
  operation: oldObject ? 'UPDATE' : 'CREATE',
  userInfo,
  object,
  oldObject,
});

const body = async (req: IncomingMessage): Promise<Record<string, unknown>> => {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return chunks.length ? (JSON.parse(Buffer.concat(chunks).toString()) as Record<string, unknown>) : {};
};

describe('a RolloutLifecycle and its author\'s rights to the workload and to Jobs', () => {
  let server: Server;
  let client: KubeClient;
  let rolloutLifecycles: Informer<RolloutLifecycle>;
  const stop = new AbortController();
  const reviews: Array<{ spec: Record<string, unknown> }> = [];
  const dryRunJobs: string[] = [];
  /** What the fake authorizer answers per user name: `verb resource` pairs allowed, or an error. */
  const authorizer: Record<string, string[] | 'error'> = {
    alice: ['update deployments', 'patch deployments', 'create jobs'],
    // kubectl apply patches: the right to patch is enough.
    bob: ['patch deployments'],
    dave: ['create jobs'],
    carol: 'error',
  };

  before(async () => {
    server = createServer(async (req, res) => {
      const url = new URL(req.url ?? '/', 'http://x');
      const json = (code: number, value: unknown) => res.writeHead(code, { 'content-type': 'application/json' }).end(JSON.stringify(value));
      if (req.method === 'POST' && url.pathname === '/apis/authorization.k8s.io/v1/subjectaccessreviews') {
        const sar = (await body(req)) as { spec: Record<string, unknown> };
        reviews.push(sar);
        const rights = authorizer[sar.spec.user as string] ?? [];
        if (rights === 'error') return json(500, { kind: 'Status', apiVersion: 'v1', status: 'Failure', message: 'the authorizer is unavailable', code: 500 });
        const { verb, resource } = sar.spec.resourceAttributes as { verb: string; resource: string };
        const allowed = rights.includes(`${verb} ${resource}`);
        return json(201, { ...sar, status: allowed ? { allowed, reason: 'RBAC: allowed by RoleBinding "deployers/shop"' } : { allowed } });
      }
      if (req.method === 'POST' && url.pathname === '/apis/batch/v1/namespaces/shop/jobs' && url.searchParams.get('dryRun') === 'All') {
        const job = await body(req);
        dryRunJobs.push((job.metadata as { name: string }).name);
        return json(201, job);
      }
      if (url.pathname === '/apis/apps.kusionstack.io/v1alpha1/rolloutlifecycles') {
        if (url.searchParams.get('watch') === 'true') return void res.writeHead(200, { 'content-type': 'application/json' }).flushHeaders();
        return json(200, { apiVersion: 'apps.kusionstack.io/v1alpha1', kind: 'RolloutLifecycleList', metadata: { resourceVersion: '1' }, items: [] });
      }
      json(404, { kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'NotFound', code: 404 });
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address() as AddressInfo;
    client = KubeClient.fromKubeconfigText(
      JSON.stringify({ apiVersion: 'v1', kind: 'Config', clusters: [{ name: 'c', cluster: { server: `http://127.0.0.1:${port}` } }], users: [{ name: 'u', user: {} }], contexts: [{ name: 'x', context: { cluster: 'c', user: 'u' } }], 'current-context': 'x' }),
    );
    rolloutLifecycles = new Informer<RolloutLifecycle>({ client, type: ROLLOUTLIFECYCLES, logger: silentLogger() });
    void rolloutLifecycles.run(stop.signal);
  });
  after(() => {
    stop.abort();
    client.close();
    server.closeAllConnections();
    server.close();
  });

  const validate = (request: AdmissionRequest) => validateRolloutLifecycleRequest(request, { client, rolloutLifecycles });

  test('a user who may update the workload and create Jobs there is admitted; the reviews ask exactly that, as the review\'s user', async () => {
    const alice: UserInfo = { username: 'alice', uid: 'u-1', groups: ['deployers', 'system:authenticated'], extra: { 'authentication.kubernetes.io/credential-id': ['X509SHA256=ab'] } };
    reviews.length = 0;
    dryRunJobs.length = 0;
    assert.deepEqual(await validate(review(alice, rolloutLifecycle([smoke]))), { allowed: true });
    const asked = (resourceAttributes: Record<string, string>) => ({ user: 'alice', uid: 'u-1', groups: alice.groups, extra: alice.extra, resourceAttributes });
    assert.deepEqual(reviews.map((r) => r.spec), [
      asked({ verb: 'update', group: 'apps', resource: 'deployments', namespace: 'shop', name: 'web' }),
      asked({ verb: 'create', group: 'batch', resource: 'jobs', namespace: 'shop' }),
    ]);
    assert.equal(dryRunJobs.length, 1, 'and the hook\'s Job is then judged by a dry run');
  });

  test('the right to patch the workload is enough (kubectl apply patches)', async () => {
    assert.deepEqual(await validate(review({ username: 'bob' }, rolloutLifecycle([]))), { allowed: true });
  });

  test('a user who may not update or patch the workload is refused, even one who may create Jobs: podops would hold it for them', async () => {
    for (const hooks of [[], [smoke]]) {
      const verdict = await validate(review({ username: 'dave', groups: ['system:authenticated'] }, rolloutLifecycle(hooks)));
      assert.equal(!verdict.allowed && verdict.status.code, 403);
      assert.equal(
        !verdict.allowed && verdict.status.message,
        'spec.targetRef: Forbidden: user "dave" may not update or patch deployments.apps "web" in namespace "shop", and podops labels, holds and releases the workload\'s rollouts in its own name',
      );
    }
    // Adding hooks to a RolloutLifecycle is asked again: podops starts holding the workload.
    const verdict = await validate(review({ username: 'dave' }, rolloutLifecycle([smoke]), rolloutLifecycle([])));
    assert.match(!verdict.allowed ? verdict.status.message : '', /^spec\.targetRef: Forbidden: user "dave" may not update or patch/);
  });

  test('a user who may not create Jobs is refused new hooks, with the field, the right and why it is needed', async () => {
    const verdict = await validate(review({ username: 'bob', groups: ['system:authenticated'] }, rolloutLifecycle([smoke])));
    assert.equal(verdict.allowed, false);
    assert.equal(!verdict.allowed && verdict.status.code, 403);
    assert.equal(!verdict.allowed && verdict.status.message, 'spec.hooks: Forbidden: user "bob" may not create jobs.batch in namespace "shop", and podops runs the hooks as Jobs in its own name');
  });

  test('an authorizer that cannot answer refuses the write (500, retried), never lets it through unchecked', async () => {
    const verdict = await validate(review({ username: 'carol' }, rolloutLifecycle([smoke])));
    assert.equal(!verdict.allowed && verdict.status.code, 500);
    assert.match(
      !verdict.allowed ? verdict.status.message : '',
      /^cannot ask the API server whether user "carol" may update deployments\.apps "web" in namespace "shop" \(podops labels, holds and releases the workload's rollouts in its own name\): the authorizer is unavailable$/,
    );
  });

  test('no review when the hooks do not change; no Job review when no Job is new', async () => {
    reviews.length = 0;
    const labelled = { ...rolloutLifecycle([smoke]), metadata: { ...rolloutLifecycle([smoke]).metadata, labels: { team: 'shop' } } };
    assert.deepEqual(await validate(review({ username: 'dave' }, labelled, rolloutLifecycle([smoke]))), { allowed: true });
    assert.equal(reviews.length, 0);
    // A hook removed: the workload's right is asked (its holds change), no Job's.
    assert.deepEqual(await validate(review({ username: 'bob' }, rolloutLifecycle([]), rolloutLifecycle([smoke]))), { allowed: true });
    assert.deepEqual(reviews.map((r) => (r.spec.resourceAttributes as { resource: string }).resource), ['deployments', 'deployments']);
  });
});
