// A RolloutLifecycle's hooks become Jobs that podops creates with its own rights, so new hooks are admitted
// only from a user the API server's authorizer lets create Jobs in the namespace (a SubjectAccessReview for
// the review's userInfo). Here the API server is a small fake whose authorizer the test decides; the real
// request body is checked, and an authorizer that fails refuses the write rather than letting it through.

import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import type { RolloutLifecycle } from '../../src/api/rolloutlifecycle.ts';
import { KubeClient } from '../../src/kube/client.ts';
import { Informer } from '../../src/kube/informer.ts';
import { silentLogger } from '../../src/kube/log.ts';
import { ROLLOUTLIFECYCLES } from '../../src/kube/resources.ts';
import type { AdmissionRequest, UserInfo } from '../../src/webhook/admission.ts';
import { validateRolloutLifecycleRequest } from '../../src/webhook/rollout.ts';

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

describe('RolloutLifecycle hooks and the author\'s right to create Jobs', () => {
  let server: Server;
  let client: KubeClient;
  let rolloutLifecycles: Informer<RolloutLifecycle>;
  const stop = new AbortController();
  const reviews: Array<{ spec: Record<string, unknown> }> = [];
  const dryRunJobs: string[] = [];
  /** What the fake authorizer answers per user name. */
  const authorizer: Record<string, { allowed: boolean; reason?: string } | 'error'> = {
    alice: { allowed: true, reason: 'RBAC: allowed by RoleBinding "deployers/shop"' },
    bob: { allowed: false, reason: '' },
    carol: 'error',
  };

  before(async () => {
    server = createServer(async (req, res) => {
      const url = new URL(req.url ?? '/', 'http://x');
      const json = (code: number, value: unknown) => res.writeHead(code, { 'content-type': 'application/json' }).end(JSON.stringify(value));
      if (req.method === 'POST' && url.pathname === '/apis/authorization.k8s.io/v1/subjectaccessreviews') {
        const sar = (await body(req)) as { spec: Record<string, unknown> };
        reviews.push(sar);
        const answer = authorizer[sar.spec.user as string];
        if (answer === 'error') return json(500, { kind: 'Status', apiVersion: 'v1', status: 'Failure', message: 'the authorizer is unavailable', code: 500 });
        return json(201, { ...sar, status: answer ?? { allowed: false } });
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

  test('a user who may create Jobs there is admitted; the review asks exactly that, as the review\'s user', async () => {
    const alice: UserInfo = { username: 'alice', uid: 'u-1', groups: ['deployers', 'system:authenticated'], extra: { 'authentication.kubernetes.io/credential-id': ['X509SHA256=ab'] } };
    reviews.length = 0;
    assert.deepEqual(await validate(review(alice, rolloutLifecycle([smoke]))), { allowed: true });
    assert.deepEqual(reviews.map((r) => r.spec), [{ user: 'alice', uid: 'u-1', groups: alice.groups, extra: alice.extra, resourceAttributes: { verb: 'create', group: 'batch', resource: 'jobs', namespace: 'shop' } }]);
    assert.equal(dryRunJobs.length, 1, 'and the hook\'s Job is then judged by a dry run');
  });

  test('a user who may not is refused, with the field, the right and why it is needed', async () => {
    const verdict = await validate(review({ username: 'bob', groups: ['system:authenticated'] }, rolloutLifecycle([smoke])));
    assert.equal(verdict.allowed, false);
    assert.equal(!verdict.allowed && verdict.status.code, 403);
    assert.equal(!verdict.allowed && verdict.status.message, 'spec.hooks: Forbidden: user "bob" may not create jobs.batch in namespace "shop", and podops runs the hooks as Jobs in its own name');
  });

  test('an authorizer that cannot answer refuses the write (500, retried), never lets it through unchecked', async () => {
    const verdict = await validate(review({ username: 'carol' }, rolloutLifecycle([smoke])));
    assert.equal(!verdict.allowed && verdict.status.code, 500);
    assert.match(!verdict.allowed ? verdict.status.message : '', /^cannot ask the API server whether user "carol" may create jobs\.batch in namespace "shop" \(podops runs the hooks as Jobs in its own name\): the authorizer is unavailable$/);
  });

  test('no review when no hook is new: a RolloutLifecycle without hooks, and an update that keeps the hooks', async () => {
    reviews.length = 0;
    assert.deepEqual(await validate(review({ username: 'bob' }, rolloutLifecycle([]))), { allowed: true });
    const labelled = { ...rolloutLifecycle([smoke]), metadata: { ...rolloutLifecycle([smoke]).metadata, labels: { team: 'shop' } } };
    assert.deepEqual(await validate(review({ username: 'bob' }, labelled, rolloutLifecycle([smoke]))), { allowed: true });
    assert.equal(reviews.length, 0);
  });
});
