// `podops conformance`: the PodOpsLifecycle conformance scenarios against the cluster of a kubeconfig, whatever
// implementation it runs (podops, or Kuperator), with a line per scenario as it ends and a report as text,
// JSON or JUnit XML.

import { randomInt } from 'node:crypto';
import { countOf, capabilitiesText, headerText, resultText, summaryText } from '../../conformance/report.ts';
import { junitXml } from '../../conformance/junit.ts';
import { NAMESPACE_PREFIX } from '../../conformance/namespaces.ts';
import { runConformance } from '../../conformance/runner.ts';
import { scenarios } from '../../conformance/scenarios/index.ts';
import { UsageError, durationFlag, optionsHelp, parseCommandArgs, type Command } from '../command.ts';
import { CLUSTER_FLAGS_HELP, clientFromFlags, clusterFlagOptions } from '../kube-flags.ts';

const DEFAULT_IMAGE = 'registry.k8s.io/pause:3.10';
const DEFAULT_TIMEOUT = '60s';
/** Scenarios at once: each is a pod or two in a namespace of its own, so a few at a time keep the run short. */
const DEFAULT_PARALLEL = 4;
/** More scenarios at once than a run has would wait for nothing. */
const MAX_PARALLEL = 1000;
/** The exit code of a run stopped by Ctrl-C, as shells report a process ended by SIGINT. */
const INTERRUPTED_EXIT = 130;

const usage = `Usage: podops conformance [options]

Runs the PodOpsLifecycle conformance scenarios against the cluster of the kubeconfig: does the installed
implementation (podops, or KusionStack Kuperator) behave as the protocol specifies? Each scenario runs in a
namespace of its own, ${NAMESPACE_PREFIX}<random>, deleted afterwards (also on Ctrl-C); nothing else in the
cluster is touched. A failure that a known deviation of an implementation explains names it (docs/conformance.md
lists them). Exit code 0 when every scenario that ran passed, 1 when one failed or a namespace was left
behind, 2 for bad options, ${INTERRUPTED_EXIT} when interrupted.

Options:
${optionsHelp([
  ...CLUSTER_FLAGS_HELP,
  ['--focus REGEX', 'run only the scenarios whose name matches: a JavaScript regular expression searched', 'in the name (unanchored: a plain word matches names that contain it); repeat it to', 'run those that match any'],
  ['--skip REGEX', 'leave out the scenarios whose name matches (the same matching; repeatable);', 'it wins over --focus'],
  ['--parallel N', `how many scenarios run at once, 1 to ${MAX_PARALLEL} (default ${DEFAULT_PARALLEL})`],
  ['--shuffle', 'run the scenarios in a random order; the header prints its --seed'],
  ['--seed N', 'run them in the order this seed shuffles them into (implies --shuffle): the same', 'seed and scenarios give the same order'],
  ['--image IMAGE', `the image of the suite's pods (default ${DEFAULT_IMAGE})`],
  ['--timeout D', `the deadline of each scenario, e.g. 90s or 2m (default ${DEFAULT_TIMEOUT})`],
  ['-o, --output FORMAT', 'text (default), json or junit: json and junit print the report on stdout', 'and the progress on stderr'],
])}

Scenarios:
${optionsHelp(scenarios.map((s) => [s.name, s.title]))}`;

function regexFlags(flag: string, values: string[] | undefined): RegExp[] {
  return (values ?? []).map((value) => {
    try {
      return new RegExp(value);
    } catch (err) {
      throw new UsageError(`${flag} "${value}" is not a valid regular expression: ${(err as Error).message}`);
    }
  });
}

/** The largest seed: the shuffle's generator has 32 bits of state. */
const MAX_SEED = 2 ** 32 - 1;

/** A whole number option from `min` to `max`. */
function wholeNumberFlag(flag: string, value: string, min: number, max: number): number {
  const number = Number(value);
  if (!/^\d+$/.test(value) || number < min || number > max) throw new UsageError(`${flag} must be a whole number from ${min} to ${max}, got "${value}"`);
  return number;
}

const quoted = (values: string[]): string => values.map((v) => `"${v}"`).join(' or ');

export const conformanceCommand: Command = {
  usage,
  async run(args, io) {
    const { values } = parseCommandArgs({
      args,
      options: {
        ...clusterFlagOptions,
        focus: { type: 'string', multiple: true },
        skip: { type: 'string', multiple: true },
        parallel: { type: 'string', default: String(DEFAULT_PARALLEL) },
        shuffle: { type: 'boolean', default: false },
        seed: { type: 'string' },
        image: { type: 'string', default: DEFAULT_IMAGE },
        timeout: { type: 'string', default: DEFAULT_TIMEOUT },
        output: { type: 'string', short: 'o', default: 'text' },
      },
    });
    const output = values.output;
    if (output !== 'text' && output !== 'json' && output !== 'junit') throw new UsageError(`unknown output format "${output}": use text, json or junit`);
    const focus = regexFlags('--focus', values.focus);
    const skip = regexFlags('--skip', values.skip);
    const parallel = wholeNumberFlag('--parallel', values.parallel, 1, MAX_PARALLEL);
    const seed = values.seed !== undefined ? wholeNumberFlag('--seed', values.seed, 0, MAX_SEED) : values.shuffle ? randomInt(MAX_SEED) : undefined;
    const timeoutMs = durationFlag('--timeout', values.timeout);
    if (timeoutMs <= 0) throw new UsageError(`--timeout must be more than 0, got "${values.timeout}"`);
    if (values.image.trim() === '') throw new UsageError('--image must name an image');
    const selected = scenarios.filter(({ name }) => (focus.length === 0 || focus.some((f) => f.test(name))) && !skip.some((s) => s.test(name)));
    if (selected.length === 0) {
      const filters = `${focus.length ? ` --focus ${quoted(values.focus!)}` : ''}${skip.length ? ` without --skip ${quoted(values.skip!)}` : ''}`;
      throw new UsageError(`no scenario name matches${filters}; the scenarios are: ${scenarios.map((s) => s.name).join(', ')}`);
    }

    const client = clientFromFlags(values, io.env);
    try {
      // With a report on stdout, the progress goes to stderr: `-o junit > results.xml` still shows the run.
      const progress = output === 'text' ? io.stdout : io.stderr;
      progress.write(headerText({ server: client.server, image: values.image, timeoutMs, count: selected.length, parallel, seed }));
      const report = await runConformance({
        client,
        scenarios: selected,
        image: values.image,
        timeoutMs,
        parallel,
        ...(seed !== undefined && { seed }),
        interrupt: io.signal,
        now: io.now,
        onCapabilities: (capabilities) => progress.write(capabilitiesText(capabilities)),
        onResult: (result) => progress.write(resultText(result)),
      });
      progress.write(summaryText(report));
      if (output === 'json') io.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
      if (output === 'junit') io.stdout.write(junitXml(report));
      if (report.interrupted) return INTERRUPTED_EXIT;
      return countOf(report, 'failed') > 0 || report.namespaces.left.length > 0 ? 1 : 0;
    } finally {
      client.close();
    }
  },
};
