// Upstream podtransitionrule_webhook_test.go (validation and defaulting) and podops' extra checks.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { PodTransitionRule, TransitionRule } from '../api/podtransitionrule.ts';
import { defaultPodTransitionRule, effectivePoll } from './defaults.ts';
import { ptr } from './fixtures.test-support.ts';
import { validatePodTransitionRule, validationMessage } from './validate.ts';
import { testPki } from './webhook/rule-server.test-support.ts';
import { caBundlePem, CaBundleError } from './wire.ts';

const validate = (rules: TransitionRule[]) => validatePodTransitionRule(ptr(rules));
const webhookRule = (url: string, extra: Partial<NonNullable<TransitionRule['webhook']>> = {}): TransitionRule => ({ name: 'webhook', webhook: { clientConfig: { url }, ...extra } });

describe('validatePodTransitionRule: upstream cases', () => {
  test('the caBundle: a PEM certificate, Cg== or empty pass; a truncated one fails', async () => {
    const { caBundle } = await testPki();
    assert.ok(caBundlePem(caBundle)?.startsWith('-----BEGIN CERTIFICATE-----'));
    assert.equal(caBundlePem('Cg=='), undefined);
    assert.equal(caBundlePem(''), undefined);
    assert.throws(() => caBundlePem(caBundle.slice(0, 77)), (err: unknown) => err instanceof CaBundleError && err.message === 'illegal base64 data at input byte 76');
    assert.deepEqual(validate([{ ...webhookRule('https://rules.example'), webhook: { clientConfig: { url: 'https://rules.example', caBundle } } }]), { errors: [], warnings: [] });
    assert.deepEqual(validate([{ name: 'webhook', webhook: { clientConfig: { url: 'https://rules.example', caBundle: caBundle.slice(0, 80) } } }]).errors, [
      `spec.rule.webhook.clientConfig.caBundle: Invalid value: "${caBundle.slice(0, 80)}": failed to parse CABundle PEM, ${Buffer.from(caBundle.slice(0, 80), 'base64').toString('utf8')}`,
    ]);
  });

  test('a PEM block that is not a certificate fails', () => {
    const notACert = Buffer.from('-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n').toString('base64');
    assert.throws(() => caBundlePem(notACert), (err: unknown) => err instanceof CaBundleError && err.message.startsWith('failed to parse CABundle certificate, '));
  });

  test('no selector: the first check wins', () => {
    const noSelector: PodTransitionRule = { metadata: { name: 'x', namespace: 'default' }, spec: { rules: [{ name: '' }] } };
    assert.deepEqual(validatePodTransitionRule(noSelector), { errors: ['podtransitionrule selector cannot be nil'], warnings: [] });
  });

  test('an unnamed rule is reported alone', () => {
    assert.deepEqual(validate([{ name: 'bad', labelCheck: {} }, { name: '' }]), { errors: ['podtransitionrule rule name is required'], warnings: [] });
  });

  test('an empty webhook fails; one with a URL passes', () => {
    assert.deepEqual(validate([{ name: 'webhook', webhook: {} }]).errors, ['spec.rule.webhook.clientConfig.url: Required value']);
    assert.deepEqual(validate([webhookRule('https://github.com')]).errors, []);
  });

  test('an empty availablePolicy fails; maxUnavailableValue 50% passes', () => {
    assert.deepEqual(validate([{ name: 'available', availablePolicy: {} }]).errors, [
      'spec.rule.available: Invalid value: "null": minAvailableValue and maxUnavailableValue must have at least one configured',
    ]);
    assert.deepEqual(validate([{ name: 'available', availablePolicy: { maxUnavailableValue: '50%' } }]).errors, []);
  });

  test('availablePolicy values out of range are refused naming the field; 0 and 100% pass with a warning', () => {
    const policy = (availablePolicy: Record<string, unknown>) => validate([{ name: 'budget', availablePolicy }]);
    assert.deepEqual(policy({ maxUnavailableValue: '150%' }).errors, ['spec.rule.budget.availablePolicy.maxUnavailableValue: Invalid value: "150%": must not be greater than 100%']);
    assert.deepEqual(policy({ maxUnavailableValue: -1 }).errors, ['spec.rule.budget.availablePolicy.maxUnavailableValue: Invalid value: -1: must be greater than or equal to 0']);
    assert.deepEqual(policy({ minAvailableValue: '-10%' }).errors, ['spec.rule.budget.availablePolicy.minAvailableValue: Invalid value: "-10%": must be greater than or equal to 0']);
    assert.deepEqual(policy({ minAvailableValue: '101%' }).errors, ['spec.rule.budget.availablePolicy.minAvailableValue: Invalid value: "101%": must not be greater than 100%']);
    // A count above the pods there are is meaningful (the rule applies to whatever it selects later).
    assert.deepEqual(policy({ maxUnavailableValue: 1000, minAvailableValue: '100%' }).errors, []);
    for (const [value, field] of [[0, 'maxUnavailableValue'], ['0%', 'maxUnavailableValue'], ['100%', 'minAvailableValue']] as const) {
      const result = policy({ [field]: value });
      assert.deepEqual(result.errors, []);
      assert.match(result.warnings.join('\n'), new RegExp(`^spec\\.rule\\.budget\\.availablePolicy\\.${field}: .* every operation of a selected pod waits until the rule changes$`));
    }
    assert.deepEqual(policy({ maxUnavailableValue: 1, minAvailableValue: '0%' }).warnings, []);
  });

  test('an empty labelCheck fails; one with requires passes', () => {
    assert.deepEqual(validate([{ name: 'label', labelCheck: {} }]).errors, ['spec.rule.label: Invalid value: "null": nil label check required']);
    assert.deepEqual(validate([{ name: 'label', labelCheck: { requires: { matchLabels: { test: 'test' } } } }]).errors, []);
  });

  test('a URL that does not parse', () => {
    assert.deepEqual(validate([webhookRule('not a url')]).errors, [
      'spec.rule.webhook.clientConfig.url: Invalid value: "not a url": podtransitionrule validate webhook failed, check server reachable, while parse url error: parse "not a url": invalid URL',
    ]);
    assert.match(validate([webhookRule('ftp://host/x')]).errors[0] ?? '', /the scheme must be http or https$/);
  });

  test('errors are aggregated as apimachinery prints them', () => {
    const { errors } = validate([{ name: 'a', labelCheck: {} }, { name: 'b', availablePolicy: {} }]);
    assert.equal(
      validationMessage(errors),
      '[spec.rule.a: Invalid value: "null": nil label check required, spec.rule.b: Invalid value: "null": minAvailableValue and maxUnavailableValue must have at least one configured]',
    );
    assert.equal(validationMessage(['only one']), 'only one');
  });
});

describe('validatePodTransitionRule: podops extras', () => {
  test('duplicate rule names are rejected', () => {
    const { errors } = validate([
      { name: 'same', labelCheck: { requires: {} } },
      { name: 'same', availablePolicy: { maxUnavailableValue: 1 } },
    ]);
    assert.deepEqual(errors, ['spec.rule.same: Duplicate value: "same"']);
  });

  test('a rule needs exactly one definition', () => {
    assert.deepEqual(validate([{ name: 'empty' }]).errors, ['spec.rule.empty: Required value: one of availablePolicy, labelCheck, webhook is required']);
    assert.deepEqual(validate([{ name: 'two', availablePolicy: { maxUnavailableValue: 1 }, labelCheck: { requires: {} } }]).errors, [
      'spec.rule.two: Invalid value: "availablePolicy, labelCheck": a rule holds exactly one of availablePolicy, labelCheck, webhook',
    ]);
  });

  test('bad selectors, int-or-strings, poll settings and failurePolicy are rejected', () => {
    const { errors } = validatePodTransitionRule(
      ptr(
        [
          { name: 'a', availablePolicy: { maxUnavailableValue: '5' }, filter: { labelSelector: { matchExpressions: [{ key: 'k', operator: 'In' }] } } },
          {
            name: 'w',
            webhook: { clientConfig: { url: 'http://rules', poll: { url: '', intervalSeconds: 0 } }, failurePolicy: 'Retry' as 'Fail' },
          },
        ],
        { selector: { matchLabels: { 'bad key': 'x' } } },
      ),
    );
    assert.deepEqual(errors, [
      `spec.selector: Invalid value: "{\\"matchLabels\\":{\\"bad key\\":\\"x\\"}}": matchLabels["bad key"]: invalid label key "bad key": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character`,
      'spec.rule.a.filter.labelSelector: Invalid value: "{\\"matchExpressions\\":[{\\"key\\":\\"k\\",\\"operator\\":\\"In\\"}]}": matchExpressions[0]: values must be non-empty for operator In',
      'spec.rule.a.availablePolicy.maxUnavailableValue: Invalid value: "5": invalid value for IntOrString: invalid type: string is not a percentage',
      'spec.rule.w.clientConfig.poll.url: Required value',
      'spec.rule.w.clientConfig.poll.intervalSeconds: Invalid value: 0: must be a positive integer',
      'spec.rule.w.failurePolicy: Unsupported value: "Retry": supported values: "Fail", "Ignore"',
    ]);
  });

  test('warnings: an unknown stage, conditions, unusable parameters', () => {
    const { errors, warnings } = validate([
      { name: 'typo', stage: 'Precheck', labelCheck: { requires: {} }, conditions: ['x'] },
      webhookRule('http://rules', { parameters: [{ key: 'ip' }, { key: 'l', valueFrom: { fieldRef: { fieldPath: "metadata.labels['Bad Key']" } } }, { key: 'ok', value: 'v' }] }),
    ]);
    assert.deepEqual(errors, []);
    assert.deepEqual(warnings, [
      'spec.rule.typo.stage: "Precheck" is not a PodOpsLifecycle stage (PreCheck, PostCheck): the rule never runs',
      'spec.rule.typo.conditions: podops registers no conditions and ignores them: the rule applies to every selected pod (Kuperator would skip every pod)',
      'spec.rule.webhook.parameters[0]: neither value nor valueFrom.fieldRef is set: every request of this rule fails',
      `spec.rule.webhook.parameters[1].valueFrom.fieldRef.fieldPath: invalid key subscript in metadata.labels['Bad Key']: name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character: every request of this rule fails`,
    ]);
  });
});

describe('defaultPodTransitionRule', () => {
  test('webhook rules get failurePolicy Fail, and poll interval 5 and timeout 60 when poll is set', () => {
    const input = ptr([
      { name: 'poll', webhook: { clientConfig: { url: 'http://127.0.0.1:8899', poll: { url: 'http://127.0.0.1:8898' } } } },
      { name: 'plain', webhook: { clientConfig: { url: 'http://127.0.0.1:8899' }, failurePolicy: 'Ignore' } },
      { name: 'labels', labelCheck: { requires: {} } },
    ]);
    const { rule, patch } = defaultPodTransitionRule(input);
    assert.deepEqual(rule.spec?.rules?.[0]?.webhook, {
      clientConfig: { url: 'http://127.0.0.1:8899', poll: { url: 'http://127.0.0.1:8898', intervalSeconds: 5, timeoutSeconds: 60 } },
      failurePolicy: 'Fail',
    });
    assert.equal(rule.spec?.rules?.[1]?.webhook?.failurePolicy, 'Ignore');
    assert.equal(rule.spec?.rules?.[1]?.webhook?.clientConfig?.poll, undefined);
    assert.deepEqual(patch, [
      { op: 'add', path: '/spec/rules/0/webhook/clientConfig/poll/intervalSeconds', value: 5 },
      { op: 'add', path: '/spec/rules/0/webhook/clientConfig/poll/timeoutSeconds', value: 60 },
      { op: 'add', path: '/spec/rules/0/webhook/failurePolicy', value: 'Fail' },
    ]);
    assert.equal(input.spec?.rules?.[0]?.webhook?.failurePolicy, undefined, 'the input is not modified');
    assert.deepEqual(defaultPodTransitionRule(rule).patch, []);
  });

  test('reading a rule that bypassed admission applies the same defaults', () => {
    assert.deepEqual(effectivePoll({ url: 'http://x' }), { url: 'http://x', rawQueryKey: '', caBundle: '', intervalSeconds: 5, timeoutSeconds: 60 });
    assert.equal(effectivePoll(undefined), undefined);
    assert.deepEqual(effectivePoll({ url: 'http://x', intervalSeconds: 0, timeoutSeconds: -1 }), { url: 'http://x', rawQueryKey: '', caBundle: '', intervalSeconds: 5, timeoutSeconds: 60 });
  });
});
