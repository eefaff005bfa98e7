// Hook Jobs: names computed from what they run for, the rollout's facts in every container, nothing of the
// RolloutLifecycle's jobSpec changed.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  RL_JOB_HOOK_LABEL,
  RL_JOB_POINT_LABEL,
  RL_JOB_REVISION_LABEL,
  RL_JOB_ROLLOUT_LABEL,
  RL_JOB_TEMPLATE_LABEL,
  RL_JOB_WORKLOAD_KIND_LABEL,
  RL_JOB_WORKLOAD_NAME_LABEL,
  RL_WORKLOAD_LABEL,
} from '../api/rolloutlifecycle.ts';
import { hookJob, hookJobName, type HookJobInput } from './jobs.ts';

const HASH = '0a1b2c3d4e';
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

describe('hookJobName', () => {
  test('<workload>-<hook>-<template hash>, and -<attempt> from the second attempt on', () => {
    assert.equal(hookJobName('web', 'smoke', HASH, 1), `web-smoke-${HASH}`);
    assert.equal(hookJobName('web', 'smoke', HASH, 2), `web-smoke-${HASH}-2`);
    assert.equal(hookJobName('web', 'smoke', HASH, 12), `web-smoke-${HASH}-12`);
  });

  test('deterministic: the same hook, revision and attempt is the same Job', () => {
    assert.equal(hookJobName('web', 'smoke', HASH, 3), hookJobName('web', 'smoke', HASH, 3));
    assert.notEqual(hookJobName('web', 'smoke', HASH, 1), hookJobName('web', 'smoke', 'ffffffffff', 1));
    assert.notEqual(hookJobName('web', 'smoke', HASH, 1), hookJobName('web', 'notify', HASH, 1));
  });

  test('a name that fits exactly is kept as it is', () => {
    const workload = 'w'.repeat(63 - '-smoke-'.length - HASH.length);
    assert.equal(hookJobName(workload, 'smoke', HASH, 1), `${workload}-smoke-${HASH}`);
    assert.equal(hookJobName(workload, 'smoke', HASH, 1).length, 63);
  });

  test('a long name keeps a readable prefix, a hash of the whole and the suffix, within 63 characters', () => {
    const workload = 'payments-api-gateway-frontend-europe-west-production-blue';
    const hook = 'database-schema-migration-before-rollout';
    for (const attempt of [1, 2, 100]) {
      const name = hookJobName(workload, hook, HASH, attempt);
      assert.ok(name.length <= 63, `${name} (${name.length})`);
      assert.match(name, DNS_LABEL);
      assert.ok(name.startsWith('payments-api-gateway-frontend'), name);
      assert.ok(name.endsWith(attempt > 1 ? `-${HASH}-${attempt}` : `-${HASH}`), name);
    }
    // Names that share the prefix are told apart by the hash.
    assert.notEqual(hookJobName(workload, `${hook.slice(0, -1)}x`, HASH, 1), hookJobName(workload, hook, HASH, 1));
    assert.notEqual(hookJobName(`${workload}-2`, hook, HASH, 1), hookJobName(workload, hook, HASH, 1));
  });

  test('the kept prefix does not end in a dash', () => {
    // The cut falls right after a dash.
    for (let n = 30; n < 60; n++) {
      const name = hookJobName(`${'a'.repeat(n)}-${'b'.repeat(60)}`, 'hook', HASH, 1);
      assert.match(name, DNS_LABEL);
      assert.doesNotMatch(name, /--/);
    }
  });
});

describe('hookJob', () => {
  const input = (jobSpec: Record<string, unknown>): HookJobInput => ({
    namespace: 'shop',
    name: `web-smoke-${HASH}`,
    rolloutLifecycle: 'web-hooks',
    hook: 'smoke',
    point: 2,
    workload: { kind: 'Deployment', name: 'web' },
    toRevision: 'web-6d4f',
    rollout: 'r7f3a9c21e',
    templateHash: HASH,
    jobSpec,
    owner: { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web-6d4f', uid: 'uid-rs' },
    env: { type: 'ROLLOUT', from: 'shop/web-5c7b', to: 'shop/web-6d4f' },
  });
  const rolloutEnv = [
    { name: 'K8S_ROLLOUT_FROM_OBJECT', value: 'shop/web-5c7b' },
    { name: 'K8S_ROLLOUT_TO_OBJECT', value: 'shop/web-6d4f' },
    { name: 'K8S_ROLLOUT_TYPE', value: 'ROLLOUT' },
  ];
  const jobSpec = {
    backoffLimit: 0,
    template: {
      metadata: { labels: { app: 'smoke' } },
      spec: {
        restartPolicy: 'Never',
        initContainers: [{ name: 'wait', image: 'busybox' }],
        containers: [
          { name: 'test', image: 'smoke:1', env: [{ name: 'TARGET', value: 'web' }] },
          { name: 'own', image: 'smoke:1', env: [{ name: 'K8S_ROLLOUT_TYPE', value: 'mine' }] },
        ],
      },
    },
  };

  test('name, namespace, labels and the owner', () => {
    const job = hookJob(input(jobSpec)) as unknown as { apiVersion: string; kind: string; metadata: Record<string, unknown> };
    assert.equal(job.apiVersion, 'batch/v1');
    assert.equal(job.kind, 'Job');
    assert.deepEqual(job.metadata, {
      name: `web-smoke-${HASH}`,
      namespace: 'shop',
      labels: {
        [RL_WORKLOAD_LABEL]: 'web-hooks',
        [RL_JOB_HOOK_LABEL]: 'smoke',
        [RL_JOB_ROLLOUT_LABEL]: 'r7f3a9c21e',
        [RL_JOB_TEMPLATE_LABEL]: HASH,
        [RL_JOB_POINT_LABEL]: '2',
        [RL_JOB_WORKLOAD_KIND_LABEL]: 'Deployment',
        [RL_JOB_WORKLOAD_NAME_LABEL]: 'web',
        [RL_JOB_REVISION_LABEL]: 'web-6d4f',
      },
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web-6d4f', uid: 'uid-rs' }],
    });
  });

  test("before the revision exists (a Deployment's point 0), no revision label", () => {
    const { toRevision: _none, ...rest } = input(jobSpec);
    const labels = (hookJob(rest) as { metadata: { labels: Record<string, string> } }).metadata.labels;
    assert.equal(RL_JOB_REVISION_LABEL in labels, false);
  });

  test('a workload or revision name too long for a label value keeps a readable prefix and a hash of the whole, in 63 characters', () => {
    const name = `payments-${'x'.repeat(240)}`;
    const revision = `${name}-7d9f8b6c5`;
    const labels = (hookJob({ ...input(jobSpec), workload: { kind: 'StatefulSet', name }, toRevision: revision }) as { metadata: { labels: Record<string, string> } }).metadata.labels;
    const [workloadLabel, revisionLabel] = [labels[RL_JOB_WORKLOAD_NAME_LABEL] ?? '', labels[RL_JOB_REVISION_LABEL] ?? ''];
    for (const value of [workloadLabel, revisionLabel]) {
      assert.equal(value.length, 63, value);
      assert.match(value, /^payments-x+-[0-9a-f]{6}$/);
    }
    // Two revisions of the same long workload keep different labels.
    assert.notEqual(workloadLabel, revisionLabel);
  });

  test('without an owner (the dry run that validates a hook): no ownerReferences', () => {
    const { owner: _owner, ...rest } = input(jobSpec);
    const job = hookJob(rest) as { metadata: Record<string, unknown> };
    assert.equal('ownerReferences' in job.metadata, false);
  });

  test('the rollout variables in every container and init container, after their own, unless they define them', () => {
    const spec = (hookJob(input(jobSpec)) as unknown as { spec: typeof jobSpec }).spec;
    assert.deepEqual(spec.template.spec.initContainers, [{ name: 'wait', image: 'busybox', env: rolloutEnv }]);
    assert.deepEqual(spec.template.spec.containers[0]?.env, [{ name: 'TARGET', value: 'web' }, ...rolloutEnv]);
    assert.deepEqual(spec.template.spec.containers[1]?.env, [{ name: 'K8S_ROLLOUT_TYPE', value: 'mine' }, ...rolloutEnv.slice(0, 2)]);
    assert.equal(spec.backoffLimit, 0);
    assert.deepEqual(spec.template.metadata, { labels: { app: 'smoke' } });
  });

  test('a container that defines all three is left as it is', () => {
    const own = { name: 'own', env: rolloutEnv.map((e) => ({ ...e, value: 'x' })) };
    const spec = (hookJob(input({ template: { spec: { containers: [own] } } })) as unknown as { spec: { template: { spec: { containers: unknown[] } } } }).spec;
    assert.deepEqual(spec.template.spec.containers, [own]);
  });

  test("the RolloutLifecycle's jobSpec is copied, not changed", () => {
    const before = structuredClone(jobSpec);
    const job = hookJob(input(jobSpec)) as unknown as { spec: typeof jobSpec };
    assert.deepEqual(jobSpec, before);
    assert.notEqual(job.spec, jobSpec);
    job.spec.template.spec.containers[0]!.env!.push({ name: 'LATER', value: '1' });
    assert.deepEqual(jobSpec, before);
  });

  test('a jobSpec without a pod spec is copied as it is (the API server says what is wrong)', () => {
    assert.deepEqual((hookJob(input({ parallelism: 1 })) as { spec: unknown }).spec, { parallelism: 1 });
  });
});
