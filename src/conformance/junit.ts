// The run as JUnit XML, which CI systems show as test results: a test suite per topic, a test case per
// scenario, a failure with its step, what was observed, the known deviation that fails the step and the labels
// left behind, skips with their reason, and what the implementation offers as properties.

import { observedLines } from './observe.ts';
import { deviationText, leftoverText } from './report.ts';
import type { Report, ScenarioResult } from './runner.ts';

/** XML text and attribute values: the five escapes, and no control characters XML 1.0 forbids. */
const xml = (text: string): string =>
  text
    // eslint-disable-next-line no-control-regex
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g, '')
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&apos;');

const seconds = (ms: number): string => (ms / 1000).toFixed(3);

function testcase(result: ScenarioResult): string {
  const open = `    <testcase classname="podops.conformance.${xml(result.topic)}" name="${xml(result.name)}: ${xml(result.title)}" time="${seconds(result.durationMs)}"`;
  if (result.status === 'passed') return `${open}/>`;
  if (result.status === 'failed') {
    const leftovers = (result.leftovers ?? []).flatMap((l) => [`leftover: ${leftoverText(l)}`, ...(l.deviation ? [`known: ${deviationText(l.deviation)}`] : [])]);
    const body = [
      ...(result.step ? [`step: ${result.step}`, result.message ?? ''] : []),
      ...(result.observed ? observedLines(result.observed) : []),
      ...(result.deviation ? [`known: ${deviationText(result.deviation)}`] : []),
      ...leftovers,
      ...(result.namespace ? [`namespace: ${result.namespace}`] : []),
    ];
    const [message, type] = result.step ? [`${result.step}: ${result.message}`, 'StepFailure'] : ['labels of ended lifecycles were left behind', 'LeftoverLabels'];
    return `${open}>\n      <failure message="${xml(message)}" type="${type}">${xml(body.join('\n'))}</failure>\n    </testcase>`;
  }
  return `${open}>\n      <skipped message="${xml(result.reason ?? result.status)}"/>\n    </testcase>`;
}

export function junitXml(report: Report): string {
  const topics = [...new Set(report.results.map((r) => r.topic))];
  const count = (results: ScenarioResult[], ...statuses: string[]) => results.filter((r) => statuses.includes(r.status)).length;
  const properties = [
    ['server', report.server],
    ['image', report.image],
    ...Object.entries(report.capabilities ?? {}).map(([name, capability]) => [`capability.${name}`, capability.summary]),
  ]
    .map(([name, value]) => `      <property name="${xml(name!)}" value="${xml(value!)}"/>`)
    .join('\n');
  const suites = topics.map((topic) => {
    const results = report.results.filter((r) => r.topic === topic);
    const time = results.reduce((sum, r) => sum + r.durationMs, 0);
    return [
      `  <testsuite name="${xml(topic)}" tests="${results.length}" failures="${count(results, 'failed')}" errors="0" skipped="${count(results, 'skipped', 'interrupted')}" time="${seconds(time)}">`,
      `    <properties>\n${properties}\n    </properties>`,
      ...results.map(testcase),
      '  </testsuite>',
    ].join('\n');
  });
  const all = report.results;
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="podops conformance" tests="${all.length}" failures="${count(all, 'failed')}" errors="0" skipped="${count(all, 'skipped', 'interrupted')}" time="${seconds(report.durationMs)}">`,
    ...suites,
    '</testsuites>',
    '',
  ].join('\n');
}
