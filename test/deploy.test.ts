// deploy/ is generated from src/operator/manifests.ts: it must match what the code generates today.

import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { parseAllDocuments } from 'yaml';
import { deployFiles } from '../src/operator/deploy-files.ts';
import { manifests } from '../src/operator/manifests.ts';

test('deploy/ is up to date (run `npm run generate:deploy` after changing the manifests)', async () => {
  for (const [path, content] of Object.entries(deployFiles())) {
    assert.equal(await readFile(join(import.meta.dirname, '..', 'deploy', path), 'utf8'), content, `deploy/${path} is stale`);
  }
});

test('the plain manifests install the CRD, RBAC, the Deployment and webhooks that only see controlled pods', async () => {
  const text = await readFile(join(import.meta.dirname, '..', 'deploy', 'manifests', 'podops.yaml'), 'utf8');
  const objects = parseAllDocuments(text).map((d) => d.toJS() as { kind: string; metadata: { name: string } });
  assert.deepEqual(objects.map((o) => `${o.kind}/${o.metadata.name}`), manifests().map((o) => `${o.kind}/${(o.metadata as { name: string }).name}`));
  const validating = manifests().find((o) => o.kind === 'ValidatingWebhookConfiguration') as { webhooks: Record<string, unknown>[] };
  const pods = validating.webhooks.find((w) => w.name === 'validating-pod.apps.kusionstack.io');
  assert.deepEqual(pods?.objectSelector, { matchExpressions: [{ key: 'kusionstack.io/control', operator: 'In', values: ['true'] }] });
  assert.equal(pods?.failurePolicy, 'Fail');
  assert.equal(pods?.timeoutSeconds, 5);
});
