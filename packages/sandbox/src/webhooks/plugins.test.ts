// The dispatch rules that no configuration accepted by the v1 API can reach over HTTP (objects stored
// before the rules tightened): sideEffects Some, Unknown or unset meeting a dryRun request, and
// AdmissionReview versions the server does not speak. The store is filled directly here.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { StatusError } from '../errors.ts';
import type { AdmissionAttributes } from '../apiserver/admission.ts';
import { builtinResources } from '../registry/builtins.ts';
import { Registry } from '../registry/registry.ts';
import { Store } from '../storage/store.ts';
import { webhookAdmission } from './plugins.ts';

function setUp(webhooks: Record<string, unknown>[]) {
  const store = new Store({ historySize: 10, clock: Date.now });
  const registry = new Registry();
  registry.add(builtinResources({ services: () => [] }));
  for (const def of registry.all()) store.ensureResource(def.storageKey);
  store.create('validatingwebhookconfigurations.admissionregistration.k8s.io', 'legacy', {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingWebhookConfiguration',
    metadata: { name: 'legacy' },
    webhooks: webhooks.map((w) => ({
      admissionReviewVersions: ['v1'],
      // Nothing listens there: a webhook that is actually called fails to connect.
      clientConfig: { url: 'https://127.0.0.1:1/' },
      rules: [{ operations: ['*'], apiGroups: ['*'], apiVersions: ['*'], resources: ['*'] }],
      timeoutSeconds: 1,
      ...w,
    })),
  }, { user: 'admin', groups: ['system:masters'], userAgent: undefined, manager: '', verb: 'create', subresource: undefined });
  return webhookAdmission({ store, registry, clock: Date.now, serviceAddresses: () => ({}), clientCertificates: () => undefined });
}

const configMapCreate = (dryRun: boolean): AdmissionAttributes => ({
  operation: 'CREATE',
  kind: { group: '', version: 'v1', kind: 'ConfigMap' },
  resource: { group: '', version: 'v1', resource: 'configmaps' },
  subresource: undefined,
  namespace: 'default',
  name: 'c',
  object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'default' } },
  oldObject: undefined,
  dryRun,
  options: { kind: 'CreateOptions', apiVersion: 'meta.k8s.io/v1', ...(dryRun ? { dryRun: ['All'] } : {}) },
  userInfo: { username: 'admin', groups: ['system:masters'] },
});

type Plugins = ReturnType<typeof setUp>;
const validate = (plugins: Plugins, a: AdmissionAttributes): Promise<string[] | void> => Promise.resolve(plugins.validating.validate?.(a));

const failsWith = (code: number, message: string) => (err: unknown) => err instanceof StatusError && err.status.code === code && err.status.message === message;

test('dryRun meets a webhook with side effects: 400 "does not support dry run", whatever the failurePolicy', async () => {
  for (const failurePolicy of ['Fail', 'Ignore']) {
    const plugins = setUp([{ name: 'some.example.com', sideEffects: 'Some', failurePolicy }]);
    await assert.rejects(validate(plugins, configMapCreate(true)), failsWith(400, 'admission webhook "some.example.com" does not support dry run'));
    plugins.stop();
  }
});

test('dryRun meets a webhook without sideEffects: a failure to call it, which Ignore skips', async () => {
  const failing = setUp([{ name: 'unset.example.com', failurePolicy: 'Fail' }]);
  await assert.rejects(
    validate(failing, configMapCreate(true)),
    failsWith(500, 'Internal error occurred: failed calling webhook "unset.example.com": Webhook SideEffects is nil'),
  );
  failing.stop();
  const ignoring = setUp([{ name: 'unset.example.com', failurePolicy: 'Ignore' }]);
  assert.deepEqual(await validate(ignoring, configMapCreate(true)), []);
  ignoring.stop();
});

test('without dryRun, side effects do not matter: the webhook is called', async () => {
  const plugins = setUp([{ name: 'some.example.com', sideEffects: 'Some', failurePolicy: 'Fail' }]);
  await assert.rejects(validate(plugins, configMapCreate(false)), (err: unknown) => err instanceof StatusError && /connection refused$/.test(err.status.message ?? ''));
  plugins.stop();
});

test('a webhook that accepts no known AdmissionReview version cannot be called', async () => {
  const plugins = setUp([{ name: 'v2.example.com', sideEffects: 'None', admissionReviewVersions: ['v2'] }]);
  await assert.rejects(
    validate(plugins, configMapCreate(false)),
    failsWith(500, 'Internal error occurred: failed calling webhook "v2.example.com": could not create admission objects: webhook does not accept known AdmissionReview versions (v1, v1beta1)'),
  );
  plugins.stop();
});
