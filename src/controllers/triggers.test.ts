// What enqueues each controller: the keys an informer event maps to, tested on the controllers' own
// trigger functions.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Pod } from '../api/kube.ts';
import type { PodTransitionRule } from '../api/podtransitionrule.ts';
import { TO_DELETE_LABEL } from '../api/protocol.ts';
import { pod } from '../../test/support/pods.ts';
import { ruleTargetKeys } from './lifecycle-controller.ts';
import { wantsDeletion } from './pod-deletion-controller.ts';
import { rulesConcerning } from './transition-controller.ts';

const rule = (name: string, app: string, targets: string[] = [], namespace = 'default'): PodTransitionRule => ({
  metadata: { name, namespace },
  spec: { selector: { matchLabels: { app } }, rules: [] },
  status: { targets },
});

test('lifecycle controller: a rule change concerns the pods it lists, before and after', () => {
  const before = rule('budget', 'web', ['web-a', 'web-b']);
  const after = rule('budget', 'web', ['web-b', 'web-c']);
  assert.deepEqual([...ruleTargetKeys(after, before)].sort(), ['default/web-a', 'default/web-b', 'default/web-c']);
  assert.deepEqual([...ruleTargetKeys(after)].sort(), ['default/web-b', 'default/web-c']);
});

test('transition controller: a pod change concerns the rules of its namespace that select it, selected it, or list it', () => {
  const rules = [rule('web', 'web'), rule('api', 'api'), rule('lists', 'none', ['web-a']), rule('elsewhere', 'web', [], 'other')];
  const keys = rulesConcerning((namespace) => rules.filter((r) => r.metadata.namespace === namespace));
  const web = pod({ name: 'web-a', labels: { app: 'web' } });
  assert.deepEqual(keys(web), ['default/web', 'default/lists']);
  // Relabelled from web to api: both rules must see it (one loses a target, the other gains one).
  const api: Pod = pod({ name: 'web-a', labels: { app: 'api' } });
  assert.deepEqual(keys(api, web), ['default/web', 'default/api', 'default/lists']);
  assert.deepEqual(keys(pod({ name: 'solo', labels: { app: 'solo' } })), []);
});

test('transition controller: a rule with a malformed selector concerns no pod rather than failing the handler', () => {
  const broken: PodTransitionRule = { metadata: { name: 'broken', namespace: 'default' }, spec: { selector: { matchExpressions: [{ key: 'app', operator: 'Bogus' }] } } };
  assert.deepEqual(rulesConcerning(() => [broken])(pod({ labels: { app: 'web' } })), []);
});

test('pod-deletion controller: only controlled pods marked to-delete', () => {
  assert.equal(wantsDeletion(pod({ labels: { [TO_DELETE_LABEL]: '1' } })), true);
  assert.equal(wantsDeletion(pod()), false);
  assert.equal(wantsDeletion(pod({ controlled: false, labels: { [TO_DELETE_LABEL]: '1' } })), false);
});
