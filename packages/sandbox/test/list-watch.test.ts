// Selectors, paging, list resourceVersion semantics, watch resume, bookmarks and 410 Gone with a
// relist, through @kubernetes/client-node, raw HTTP and kubectl.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { CoreV1Api, Watch, type V1ConfigMap } from '@kubernetes/client-node';
import { eventually, podManifest, skipWithoutKubectl, startHarness, type Harness } from './harness.ts';

let h: Harness;
let core: CoreV1Api;
const ns = 'lw';

before(async () => {
  // A small watch cache so that old resourceVersions expire within the test.
  h = await startHarness({ watchCacheSize: 20, bookmarkIntervalMs: 200 });
  core = h.kc.makeApiClient(CoreV1Api);
  await core.createNamespace({ body: { metadata: { name: ns } } });
  for (let i = 0; i < 8; i++) {
    await core.createNamespacedConfigMap({
      namespace: ns,
      body: { metadata: { name: `cm-${i}`, labels: { tier: i % 2 ? 'odd' : 'even', idx: String(i) } } },
    });
  }
});
after(() => h.stop());

interface WatchLine {
  type: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON of any kind, checked field by field
  object: any;
}

/** Reads a watch stream until `count` lines arrived or the stream ended. */
async function watchLines(path: string, count: number, timeoutMs = 3000): Promise<WatchLine[]> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  const res = await fetch(`${h.sandbox.url}${path}`, { signal: controller.signal });
  assert.equal(res.status, 200);
  const events: WatchLine[] = [];
  const decoder = new TextDecoder();
  let buffer = '';
  try {
    for await (const chunk of res.body as AsyncIterable<Uint8Array>) {
      buffer += decoder.decode(chunk, { stream: true });
      let nl: number;
      while ((nl = buffer.indexOf('\n')) >= 0) {
        events.push(JSON.parse(buffer.slice(0, nl)));
        buffer = buffer.slice(nl + 1);
      }
      if (events.length >= count) break;
    }
  } catch (err) {
    if (!controller.signal.aborted) throw err;
  } finally {
    clearTimeout(timer);
    controller.abort();
  }
  return events;
}

describe('selectors', () => {
  test('label selectors: =, ==, !=, in, notin, exists, !exists', async () => {
    const names = async (labelSelector: string): Promise<string[]> =>
      (await core.listNamespacedConfigMap({ namespace: ns, labelSelector })).items.map((c) => c.metadata?.name ?? '').filter((n) => n.startsWith('cm-'));
    assert.deepEqual(await names('tier=odd'), ['cm-1', 'cm-3', 'cm-5', 'cm-7']);
    assert.deepEqual(await names('tier==even,idx!=0'), ['cm-2', 'cm-4', 'cm-6']);
    assert.deepEqual(await names('idx in (1,2)'), ['cm-1', 'cm-2']);
    assert.deepEqual(await names('idx notin (0,1,2,3,4,5)'), ['cm-6', 'cm-7']);
    assert.deepEqual(await names('idx'), ['cm-0', 'cm-1', 'cm-2', 'cm-3', 'cm-4', 'cm-5', 'cm-6', 'cm-7']);
    assert.deepEqual(await names('!idx'), []);
    const bad = await h.http('GET', `/api/v1/namespaces/${ns}/configmaps?labelSelector=${encodeURIComponent('bad selector!!')}`);
    assert.equal(bad.status, 400);
    assert.equal(bad.json.message, "unable to parse requirement: found 'selector', expected: in, notin, =, ==, !=, gt, lt");
  });

  test('field selectors: metadata.name, spec.nodeName, status.phase; unsupported fields are 400', async () => {
    await core.createNamespacedPod({ namespace: ns, body: podManifest('bound', { spec: { nodeName: 'node-a' } }) });
    await core.createNamespacedPod({ namespace: ns, body: podManifest('free') });
    const byNode = await core.listNamespacedPod({ namespace: ns, fieldSelector: 'spec.nodeName=node-a' });
    assert.deepEqual(byNode.items.map((p) => p.metadata?.name), ['bound']);
    const pending = await core.listNamespacedPod({ namespace: ns, fieldSelector: 'status.phase=Pending,metadata.name!=bound' });
    assert.deepEqual(pending.items.map((p) => p.metadata?.name), ['free']);
    const byName = await core.listNamespacedConfigMap({ namespace: ns, fieldSelector: 'metadata.name=cm-3' });
    assert.deepEqual(byName.items.map((c) => c.metadata?.name), ['cm-3']);
    const cmBad = await h.http('GET', `/api/v1/namespaces/${ns}/configmaps?fieldSelector=spec.bogus%3Dx`);
    assert.equal(cmBad.status, 400);
    assert.equal(cmBad.json.message, '"spec.bogus" is not a known field selector: only "metadata.name", "metadata.namespace"');
    const podBad = await h.http('GET', `/api/v1/namespaces/${ns}/pods?fieldSelector=metadata.labels.app%3Dx`);
    assert.equal(podBad.json.message, 'field label not supported: metadata.labels.app');
  });

  test('events select on involvedObject fields', async () => {
    await core.createNamespacedEvent({
      namespace: ns,
      body: { metadata: { name: 'ev1' }, involvedObject: { kind: 'Pod', name: 'bound', namespace: ns }, reason: 'Test', message: 'hello' },
    });
    const found = await core.listNamespacedEvent({ namespace: ns, fieldSelector: 'involvedObject.kind=Pod,involvedObject.name=bound' });
    assert.deepEqual(found.items.map((e) => e.metadata?.name), ['ev1']);
  });
});

describe('list bodies', () => {
  test('items with multi-byte text are sent whole, with a Content-Length in bytes; an empty list has items []', async () => {
    await core.createNamespace({ body: { metadata: { name: 'utf8' } } });
    const data = { greeting: 'grüße, 世界 🚀', plain: 'ascii' };
    for (const name of ['a', 'b', 'c']) await core.createNamespacedConfigMap({ namespace: 'utf8', body: { metadata: { name, labels: { text: 'utf8' } }, data } });
    const res = await fetch(`${h.sandbox.url}/api/v1/namespaces/utf8/configmaps?labelSelector=text`);
    const bytes = Buffer.from(await res.arrayBuffer());
    assert.equal(res.headers.get('content-length'), String(bytes.length));
    const list = JSON.parse(bytes.toString('utf8'));
    assert.equal(list.kind, 'ConfigMapList');
    assert.deepEqual(list.items.map((i: V1ConfigMap) => [i.metadata?.name, i.data]), [['a', data], ['b', data], ['c', data]]);

    const empty = await fetch(`${h.sandbox.url}/api/v1/namespaces/utf8/secrets`);
    const emptyList = JSON.parse(await empty.text());
    assert.deepEqual(emptyList.items, []);
    assert.equal(typeof emptyList.metadata.resourceVersion, 'string');
  });
});

describe('paging and list resourceVersion semantics', () => {
  test('limit/continue pages at one resourceVersion with remainingItemCount', async () => {
    const first = await h.http('GET', `/api/v1/namespaces/${ns}/configmaps?limit=3&labelSelector=idx`);
    assert.equal(first.json.items.length, 3);
    assert.ok(first.json.metadata.continue);
    const token = JSON.parse(Buffer.from(first.json.metadata.continue, 'base64url').toString());
    assert.equal(token.v, 'meta.k8s.io/v1');
    assert.equal(String(token.rv), first.json.metadata.resourceVersion);
    // A write between pages does not change the pages already promised.
    await core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'cm-00', labels: { idx: 'x' } } } });
    const names: string[] = first.json.items.map((i: V1ConfigMap) => i.metadata?.name);
    let cont = first.json.metadata.continue;
    while (cont) {
      const page = await h.http('GET', `/api/v1/namespaces/${ns}/configmaps?limit=3&labelSelector=idx&continue=${cont}`);
      assert.equal(page.json.metadata.resourceVersion, first.json.metadata.resourceVersion);
      names.push(...page.json.items.map((i: V1ConfigMap) => i.metadata?.name));
      cont = page.json.metadata.continue;
    }
    assert.deepEqual(names, ['cm-0', 'cm-1', 'cm-2', 'cm-3', 'cm-4', 'cm-5', 'cm-6', 'cm-7']);
    const unfiltered = await h.http('GET', `/api/v1/namespaces/${ns}/configmaps?limit=2`);
    assert.equal(typeof unfiltered.json.metadata.remainingItemCount, 'number');
    await core.deleteNamespacedConfigMap({ name: 'cm-00', namespace: ns });
  });

  test('client-node: limit and _continue page through a label selection at one resourceVersion', async () => {
    const pages: string[][] = [];
    const versions = new Set<string>();
    const remaining: (number | undefined)[] = [];
    let token: string | undefined;
    do {
      const page = await core.listNamespacedConfigMap({ namespace: ns, labelSelector: 'idx', limit: 3, ...(token ? { _continue: token } : {}) });
      pages.push(page.items.map((c) => c.metadata?.name ?? ''));
      versions.add(page.metadata?.resourceVersion ?? '');
      remaining.push(page.metadata?.remainingItemCount);
      token = page.metadata?._continue;
      // A write between pages shows in none of them: the pages belong to the first page's resourceVersion.
      if (pages.length === 1) await core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'cm-between', labels: { idx: 'between' } } } });
    } while (token);
    assert.deepEqual(pages, [
      ['cm-0', 'cm-1', 'cm-2'],
      ['cm-3', 'cm-4', 'cm-5'],
      ['cm-6', 'cm-7'],
    ]);
    assert.equal(versions.size, 1);
    // remainingItemCount is only given for unfiltered lists: with a selector the server cannot count the rest.
    assert.deepEqual(remaining, [undefined, undefined, undefined]);
    const fresh = await core.listNamespacedConfigMap({ namespace: ns, labelSelector: 'idx', limit: 100 });
    assert.ok(fresh.items.some((c) => c.metadata?.name === 'cm-between'));
    assert.equal(fresh.metadata?._continue, undefined);
    await core.deleteNamespacedConfigMap({ name: 'cm-between', namespace: ns });
  });

  test('resourceVersion=0 ignores limit; resourceVersionMatch without resourceVersion is 422; bad tokens are 400', async () => {
    const all = await h.http('GET', `/api/v1/namespaces/${ns}/configmaps?resourceVersion=0&limit=2`);
    assert.ok(all.json.items.length > 2);
    assert.equal(all.json.metadata.continue, undefined);
    const match = await h.http('GET', `/api/v1/namespaces/${ns}/configmaps?resourceVersionMatch=Exact`);
    assert.equal(match.status, 422);
    assert.equal(
      match.json.message,
      'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided',
    );
    const garbage = await h.http('GET', `/api/v1/namespaces/${ns}/configmaps?limit=2&continue=garbage`);
    assert.equal(garbage.status, 400);
    assert.match(garbage.json.message, /^invalid continue token: continue key is not valid/);
    const both = await h.http('GET', `/api/v1/namespaces/${ns}/configmaps?limit=2&continue=x&resourceVersion=5`);
    assert.equal(both.json.message, 'specifying resource version is not allowed when using continue');
  });

  test('resourceVersion values are read as uint64 and echoed with every digit, as kube-apiserver answers', async () => {
    const huge = `1${'0'.repeat(300)}`;
    const outOfRange = await h.http('GET', `/api/v1/namespaces/${ns}/configmaps?resourceVersion=${huge}`);
    assert.equal(outOfRange.status, 500);
    assert.equal(outOfRange.json.message, `resourceVersion: Invalid value: "${huge}": strconv.ParseUint: parsing "${huge}": value out of range`);
    // An exact read (a limit, or resourceVersionMatch=Exact) goes to etcd: a version it cannot parse is a 400,
    // one past int64 a 504 at once.
    const exactGarbage = await h.http('GET', `/api/v1/namespaces/${ns}/configmaps?resourceVersion=abc&limit=1`);
    assert.equal(exactGarbage.status, 400);
    assert.equal(exactGarbage.json.reason, 'BadRequest');
    assert.equal(exactGarbage.json.message, 'invalid resource version: resourceVersion: Invalid value: "abc": strconv.ParseUint: parsing "abc": invalid syntax');
    const pastInt64 = await h.http('GET', `/api/v1/namespaces/${ns}/configmaps?resourceVersion=9223372036854775808&resourceVersionMatch=Exact`);
    assert.equal(pastInt64.status, 504);
    assert.match(pastInt64.json.message, /^Timeout: Too large resource version: 9223372036854775808, current: \d+$/);
    assert.deepEqual(pastInt64.json.details, { causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }] });
    // A version the server waits for is echoed as parsed: all 20 digits of the largest uint64, no float notation.
    const largest = await h.http('GET', `/api/v1/namespaces/${ns}/configmaps/cm-1?resourceVersion=018446744073709551615`);
    assert.equal(largest.status, 504);
    assert.match(largest.json.message, /^Timeout: Too large resource version: 18446744073709551615, current: \d+$/);
    assert.equal(largest.json.details.retryAfterSeconds, 1);
    const getGarbage = await h.http('GET', `/api/v1/namespaces/${ns}/configmaps/cm-1?resourceVersion=1e300`);
    assert.equal(getGarbage.json.message, 'resourceVersion: Invalid value: "1e300": strconv.ParseUint: parsing "1e300": invalid syntax');
    // A delete precondition compares the text: not a parse error, a conflict naming it.
    const precondition = await h.http('DELETE', `/api/v1/namespaces/${ns}/configmaps/cm-1?dryRun=All`, { preconditions: { resourceVersion: '1e300' } });
    assert.equal(precondition.status, 409);
    assert.match(precondition.json.message, /the ResourceVersion in the precondition \(1e300\) does not match the ResourceVersion in record \(\d+\)/);
  });

  test('a continue token that does not decode is a 400 with the real decoder\'s words', async () => {
    const token = (json: string): string => Buffer.from(json).toString('base64url');
    const cases: [string, string][] = [
      ['%25%25%25%25', 'illegal base64 data at input byte 0'],
      ['ab%3D%3D', 'illegal base64 data at input byte 2'],
      ['abcde', 'illegal base64 data at input byte 4'],
      [token('{x'), "invalid character 'x' looking for beginning of object key string"],
      [token('{"v":"meta.k8s.io/v1","rv":"5","start":"a"}'), 'json: cannot unmarshal string into Go struct field continueToken.rv of type int64'],
      [token('{"v":"meta.k8s.io/v1","rv":1e2,"start":"a"}'), 'json: cannot unmarshal number 1e2 into Go struct field continueToken.rv of type int64'],
      [token('[1]'), 'json: cannot unmarshal array into Go value of type storage.continueToken'],
      [token('{"v":"x","rv":1,"start":"a"}'), 'server does not recognize this encoded version x'],
      [token('{"v":"meta.k8s.io/v1","rv":0,"start":"a"}'), 'incorrect encoded start resourceVersion (version meta.k8s.io/v1)'],
      [token('{"v":"meta.k8s.io/v1","rv":5,"start":""}'), 'encoded start key empty (version meta.k8s.io/v1)'],
      [token('{"v":"meta.k8s.io/v1","rv":5,"start":"a/../b"}'), 'a/../b'],
    ];
    for (const [continueToken, why] of cases) {
      const res = await h.http('GET', `/api/v1/namespaces/${ns}/configmaps?limit=1&continue=${continueToken}`);
      assert.equal(res.status, 400, continueToken);
      assert.equal(res.json.message, `invalid continue token: continue key is not valid: ${why}`);
    }
  });

  test('an expired continue token is 410 with a token to continue inconsistently', async () => {
    const first = await h.http('GET', `/api/v1/namespaces/${ns}/configmaps?limit=2&labelSelector=idx`);
    await core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'compact-me' } } });
    h.sandbox.compact();
    const expired = await h.http('GET', `/api/v1/namespaces/${ns}/configmaps?limit=2&labelSelector=idx&continue=${first.json.metadata.continue}`);
    assert.equal(expired.status, 410);
    assert.equal(expired.json.reason, 'Expired');
    const token = JSON.parse(Buffer.from(expired.json.metadata.continue, 'base64url').toString());
    assert.equal(token.rv, -1);
    const rest = await h.http('GET', `/api/v1/namespaces/${ns}/configmaps?limit=10&labelSelector=idx&continue=${expired.json.metadata.continue}`);
    assert.equal(rest.status, 200);
    assert.deepEqual(rest.json.items.map((i: V1ConfigMap) => i.metadata?.name), ['cm-2', 'cm-3', 'cm-4', 'cm-5', 'cm-6', 'cm-7']);
    await core.deleteNamespacedConfigMap({ name: 'compact-me', namespace: ns });
  });
});

describe('watch', () => {
  test('initial ADDED events then the initial-events-end bookmark, then live events', async () => {
    const stream = watchLines(`/api/v1/namespaces/${ns}/configmaps?watch=1&allowWatchBookmarks=true&labelSelector=tier%3Dodd`, 6);
    setTimeout(() => void core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'live-odd', labels: { tier: 'odd' } } } }), 100);
    const events = await stream;
    assert.deepEqual(events.slice(0, 4).map((e) => [e.type, e.object.metadata.name]), [
      ['ADDED', 'cm-1'],
      ['ADDED', 'cm-3'],
      ['ADDED', 'cm-5'],
      ['ADDED', 'cm-7'],
    ]);
    assert.equal(events[4]?.type, 'BOOKMARK');
    assert.equal(events[4]?.object.metadata.annotations['k8s.io/initial-events-end'], 'true');
    assert.equal(events[5]?.type, 'ADDED');
    assert.equal(events[5]?.object.metadata.name, 'live-odd');
  });

  test('resuming from a resourceVersion replays what happened after it', async () => {
    const list = await core.listNamespacedConfigMap({ namespace: ns });
    const rv = list.metadata?.resourceVersion ?? '';
    await core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'after-1' } } });
    await core.patchNamespacedConfigMap({ name: 'after-1', namespace: ns, body: [{ op: 'add', path: '/data', value: { a: '1' } }] });
    await core.deleteNamespacedConfigMap({ name: 'after-1', namespace: ns });
    const events = await watchLines(`/api/v1/namespaces/${ns}/configmaps?watch=1&resourceVersion=${rv}`, 3);
    assert.deepEqual(events.map((e) => [e.type, e.object.metadata.name]), [
      ['ADDED', 'after-1'],
      ['MODIFIED', 'after-1'],
      ['DELETED', 'after-1'],
    ]);
    const rvs = events.map((e) => Number(e.object.metadata.resourceVersion));
    assert.ok(rvs[0]! < rvs[1]! && rvs[1]! < rvs[2]!);
  });

  test('a resourceVersion past the bounded history gets one 410 Expired ERROR event, in a 200 stream', async () => {
    const old = (await core.listNamespacedConfigMap({ namespace: ns })).metadata?.resourceVersion ?? '';
    for (let i = 0; i < 25; i++) await core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: `churn-${i}` } } });
    const events = await watchLines(`/api/v1/namespaces/${ns}/configmaps?watch=1&resourceVersion=${old}`, 2, 1000);
    assert.equal(events.length, 1);
    assert.equal(events[0]?.type, 'ERROR');
    assert.equal(events[0]?.object.code, 410);
    assert.equal(events[0]?.object.reason, 'Expired');
    assert.match(events[0]?.object.message, new RegExp(`^too old resource version: ${old} \\(\\d+\\)$`));
  });

  test('client-node Watch: 410 Gone ends the watch; a relist and a new watch from its resourceVersion continue', async () => {
    const watch = new Watch(h.kc);
    const stale = (await core.listNamespacedConfigMap({ namespace: ns })).metadata?.resourceVersion ?? '';
    for (let i = 0; i < 25; i++) await core.deleteNamespacedConfigMap({ name: `churn-${i}`, namespace: ns });
    const gone = await new Promise<unknown>((resolve) => {
      void watch.watch(`/api/v1/namespaces/${ns}/configmaps`, { resourceVersion: stale }, (type, obj) => {
        if (type === 'ERROR') resolve(obj);
      }, () => {});
    });
    assert.equal((gone as { code: number }).code, 410);
    const relist = await core.listNamespacedConfigMap({ namespace: ns });
    const seen: string[] = [];
    const req = await watch.watch(
      `/api/v1/namespaces/${ns}/configmaps`,
      { resourceVersion: relist.metadata?.resourceVersion ?? '' },
      (type, obj: V1ConfigMap) => seen.push(`${type} ${obj.metadata?.name}`),
      () => {},
    );
    await core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'after-relist' } } });
    await eventually(() => (seen.includes('ADDED after-relist') ? true : undefined));
    req.abort();
    assert.deepEqual(seen, ['ADDED after-relist']);
  });

  test('periodic BOOKMARKs carry the global resourceVersion; timeoutSeconds closes the stream', async () => {
    const started = Date.now();
    const stream = watchLines(`/api/v1/namespaces/${ns}/configmaps?watch=1&resourceVersion=${h.sandbox.resourceVersion}&allowWatchBookmarks=true&timeoutSeconds=1`, 10, 3000);
    await new Promise((r) => setTimeout(r, 50));
    await core.createNamespace({ body: { metadata: { name: 'elsewhere' } } });
    const events = await stream;
    const elapsed = Date.now() - started;
    assert.ok(elapsed >= 900 && elapsed < 2500, `closed after ${elapsed} ms`);
    const bookmarks = events.filter((e) => e.type === 'BOOKMARK');
    assert.ok(bookmarks.length >= 1);
    assert.equal(bookmarks[0]?.object.kind, 'ConfigMap');
    assert.ok(Number(bookmarks[0]?.object.metadata.resourceVersion) >= h.sandbox.resourceVersion - 5);
  });

  test('a selector turns moves in and out of the selection into ADDED and DELETED', async () => {
    await core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'mover', labels: { sel: 'no' } } } });
    const rv = h.sandbox.resourceVersion;
    const stream = watchLines(`/api/v1/namespaces/${ns}/configmaps?watch=1&resourceVersion=${rv}&labelSelector=sel%3Dyes`, 2);
    setTimeout(async () => {
      await h.http('PATCH', `/api/v1/namespaces/${ns}/configmaps/mover`, { metadata: { labels: { sel: 'yes' } } }, { 'Content-Type': 'application/merge-patch+json' });
      await h.http('PATCH', `/api/v1/namespaces/${ns}/configmaps/mover`, { metadata: { labels: { sel: 'no' } } }, { 'Content-Type': 'application/merge-patch+json' });
    }, 50);
    const events = await stream;
    assert.deepEqual(events.map((e) => e.type), ['ADDED', 'DELETED']);
  });

  test('sendInitialEvents requires resourceVersionMatch=NotOlderThan', async () => {
    const res = await h.http('GET', `/api/v1/namespaces/${ns}/configmaps?watch=1&sendInitialEvents=true&allowWatchBookmarks=true`);
    assert.equal(res.status, 422);
    assert.equal(
      res.json.message,
      'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan',
    );
  });
});

describe('list and watch through kubectl', { skip: skipWithoutKubectl }, () => {
  test('kubectl get with selectors, paging (--chunk-size) and get -w', async () => {
    const byLabel = await h.kubectl(['get', 'cm', '-n', ns, '-l', 'tier=odd', '-o', 'name']);
    assert.equal(byLabel.stdout.trim(), ['configmap/cm-1', 'configmap/cm-3', 'configmap/cm-5', 'configmap/cm-7', 'configmap/live-odd'].join('\n'));
    // -v=6 logs every request: three pages of three, the second and third asked for with a continue token.
    const chunked = await h.kubectl(['get', 'cm', '-n', ns, '-l', 'idx', '--chunk-size=3', '-o', 'name', '-v=6']);
    assert.equal(chunked.stdout.trim().split('\n').length, 8);
    const lists = chunked.stderr.split('\n').filter((l) => l.includes(`GET ${h.sandbox.url}/api/v1/namespaces/${ns}/configmaps?`));
    assert.equal(lists.length, 3, chunked.stderr);
    assert.ok(lists.every((l) => /[?&]limit=3(&|\s)/.test(l) && / 200 OK /.test(l)), lists.join('\n'));
    assert.deepEqual(lists.map((l) => /[?&]continue=[A-Za-z0-9_-]+/.test(l)), [false, true, true]);
    const byField = await h.kubectl(['get', 'pods', '-n', ns, '--field-selector', 'spec.nodeName=node-a', '-o', 'name']);
    assert.equal(byField.stdout.trim(), 'pod/bound');
    const watching = h.kubectl(['get', 'cm', '-n', ns, '-w', '-l', 'watched=yes', '--request-timeout=2s']);
    await new Promise((r) => setTimeout(r, 700));
    await core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'watched-1', labels: { watched: 'yes' } } } });
    const out = await watching;
    assert.match(out.stdout, /watched-1\s+0\s+\d+s/);
  });

  test('kubectl get --raw of a watch from a resourceVersion replays what happened after it; timeoutSeconds ends it', async () => {
    const rv = (await core.listNamespacedConfigMap({ namespace: ns })).metadata?.resourceVersion ?? '';
    await core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'k-after' } } });
    await core.patchNamespacedConfigMap({ name: 'k-after', namespace: ns, body: [{ op: 'add', path: '/data', value: { a: '1' } }] });
    await core.deleteNamespacedConfigMap({ name: 'k-after', namespace: ns });
    const started = Date.now();
    const res = await h.kubectl(['get', '--raw', `/api/v1/namespaces/${ns}/configmaps?watch=1&resourceVersion=${rv}&timeoutSeconds=1`]);
    assert.equal(res.code, 0, res.stderr);
    assert.ok(Date.now() - started >= 900, 'the stream stays open until timeoutSeconds');
    const events = res.stdout.trim().split('\n').map((l) => JSON.parse(l) as WatchLine);
    assert.deepEqual(events.map((e) => [e.type, e.object.metadata.name]), [
      ['ADDED', 'k-after'],
      ['MODIFIED', 'k-after'],
      ['DELETED', 'k-after'],
    ]);
    assert.deepEqual(events[1]?.object.data, { a: '1' });
  });

  test('kubectl get --raw of a watch from an expired resourceVersion gets the 410 Expired ERROR event; a relist resumes', async () => {
    const old = (await core.listNamespacedConfigMap({ namespace: ns })).metadata?.resourceVersion ?? '';
    // More writes than the watch cache (20 events) keeps.
    for (let i = 0; i < 12; i++) {
      await core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: `k-churn-${i}` } } });
      await core.deleteNamespacedConfigMap({ name: `k-churn-${i}`, namespace: ns });
    }
    const gone = await h.kubectl(['get', '--raw', `/api/v1/namespaces/${ns}/configmaps?watch=1&resourceVersion=${old}&timeoutSeconds=5`]);
    assert.equal(gone.code, 0, 'the error comes inside a 200 stream');
    const lines = gone.stdout.trim().split('\n').map((l) => JSON.parse(l) as WatchLine);
    assert.equal(lines.length, 1);
    assert.equal(lines[0]?.type, 'ERROR');
    assert.equal(lines[0]?.object.kind, 'Status');
    assert.equal(lines[0]?.object.code, 410);
    assert.equal(lines[0]?.object.reason, 'Expired');
    assert.match(lines[0]?.object.message, new RegExp(`^too old resource version: ${old} \\(\\d+\\)$`));
    const relist = await h.kubectl(['get', '--raw', `/api/v1/namespaces/${ns}/configmaps`]);
    const fresh = JSON.parse(relist.stdout).metadata.resourceVersion as string;
    setTimeout(() => void core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'k-after-relist' } } }), 300);
    const resumed = await h.kubectl(['get', '--raw', `/api/v1/namespaces/${ns}/configmaps?watch=1&resourceVersion=${fresh}&timeoutSeconds=1`]);
    assert.deepEqual(
      resumed.stdout.trim().split('\n').map((l) => { const e = JSON.parse(l) as WatchLine; return [e.type, e.object.metadata.name]; }),
      [['ADDED', 'k-after-relist']],
    );
  });
});
