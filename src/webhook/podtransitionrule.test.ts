// PodTransitionRule admission: defaulting, and validation whose reachability probe of the rule's webhook
// servers only warns, and only runs when a spec really changes (never for dry-run requests, which must have no
// side effects such as connections to arbitrary hosts).

import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { MAX_TRANSITION_RULES, type PodTransitionRule } from '../api/podtransitionrule.ts';
import { MAX_PROBED_ENDPOINTS, reachabilityWarnings, type EndpointProbe, type ReachabilityOptions } from '../transition/webhook/probe.ts';
import { Slots } from '../transition/webhook/slots.ts';
import type { AdmissionOperation, AdmissionRequest } from './admission.ts';
import { defaultTransitionRule, validateTransitionRule } from './podtransitionrule.ts';

const listen = (): Promise<Server> =>
  new Promise((resolve) => {
    const server = createServer((socket) => socket.end()).listen(0, '127.0.0.1', () => resolve(server));
  });
const portOf = (server: Server): number => (server.address() as { port: number }).port;

function rule(url: string, extra: Partial<PodTransitionRule['metadata']> = {}): PodTransitionRule {
  return {
    apiVersion: 'apps.kusionstack.io/v1alpha1',
    kind: 'PodTransitionRule',
    metadata: { name: 'gate', namespace: 'default', ...extra },
    spec: {
      selector: { matchLabels: { app: 'web' } },
      rules: [{ name: 'check', webhook: { clientConfig: { url, poll: { url: `${url}/poll` } } } }],
    },
  };
}

function request(operation: AdmissionOperation, object: PodTransitionRule, options: { oldObject?: PodTransitionRule; dryRun?: boolean } = {}): AdmissionRequest {
  return {
    uid: 'ptr-uid',
    kind: { group: 'apps.kusionstack.io', version: 'v1alpha1', kind: 'PodTransitionRule' },
    resource: { group: 'apps.kusionstack.io', version: 'v1alpha1', resource: 'podtransitionrules' },
    name: object.metadata.name ?? '',
    namespace: 'default',
    operation,
    object,
    ...(options.oldObject && { oldObject: options.oldObject }),
    ...(options.dryRun && { dryRun: true }),
  };
}

/** A probe that records what it was asked to probe. */
function recordingProbe() {
  const probed: string[] = [];
  const probe = (ptr: PodTransitionRule): Promise<string[]> => {
    probed.push(ptr.metadata.name ?? '');
    return Promise.resolve([]);
  };
  return { probed, probe };
}

describe('PodTransitionRule admission', () => {
  let reachable: Server;
  let closedPort: number;

  before(async () => {
    reachable = await listen();
    const closed = await listen();
    closedPort = portOf(closed);
    await new Promise((resolve) => closed.close(resolve));
  });
  after(() => new Promise((resolve) => reachable.close(resolve)));

  /** As podops probes beside its API server on one host (podops up), where loopback is the cluster's network. */
  const besideTheApiServer = (ptr: PodTransitionRule, options: ReachabilityOptions) => reachabilityWarnings(ptr, { ...options, loopbackIsCluster: true });

  test('an unreachable webhook host is admitted with a warning per URL, never denied', async () => {
    const url = `http://127.0.0.1:${closedPort}`;
    const verdict = await validateTransitionRule(request('CREATE', rule(url)), besideTheApiServer);
    assert.equal(verdict.allowed, true);
    assert.deepEqual(verdict.warnings, [
      `spec.rule.check.clientConfig.url: podtransitionrule validate webhook failed, check server reachable, while server unreachable, error: connect ECONNREFUSED 127.0.0.1:${closedPort}`,
      `spec.rule.check.clientConfig.poll.url: podtransitionrule validate webhook failed, check server reachable, while server unreachable, error: connect ECONNREFUSED 127.0.0.1:${closedPort}`,
    ]);
  });

  test('a reachable webhook host is admitted without warnings', async () => {
    const verdict = await validateTransitionRule(request('CREATE', rule(`http://127.0.0.1:${portOf(reachable)}`)), besideTheApiServer);
    assert.deepEqual(verdict, { allowed: true });
  });

  test('in a cluster, addresses private to podops are never probed: its own loopback, link-local, and names that resolve to them', async () => {
    const asked: string[] = [];
    const probe: EndpointProbe = async (host, port) => (asked.push(`${host}:${port}`), undefined);
    const resolve = async (host: string) => (host === 'metadata.internal' ? ['169.254.169.254'] : host === 'me.example' ? ['10.0.0.7', '::1'] : [host]);
    const inCluster = (ptr: PodTransitionRule, options: ReachabilityOptions) => reachabilityWarnings(ptr, { ...options, probe, resolve });
    const rules = ['http://127.0.0.1:9090/x', 'http://[::1]:9090/x', 'http://metadata.internal/latest', 'http://me.example:8080/x', 'http://10.0.0.9:8080/x', 'http://[fd00:ec2::254]/latest', 'http://[::ffff:a9fe:a9fe]/latest'].map((url, i) => ({ name: `r${i}`, webhook: { clientConfig: { url } } }));
    const verdict = await validateTransitionRule(request('CREATE', { ...rule('http://unused'), spec: { selector: { matchLabels: { app: 'web' } }, rules } }), inCluster);
    assert.deepEqual(asked, ['10.0.0.9:8080'], 'only the address that is the cluster network is probed');
    assert.deepEqual(verdict.warnings, [
      "spec.rule.r0.clientConfig.url: the reachability was not checked: 127.0.0.1 is a loopback address, which from podops is podops' own pod",
      "spec.rule.r1.clientConfig.url: the reachability was not checked: ::1 is a loopback address, which from podops is podops' own pod",
      "spec.rule.r2.clientConfig.url: the reachability was not checked: metadata.internal is a link-local address, which from podops is the node's link-local network",
      "spec.rule.r3.clientConfig.url: the reachability was not checked: me.example is a loopback address, which from podops is podops' own pod",
      "spec.rule.r5.clientConfig.url: the reachability was not checked: fd00:ec2::254 is a link-local address, which from podops is the node's link-local network",
      "spec.rule.r6.clientConfig.url: the reachability was not checked: ::ffff:a9fe:a9fe is a link-local address, which from podops is the node's link-local network",
    ]);
  });

  test('reviews at once share the process\'s probe slots; a probe that waits past its time is reported unchecked', async () => {
    let open = 0;
    let mostOpen = 0;
    const slowAnswer: EndpointProbe = async () => {
      mostOpen = Math.max(mostOpen, ++open);
      await new Promise((resolve) => setTimeout(resolve, 20));
      open--;
      return undefined;
    };
    const slots = new Slots(3, 'test slots');
    const many = (prefix: number): PodTransitionRule => ({
      ...rule('http://unused'),
      spec: { selector: { matchLabels: { app: 'web' } }, rules: Array.from({ length: 4 }, (_, i) => ({ name: `w${i}`, webhook: { clientConfig: { url: `http://10.${prefix}.${i}.1:8080/check` } } })) },
    });
    // A deadline no loaded machine reaches: what is shown here is the sharing, not the deadline.
    const verdicts = await Promise.all([1, 2, 3].map((n) => validateTransitionRule(request('CREATE', many(n)), (ptr, o) => reachabilityWarnings(ptr, { ...o, timeoutMs: 60_000, probe: slowAnswer, slots }))));
    assert.ok(mostOpen <= 3, `at most 3 probes at once, saw ${mostOpen}`);
    assert.deepEqual(verdicts.map((v) => v.warnings), [undefined, undefined, undefined], 'every endpoint was probed in time');

    // A connect that overruns its time, as one may on a loaded machine: it holds the slot past the deadline of
    // every probe waiting for it. (One that ended at the deadline would race their timeouts for the slot.)
    const hanging: EndpointProbe = (_host, _port, timeoutMs) => new Promise((resolve) => setTimeout(resolve, timeoutMs + 100, 'i/o timeout'));
    const one = new Slots(1, 'one slot');
    const late = await reachabilityWarnings(many(4), { probe: hanging, slots: one, timeoutMs: 100 });
    assert.equal(late.filter((w) => w.endsWith('i/o timeout')).length, 1, 'the probe that had the slot timed out');
    assert.equal(late.filter((w) => w.endsWith('the reachability was not checked: too many probes were under way in podops')).length, 3);
    assert.equal(await one.acquire(), true, 'the slot is free again');
  });

  test('a dry-run request is validated without probing', async () => {
    const { probed, probe } = recordingProbe();
    const url = `http://127.0.0.1:${closedPort}`;
    assert.deepEqual(await validateTransitionRule(request('CREATE', rule(url), { dryRun: true }), probe), { allowed: true });
    assert.deepEqual(await validateTransitionRule(request('UPDATE', rule(`${url}/v2`), { oldObject: rule(url), dryRun: true }), probe), { allowed: true });
    assert.deepEqual(probed, []);
    // Dry-run or not, an invalid rule gets the same denial.
    const { selector: _selector, ...withoutSelector } = rule(url).spec ?? {};
    const invalid = { ...rule(url), spec: withoutSelector };
    const dryVerdict = await validateTransitionRule(request('CREATE', invalid, { dryRun: true }), probe);
    assert.deepEqual(dryVerdict, await validateTransitionRule(request('CREATE', invalid), probe));
    assert.deepEqual(dryVerdict, { allowed: false, status: { code: 403, reason: 'Forbidden', message: 'podtransitionrule selector cannot be nil' } });
  });

  test('an update probes only when the spec changed', async () => {
    const { probed, probe } = recordingProbe();
    const url = `http://127.0.0.1:${closedPort}`;
    await validateTransitionRule(request('UPDATE', rule(url, { finalizers: ['podopslifecycle.kusionstack.io/x'] }), { oldObject: rule(url) }), probe);
    assert.deepEqual(probed, [], 'a metadata-only update is not probed');
    await validateTransitionRule(request('UPDATE', rule(`${url}/v2`), { oldObject: rule(url) }), probe);
    await validateTransitionRule(request('CREATE', rule(url)), probe);
    assert.deepEqual(probed, ['gate', 'gate']);
  });

  test('a budget out of range is refused on a write of the spec, and a stored one stays writable otherwise (its finalizer)', async () => {
    const budget = (maxUnavailableValue: number | string, finalizers?: string[]): PodTransitionRule => ({
      ...rule('http://unused'),
      metadata: { name: 'gate', namespace: 'default', ...(finalizers && { finalizers }) },
      spec: { selector: { matchLabels: { app: 'web' } }, rules: [{ name: 'budget', availablePolicy: { maxUnavailableValue } }] },
    });
    const refused = await validateTransitionRule(request('CREATE', budget('150%')));
    assert.deepEqual(refused, { allowed: false, status: { code: 403, reason: 'Forbidden', message: 'spec.rule.budget.availablePolicy.maxUnavailableValue: Invalid value: "150%": must not be greater than 100%' } });
    const edited = await validateTransitionRule(request('UPDATE', budget(-1), { oldObject: budget(1) }));
    assert.equal(edited.allowed, false);
    // Stored before podops refused it: the controller's finalizer still comes and goes.
    assert.deepEqual(await validateTransitionRule(request('UPDATE', budget(-1, ['finalizer.operating.kusionstack.io/protected']), { oldObject: budget(-1) })), { allowed: true });
  });

  test('defaulting fills failurePolicy and the poll interval and timeout, on dry-run requests too', () => {
    const expected = {
      allowed: true,
      patch: [
        { op: 'add', path: '/spec/rules/0/webhook/clientConfig/poll/intervalSeconds', value: 5 },
        { op: 'add', path: '/spec/rules/0/webhook/clientConfig/poll/timeoutSeconds', value: 60 },
        { op: 'add', path: '/spec/rules/0/webhook/failurePolicy', value: 'Fail' },
      ],
    };
    const object = rule('https://checks.example.com');
    assert.deepEqual(defaultTransitionRule(request('CREATE', object)), expected);
    assert.deepEqual(defaultTransitionRule(request('CREATE', object, { dryRun: true })), expected);
    const defaulted = rule('https://checks.example.com');
    const webhook = defaulted.spec?.rules?.[0]?.webhook;
    assert.ok(webhook?.clientConfig?.poll);
    Object.assign(webhook, { failurePolicy: 'Ignore' });
    Object.assign(webhook.clientConfig.poll, { intervalSeconds: 10, timeoutSeconds: 30 });
    assert.deepEqual(defaultTransitionRule(request('UPDATE', defaulted, { oldObject: object })), { allowed: true }, 'values the user set are kept');
  });

  test('a rule with the most webhook rules the schema allows is probed a bounded number of endpoints at once, and an update only for what it adds', async () => {
    let open = 0;
    let mostOpen = 0;
    const asked: string[] = [];
    const slowRefusal: EndpointProbe = async (host, port) => {
      asked.push(`${host}:${port}`);
      mostOpen = Math.max(mostOpen, ++open);
      await new Promise((resolve) => setTimeout(resolve, 20));
      open--;
      return 'connect ECONNREFUSED';
    };
    const probe = (ptr: PodTransitionRule, options: Parameters<typeof reachabilityWarnings>[1]) => reachabilityWarnings(ptr, { ...options, probe: slowRefusal });
    const rules = Array.from({ length: MAX_TRANSITION_RULES }, (_, i) => ({
      name: `w${i}`,
      webhook: { clientConfig: { url: `http://10.0.${i}.1:8080/check`, poll: { url: `http://10.1.${i}.1:8080/poll` } } },
    }));
    const big: PodTransitionRule = { ...rule('http://unused'), spec: { selector: { matchLabels: { app: 'web' } }, rules } };
    const created = await validateTransitionRule(request('CREATE', big), probe);
    assert.equal(created.allowed, true);
    assert.equal(asked.length, MAX_PROBED_ENDPOINTS);
    assert.ok(mostOpen <= MAX_PROBED_ENDPOINTS, `at most ${MAX_PROBED_ENDPOINTS} probes at once, saw ${mostOpen}`);
    assert.equal(created.warnings?.length, MAX_PROBED_ENDPOINTS + 1);
    assert.equal(created.warnings?.at(-1), `the reachability of ${2 * MAX_TRANSITION_RULES - MAX_PROBED_ENDPOINTS} more webhook endpoints was not checked (at most ${MAX_PROBED_ENDPOINTS} per write)`);

    asked.length = 0;
    const changed = structuredClone(big);
    const first = changed.spec?.rules?.[0]?.webhook?.clientConfig;
    assert.ok(first);
    first.url = 'http://10.9.9.9:8080/check';
    const updated = await validateTransitionRule(request('UPDATE', changed, { oldObject: big }), probe);
    assert.equal(updated.allowed, true);
    assert.deepEqual(asked, ['10.9.9.9:8080'], 'only the endpoint the update adds');
    assert.deepEqual(updated.warnings, ['spec.rule.w0.clientConfig.url: podtransitionrule validate webhook failed, check server reachable, while server unreachable, error: connect ECONNREFUSED']);
  });

  test('URLs sharing an endpoint are probed once and warned about each', async () => {
    const asked: string[] = [];
    const probe = (ptr: PodTransitionRule) =>
      reachabilityWarnings(ptr, { loopbackIsCluster: true, probe: async (host, port) => (asked.push(`${host}:${port}`), 'down') });
    const verdict = await validateTransitionRule(request('CREATE', rule(`http://127.0.0.1:${closedPort}`)), probe);
    assert.deepEqual(asked, [`127.0.0.1:${closedPort}`]);
    assert.equal(verdict.warnings?.length, 2);
  });
});
