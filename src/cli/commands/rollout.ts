// `podops rollout status|retry KIND/NAME`: the rollout hooks of a workload, on any cluster (they read and
// annotate its RolloutLifecycle).

import { RL_RETRY_ANNOTATION, type RolloutLifecycle, type WorkloadKind } from '../../api/rolloutlifecycle.ts';
import type { KubeClient } from '../../kube/client.ts';
import { CONTROLLER_REVISIONS, REPLICASETS, ROLLOUTLIFECYCLES } from '../../kube/resources.ts';
import { labelSelectorString } from '../../api/selector.ts';
import { WORKLOAD_TYPES } from '../../controllers/rollout-controller.ts';
import type { ControllerRevision, ReplicaSetLike } from '../../rollout/observe.ts';
import { normalizedTemplate, sameTemplate, selectorOf, templateOf, type Json, type Workload } from '../../rollout/workload.ts';
import { rolloutFailed, rolloutReport } from '../../rollout/report.ts';
import { UsageError, gotWithSuggestion, optionsHelp, parseCommandArgs, type Command } from '../command.ts';
import { KUBE_FLAGS_HELP, clientFromFlags, kubeFlagOptions, namespaceFrom } from '../kube-flags.ts';

const usage = `Usage: podops rollout status KIND/NAME [options]
       podops rollout retry KIND/NAME [--hook NAME] [options]
       podops rollout undo KIND/NAME [--to-revision N] [options]

status: the current rollout of a Deployment, StatefulSet or DaemonSet with a RolloutLifecycle: its points,
        which are reached, its hooks with their Jobs and phases, and what it waits for. Exits with 1 when the
        rollout has Failed (a hook failed), as kubectl rollout status does when a rollout fails.
retry:  runs the failed hooks of the rollout again (a new Job each), or only --hook NAME.
undo:   rolls the workload back to its previous revision (or --to-revision N), as kubectl rollout undo does,
        also while podops holds a Deployment paused (which kubectl refuses): a ROLLBACK whose hooks run.

Options:
${optionsHelp([
  ...KUBE_FLAGS_HELP,
  ['--hook NAME', 'retry: the hook to run again (default: every failed hook)'],
  ['--to-revision N', 'undo: the revision to go back to (default: the one before the current)'],
  ['-o, --output FORMAT', 'status: text (default) or json'],
])}`;

const KIND_ALIASES: Record<string, WorkloadKind> = {
  deployment: 'Deployment',
  deployments: 'Deployment',
  deploy: 'Deployment',
  statefulset: 'StatefulSet',
  statefulsets: 'StatefulSet',
  sts: 'StatefulSet',
  daemonset: 'DaemonSet',
  daemonsets: 'DaemonSet',
  ds: 'DaemonSet',
};

function parseTarget(text: string | undefined): { kind: WorkloadKind; name: string } {
  const [kind, name, ...rest] = (text ?? '').split('/');
  const resolved = KIND_ALIASES[(kind ?? '').toLowerCase()];
  if (!resolved || !name || rest.length > 0) throw new UsageError(`expected KIND/NAME such as deployment/web (a Deployment, StatefulSet or DaemonSet), got "${text ?? ''}"`);
  return { kind: resolved, name };
}

async function findRolloutLifecycle(client: KubeClient, namespace: string, kind: string, name: string): Promise<RolloutLifecycle> {
  const list = await client.list<RolloutLifecycle>(ROLLOUTLIFECYCLES, { namespace });
  const found = list.items.find((rl) => rl.spec?.targetRef?.kind === kind && rl.spec.targetRef.name === name);
  if (!found) throw new UsageError(`no RolloutLifecycle in namespace ${namespace} targets ${kind}/${name}`);
  return found;
}

/** Sets the workload's template to an earlier revision's (kubectl's rollback, without its refusal of paused Deployments). */
async function undo(client: KubeClient, kind: WorkloadKind, namespace: string, name: string, toRevision: number | undefined): Promise<number> {
  const workload = await client.get<Workload>(WORKLOAD_TYPES[kind], namespace, name);
  const selector = labelSelectorString(selectorOf(workload));
  const revisions =
    kind === 'Deployment'
      ? (await client.list<ReplicaSetLike>(REPLICASETS, { namespace, labelSelector: selector })).items
          .filter((rs) => (rs.metadata.ownerReferences ?? []).some((o) => o.uid === workload.metadata.uid))
          .map((rs) => ({ number: Number(rs.metadata.annotations?.['deployment.kubernetes.io/revision'] ?? 0), template: templateOf(rs) ?? {} }))
      : (await client.list<ControllerRevision>(CONTROLLER_REVISIONS, { namespace, labelSelector: selector })).items
          .filter((cr) => (cr.metadata.ownerReferences ?? []).some((o) => o.uid === workload.metadata.uid))
          .map((cr) => ({ number: cr.revision ?? 0, template: ((cr.data as { spec?: { template?: Json } } | undefined)?.spec?.template ?? {}) as Json }));
  const current = revisions.find((r) => sameTemplate(r.template, templateOf(workload) ?? {}))?.number ?? Math.max(0, ...revisions.map((r) => r.number)) + 1;
  const target = toRevision !== undefined ? revisions.find((r) => r.number === toRevision) : revisions.filter((r) => r.number < current).sort((a, b) => b.number - a.number)[0];
  if (!target) throw new UsageError(toRevision !== undefined ? `${kind}/${name} has no revision ${toRevision}` : `${kind}/${name} has no revision before the current one`);
  if (target.number === current) throw new UsageError(`${kind}/${name} is at revision ${current} already`);
  await client.patch(WORKLOAD_TYPES[kind], namespace, name, 'json', [{ op: 'replace', path: '/spec/template', value: normalizedTemplate(target.template) }]);
  return target.number;
}

export const rolloutCommand: Command = {
  usage,
  async run(args, io) {
    const { values, positionals } = parseCommandArgs({
      args,
      allowPositionals: true,
      options: { ...kubeFlagOptions, hook: { type: 'string' }, 'to-revision': { type: 'string' }, output: { type: 'string', short: 'o', default: 'text' } },
    });
    const [action, target, ...extra] = positionals;
    if (action !== 'status' && action !== 'retry' && action !== 'undo') throw new UsageError(`expected "status", "retry" or "undo", ${gotWithSuggestion(action ?? '', ['status', 'retry', 'undo'])}`);
    if (extra.length > 0) throw new UsageError(`unexpected arguments: ${extra.join(' ')}`);
    const { kind, name } = parseTarget(target);
    if (values.output !== 'text' && values.output !== 'json') throw new UsageError(`unknown output format "${values.output}": use text or json`);
    const toRevision = values['to-revision'] === undefined ? undefined : Number(values['to-revision']);
    if (toRevision !== undefined && !(Number.isInteger(toRevision) && toRevision > 0)) throw new UsageError(`--to-revision must be a positive integer, got "${values['to-revision']}"`);
    const client = clientFromFlags(values, io.env);
    try {
      const namespace = namespaceFrom(values, client);
      if (action === 'undo') {
        const revision = await undo(client, kind, namespace, name, toRevision);
        io.stdout.write(`${kind.toLowerCase()}.apps/${name} rolled back to revision ${revision}\n`);
        return 0;
      }
      const rl = await findRolloutLifecycle(client, namespace, kind, name);
      if (action === 'status') {
        io.stdout.write(values.output === 'json' ? `${JSON.stringify(rl.status ?? {}, null, 2)}\n` : rolloutReport(rl, io.now()));
        return rolloutFailed(rl) ? 1 : 0;
      }
      const failed = (rl.status?.hooks ?? []).filter((h) => h.phase === 'Failed' && h.templateHash === rl.status?.rollout?.templateHash);
      const hooks = values.hook ? failed.filter((h) => h.name === values.hook) : failed;
      if (hooks.length === 0) throw new UsageError(values.hook ? `hook ${values.hook} of ${kind}/${name} has not failed in the current rollout` : `no hook of ${kind}/${name} has failed in the current rollout`);
      await client.patch(ROLLOUTLIFECYCLES, namespace, rl.metadata.name ?? '', 'merge', { metadata: { annotations: { [RL_RETRY_ANNOTATION]: hooks.map((h) => h.name).join(',') } } });
      io.stdout.write(`retrying ${hooks.map((h) => h.name).join(', ')} of ${kind}/${name}: \`podops rollout status ${kind.toLowerCase()}/${name} -n ${namespace}\` follows it\n`);
      return 0;
    } finally {
      client.close();
    }
  },
};
