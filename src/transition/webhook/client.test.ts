// The webhook client against real HTTP(S) servers on 127.0.0.1: the exact request, the caBundle as the
// trust root, and every broken-server case ending in a clear error within its deadline.

import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import type { WebhookRequest } from '../../api/podtransitionrule.ts';
import { ptr } from '../fixtures.test-support.ts';
import { sendPollRequest, sendWebhookRequest, WebhookCallError } from './client.ts';
import { reachabilityWarnings, serverOnLoopback } from './probe.ts';
import { closedPort, json, otherPki, startRuleServer, testPki, type RuleServer } from './rule-server.test-support.ts';

const BODY: WebhookRequest = { traceId: 't1', ruleName: 'w', resources: [{ apiVersion: 'core/v1', kind: 'Pod', name: 'a' }] };
const servers: RuleServer[] = [];
after(() => Promise.all(servers.map((s) => s.close())));
const serve = async (...args: Parameters<typeof startRuleServer>): Promise<RuleServer> => {
  const server = await startRuleServer(...args);
  servers.push(server);
  return server;
};

async function fails(call: Promise<unknown>, message: string | RegExp): Promise<void> {
  await assert.rejects(call, (err: unknown) => {
    assert.ok(err instanceof WebhookCallError, `a WebhookCallError, got ${String(err)}`);
    if (typeof message === 'string') assert.equal(err.message, message);
    else assert.match(err.message, message);
    return true;
  });
}

describe('webhook client: requests and answers', () => {
  test('the first request is a JSON POST of the exact body; the answer is parsed', async () => {
    const server = await serve((_req, res) => json(res, { success: true, message: 'ok', finishedNames: ['a'] }));
    const answer = await sendWebhookRequest(`${server.url}/check`, '', BODY);
    assert.deepEqual(answer, { success: true, message: 'ok', finishedNames: ['a'], poll: false, async: false, traceId: '', taskId: '' });
    const [request] = server.requests;
    assert.equal(request?.method, 'POST');
    assert.equal(request?.url, '/check');
    assert.equal(request?.headers['content-type'], 'application/json');
    assert.equal(request?.body, JSON.stringify(BODY));
  });

  test('a poll is a GET of the URL with its query', async () => {
    const server = await serve((_req, res) => json(res, { success: true, finished: false, finishedNames: ['a'], message: 'm' }));
    const answer = await sendPollRequest(`${server.url}/fetch?task-id=tk`, '');
    assert.deepEqual(answer, { success: true, message: 'm', finished: false, finishedNames: ['a'], stop: false });
    assert.equal(server.requests[0]?.method, 'GET');
    assert.equal(server.requests[0]?.url, '/fetch?task-id=tk');
  });

  test('HTTPS: the caBundle is the trust root', async () => {
    const pki = await testPki();
    const server = await serve((_req, res) => json(res, { success: true }), pki);
    assert.equal((await sendWebhookRequest(server.url, pki.caBundle, BODY)).success, true);
    // Without the bundle the system roots do not know the test CA.
    const host = new URL(server.url).host;
    const untrusted = new RegExp(`^x509: the certificate of ${host.replaceAll('.', '\\.')} is not signed by the system trust roots \\(the rule has no caBundle\\) \\([A-Z_]+\\)$`);
    await fails(sendWebhookRequest(server.url, '', BODY), untrusted);
    await fails(sendWebhookRequest(server.url, 'Cg==', BODY), untrusted);
  });

  test('HTTPS: a server certificate from another CA is refused, naming the caBundle and not Node.js advice', async () => {
    const server = await serve((_req, res) => json(res, { success: true }), await otherPki());
    const call = sendWebhookRequest(server.url, (await testPki()).caBundle, BODY);
    await fails(call, new RegExp(`^x509: the certificate of ${new URL(server.url).host.replaceAll('.', '\\.')} is not signed by the rule's caBundle \\([A-Z_]+\\)$`));
    await call.catch((err: Error) => assert.doesNotMatch(err.message, /use-system-ca|Node/));
  });

  test('a caBundle that is not base64 of a PEM certificate', async () => {
    await fails(sendWebhookRequest('https://127.0.0.1:1', 'not*base64', BODY), 'invalid caBundle: illegal base64 data at input byte 3');
  });
});

describe('webhook client: broken servers', () => {
  test('HTTP 500: status and body', async () => {
    const server = await serve((_req, res) => {
      res.writeHead(500);
      res.end('test http error case');
    });
    await fails(sendWebhookRequest(server.url, '', BODY), 'failed by response status code: 500, body: test http error case');
  });

  test('invalid JSON', async () => {
    const server = await serve((_req, res) => res.end('{"success": tru'));
    await fails(sendWebhookRequest(server.url, '', BODY), /^invalid JSON in response: .+, response: \{"success": tru$/);
  });

  test('the wrong shape', async () => {
    const server = await serve((_req, res) => json(res, { success: 'yes' }));
    await fails(sendPollRequest(server.url, ''), 'invalid response: "success" must be a boolean, response: {"success":"yes"}');
  });

  test('a 10 MB body is cut at the size limit, and long bodies are cut in messages', async () => {
    const server = await serve((_req, res) => {
      res.writeHead(200);
      res.end(`{"message":"${'x'.repeat(10 * 1024 * 1024)}`);
    });
    await fails(sendWebhookRequest(server.url, '', BODY), 'response body exceeds 1048576 bytes');
    await fails(sendWebhookRequest(server.url, '', BODY, { maxResponseBytes: 20 * 1024 * 1024 }), /^invalid JSON in response: .*, response: \{"message":"x{244}\.\.\.\(truncated\)$/s);
  });

  test('a server that never answers: the deadline', async () => {
    const server = await serve(() => undefined);
    await fails(sendWebhookRequest(server.url, '', BODY, { timeoutMs: 150 }), 'request timed out after 150ms');
  });

  test('a slow drip: the deadline covers the whole exchange', async () => {
    const server = await serve((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      const drip = setInterval(() => res.write(' '), 20);
      res.on('close', () => clearInterval(drip));
    });
    await fails(sendPollRequest(server.url, '', { timeoutMs: 200 }), 'request timed out after 200ms');
  });

  test('connection refused', async () => {
    await fails(sendWebhookRequest(`http://127.0.0.1:${await closedPort()}`, '', BODY), /ECONNREFUSED/);
  });

  test('aborted by the caller', async () => {
    const server = await serve(() => undefined);
    const controller = new AbortController();
    const call = sendPollRequest(server.url, '', { signal: controller.signal });
    controller.abort();
    await fails(call, 'request aborted');
  });
});

describe('reachability probe', () => {
  test('loopback is the cluster network only for an API server on loopback', () => {
    assert.equal(serverOnLoopback('https://127.0.0.1:6443'), true);
    assert.equal(serverOnLoopback('https://localhost:6443/'), true);
    assert.equal(serverOnLoopback('https://[::1]:6443'), true);
    assert.equal(serverOnLoopback('https://10.96.0.1:443'), false);
    assert.equal(serverOnLoopback('https://api.example.com'), false);
  });

  test('a listening server is reachable; a closed port is a warning, not an error', async () => {
    const server = await serve((_req, res) => json(res, {}));
    const port = await closedPort();
    const rule = ptr([
      { name: 'up', webhook: { clientConfig: { url: server.url } } },
      { name: 'down', webhook: { clientConfig: { url: `http://127.0.0.1:${port}/check`, poll: { url: server.url } } } },
      { name: 'unparsable', webhook: { clientConfig: { url: 'not a url' } } },
    ]);
    // The servers run on this host, as beside an API server on loopback.
    const warnings = await reachabilityWarnings(rule, { timeoutMs: 1000, loopbackIsCluster: true });
    assert.equal(warnings.length, 1);
    assert.match(
      warnings[0] as string,
      new RegExp(`^spec\\.rule\\.down\\.clientConfig\\.url: podtransitionrule validate webhook failed, check server reachable, while server unreachable, error: connect ECONNREFUSED 127\\.0\\.0\\.1:${port}$`),
    );
  });
});
