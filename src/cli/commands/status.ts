// `podops status`: the controlled pods of a namespace (or all), with each lifecycle's phase, how long it
// has been there, and what it waits for (including which PodTransitionRule blocks it and why), and the
// rollouts under way of workloads with rollout hooks.

import type { Pod } from '../../api/kube.ts';
import { CONTROL_LABEL, CONTROL_LABEL_VALUE } from '../../api/protocol.ts';
import type { RolloutLifecycle } from '../../api/rolloutlifecycle.ts';
import { PODS, ROLLOUTLIFECYCLES } from '../../kube/resources.ts';
import { unlessNotFound } from '../../kube/client.ts';
import { rolloutFailed, rolloutJson, rolloutSummary, rolloutUnderway } from '../../rollout/report.ts';
import { explainPod, podWaits, type PodReport } from '../../lifecycle/explain.ts';
import { formatDuration, nanosFromMillis } from '../../lifecycle/time.ts';
import { UsageError, optionsHelp, parseCommandArgs, type Command } from '../command.ts';
import { KUBE_FLAGS_HELP, clientFromFlags, kubeFlagOptions, namespaceFrom } from '../kube-flags.ts';
import { reportJson } from '../pod-report-text.ts';

const usage = `Usage: podops status [options]

Lists the pods under PodOpsLifecycle (label ${CONTROL_LABEL}=${CONTROL_LABEL_VALUE}) with the phase of each
lifecycle, the time spent in it, and what it waits for; then the rollouts under way of the workloads with rollout
hooks (a RolloutLifecycle): where each is and what it waits for (podops rollout status KIND/NAME tells more).

Exit code: 0, also while pods wait or a PodTransitionRule blocks them (that is how lifecycles go); 1 when a
rollout it lists has Failed (a hook failed: the rollout waits for a retry or a rollback), or the cluster cannot
be used; 2 for bad options.

Options:
${optionsHelp([...KUBE_FLAGS_HELP, ['-A, --all-namespaces', 'every namespace'], ['-o, --output FORMAT', 'text (default) or json: {"pods": [...], "rollouts": [...]}']])}`;

function rows(reports: PodReport[], nowMs: number, allNamespaces: boolean): string {
  const now = nanosFromMillis(nowMs);
  const table: string[][] = [[...(allNamespaces ? ['NAMESPACE'] : []), 'POD', 'PHASE', 'LIFECYCLES', 'WAITING FOR']];
  for (const report of reports) {
    const lifecycles = report.lifecycles.map((l) => `${l.id}(${l.type ?? '?'}) ${l.phase}${l.since === undefined ? '' : ` ${formatDuration(now - l.since)}`}`).join(', ') || '-';
    table.push([...(allNamespaces ? [report.namespace ?? ''] : []), report.name ?? '', report.phase ?? '-', lifecycles, podWaits(report).join('; ') || '-']);
  }
  const widths = table[0]!.map((_, c) => Math.max(...table.map((r) => r[c]!.length)));
  return table.map((r) => r.map((cell, c) => (c === r.length - 1 ? cell : cell.padEnd(widths[c]!))).join('   ')).join('\n') + '\n';
}

export const statusCommand: Command = {
  usage,
  async run(args, io) {
    const { values } = parseCommandArgs({
      args,
      options: { ...kubeFlagOptions, 'all-namespaces': { type: 'boolean', short: 'A', default: false }, output: { type: 'string', short: 'o', default: 'text' } },
    });
    if (values.output !== 'text' && values.output !== 'json') throw new UsageError(`unknown output format "${values.output}": use text or json`);
    const client = clientFromFlags(values, io.env);
    try {
      const allNamespaces = values['all-namespaces'];
      const namespace = allNamespaces ? undefined : namespaceFrom(values, client);
      const list = await client.list<Pod>(PODS, { ...(namespace && { namespace }), labelSelector: `${CONTROL_LABEL}=${CONTROL_LABEL_VALUE}` });
      const reports = list.items
        .sort((a, b) => `${a.metadata.namespace}/${a.metadata.name}`.localeCompare(`${b.metadata.namespace}/${b.metadata.name}`))
        .map(explainPod);
      // A cluster without the RolloutLifecycle CRD has no rollouts under hooks.
      const rollouts = ((await unlessNotFound(client.list<RolloutLifecycle>(ROLLOUTLIFECYCLES, { ...(namespace && { namespace }) })))?.items ?? []).filter(rolloutUnderway);
      const exitCode = rollouts.some(rolloutFailed) ? 1 : 0;
      if (values.output === 'json') {
        io.stdout.write(reportJson({ pods: reports, rollouts: rollouts.map(rolloutJson) }));
        return exitCode;
      }
      if (reports.length === 0) io.stdout.write(`No pods under PodOpsLifecycle${namespace ? ` in namespace ${namespace}` : ''}.\n`);
      else io.stdout.write(rows(reports, io.now(), allNamespaces));
      if (rollouts.length > 0) io.stdout.write(`\nRollouts under hooks:\n${rollouts.map((rl) => `  ${allNamespaces ? `${rl.metadata.namespace}/` : ''}${rolloutSummary(rl)}`).join('\n')}\n`);
      return exitCode;
    } finally {
      client.close();
    }
  },
};
