// The text and JUnit reports of a failure name the known deviation that fails its step, and list the labels left
// behind apart from the steps' result: a scenario whose steps passed but left labels says so.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ORPHAN_POST_CHECKED, RULES_MATCHED_BY_POD_NAME } from './deviations.ts';
import { junitXml } from './junit.ts';
import { resultText } from './report.ts';
import type { Report, ScenarioResult } from './runner.ts';

const base = { name: 'transition/x', title: 'what it checks', topic: 'transition', durationMs: 1500, namespace: 'podops-conformance-abcde' } as const;
const leftover = { step: 'the pod returns to service', pod: 'podops-conformance-abcde/web-abcde', labels: ['post-checked.podopslifecycle.kusionstack.io/conformance=7'], deviation: ORPHAN_POST_CHECKED };

const stepFailed: ScenarioResult = { ...base, status: 'failed', step: 'begin in the other namespace', message: 'timed out waiting for pre-checked', deviation: RULES_MATCHED_BY_POD_NAME };
const onlyLeftovers: ScenarioResult = { ...base, status: 'failed', leftovers: [leftover] };

const reportOf = (...results: ScenarioResult[]): Report => ({
  server: 'https://cluster',
  image: 'pause',
  timeoutMs: 60_000,
  parallel: 4,
  capabilities: undefined,
  results,
  durationMs: 3000,
  interrupted: false,
  namespaces: { created: results.length, left: [] },
});

describe('conformance reports', () => {
  test('the text names the known deviation beside the failed step', () => {
    assert.equal(
      resultText(stepFailed),
      [
        'FAIL  transition/x  (1.5s)  what it checks',
        '      step:      begin in the other namespace',
        '      failure:   timed out waiting for pre-checked',
        "      known:     Kuperator's known deviation kuperator-rules-by-pod-name: PodTransitionRules are matched to pods by bare name across namespaces, so a rule gates a same-named pod of another namespace",
        '      namespace: podops-conformance-abcde',
        '',
      ].join('\n'),
    );
  });

  test('the text lists labels left behind apart from the steps, which passed', () => {
    assert.equal(
      resultText(onlyLeftovers),
      [
        'FAIL  transition/x  (1.5s)  what it checks',
        '      steps:     all passed, but labels of ended lifecycles were left behind',
        '      leftover:  podops-conformance-abcde/web-abcde back in service (step: the pod returns to service) still has post-checked.podopslifecycle.kusionstack.io/conformance=7',
        "      known:     Kuperator's known deviation kuperator-orphan-post-checked: a reconcile on a stale cache re-adds post-checked/<id> after the lifecycle was cleaned up, and nothing removes it",
        '      namespace: podops-conformance-abcde',
        '',
      ].join('\n'),
    );
  });

  test('JUnit: a failed step with its known deviation, and labels left behind as a failure of their own kind', () => {
    const xml = junitXml(reportOf(stepFailed, onlyLeftovers));
    assert.match(xml, /<failure message="begin in the other namespace: timed out waiting for pre-checked" type="StepFailure">step: begin in the other namespace\ntimed out waiting for pre-checked\nknown: Kuperator&apos;s known deviation kuperator-rules-by-pod-name: [^<]*\nnamespace: podops-conformance-abcde<\/failure>/);
    assert.match(
      xml,
      /<failure message="labels of ended lifecycles were left behind" type="LeftoverLabels">leftover: podops-conformance-abcde\/web-abcde back in service \(step: the pod returns to service\) still has post-checked\.podopslifecycle\.kusionstack\.io\/conformance=7\nknown: Kuperator&apos;s known deviation kuperator-orphan-post-checked: [^<]*\nnamespace: podops-conformance-abcde<\/failure>/,
    );
    assert.match(xml, /<testsuite name="transition" tests="2" failures="2" /);
  });
});
