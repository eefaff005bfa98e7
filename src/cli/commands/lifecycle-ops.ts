// `podops begin|finish|undo POD --id ID --type TYPE`: an operation controller in the terminal. begin starts a
// lifecycle; finish ends the operation once podops allows it (the pod is out of traffic and its checks
// passed); undo cancels the lifecycle in any phase.

import type { Pod } from '../../api/kube.ts';
import { isNotFound } from '../../kube/client.ts';
import { nowNanos } from '../../kube/clock.ts';
import { PODS } from '../../kube/resources.ts';
import { explainPod } from '../../lifecycle/explain.ts';
import { podWriterFor } from '../../sdk/kube-writer.ts';
import { OperationClient } from '../../sdk/operation-client.ts';
import { allowOps, hasLifecycle, lifecycleIdFor, OperationTypeConflictError, type LifecycleAdapter } from '../../sdk/operation.ts';
import { UsageError, optionsHelp, parseCommandArgs, type Command } from '../command.ts';
import { KUBE_FLAGS_HELP, clientFromFlags, kubeFlagOptions, namespaceFrom } from '../kube-flags.ts';

type Verb = 'begin' | 'finish' | 'undo';

const descriptions: Record<Verb, string> = {
  begin: 'Begins a lifecycle on a pod (an operation controller in the terminal).',
  finish: 'Finishes a lifecycle once podops allows the operation.',
  undo: 'Cancels a lifecycle in any phase.',
};

function usageOf(verb: Verb): string {
  return `Usage: podops ${verb} POD --id ID --type TYPE [options]

${descriptions[verb]}

Options:
${optionsHelp([
  ['--id ID', 'the lifecycle ID (a label name of at most 63 characters)'],
  ['--type TYPE', 'the operation type, e.g. update, restart'],
  ...(verb === 'begin' ? [['--allow-multi-type', 'allow another lifecycle of the same type on the pod'] as const] : []),
  ...(verb === 'finish' ? [['--force', 'finish even if podops has not allowed the operation yet'] as const] : []),
  ...KUBE_FLAGS_HELP,
])}`;
}

function lifecycleCommand(verb: Verb): Command {
  return {
    usage: usageOf(verb),
    async run(args, io) {
      const parsed = parseCommandArgs({
        args,
        allowPositionals: true,
        options: {
          ...kubeFlagOptions,
          id: { type: 'string' },
          type: { type: 'string' },
          'allow-multi-type': { type: 'boolean', default: false },
          force: { type: 'boolean', default: false },
        },
      });
      const { values, positionals } = parsed;
      const [podName, ...extra] = positionals;
      if (!podName || extra.length > 0) throw new UsageError(`expected exactly one POD, got ${positionals.length}`);
      if (!values.id) throw new UsageError('--id is required');
      if (!values.type) throw new UsageError('--type is required');
      if (lifecycleIdFor(values.id) !== values.id || !/^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/.test(values.id)) {
        throw new UsageError(`--id "${values.id}" is not a valid label name of at most 63 characters`);
      }
      const adapter: LifecycleAdapter = { id: values.id, type: values.type, allowMultiType: values['allow-multi-type'] };
      const client = clientFromFlags(values, io.env);
      const namespace = namespaceFrom(values, client);
      try {
        let pod: Pod;
        try {
          pod = await client.get<Pod>(PODS, namespace, podName);
        } catch (err) {
          if (isNotFound(err)) throw new UsageError(`pod ${namespace}/${podName} not found`);
          throw err;
        }
        const ops = new OperationClient(podWriterFor(client));
        let result;
        if (verb === 'begin') {
          try {
            result = await ops.begin(adapter, pod);
          } catch (err) {
            if (err instanceof OperationTypeConflictError) throw new UsageError(`${err.message} (use --allow-multi-type to run them side by side)`);
            throw err;
          }
        } else if (verb === 'finish') {
          const { allowed, requeueAfterMs } = allowOps(adapter, 0, pod, nowNanos());
          if (!allowed && !values.force) {
            const phase = explainPod(pod).lifecycles.find((l) => l.id === adapter.id);
            const why = phase ? `it is in ${phase.phase}: ${phase.waitingFor.join('; ')}` : `it has no lifecycle ${adapter.id} of type ${adapter.type}`;
            throw new UsageError(`podops has not allowed the operation on pod ${namespace}/${podName} yet: ${why}${requeueAfterMs ? ` (ask again in ${Math.ceil(requeueAfterMs / 1000)}s)` : ''}; --force finishes anyway`);
          }
          result = await ops.finish(adapter, pod);
        } else {
          if (!hasLifecycle(adapter.id, pod)) throw new UsageError(`pod ${namespace}/${podName} has no lifecycle ${adapter.id}`);
          result = await ops.undo(adapter, pod);
        }
        const lifecycle = explainPod(result.pod).lifecycles.find((l) => l.id === adapter.id);
        const state = lifecycle ? `${lifecycle.phase}${lifecycle.waitingFor.length ? ` (${lifecycle.waitingFor.join('; ')})` : ''}` : 'no lifecycle left';
        io.stdout.write(`pod/${podName}: ${result.updated ? `${verb} ${adapter.id}` : `${adapter.id} unchanged`}; now ${state}\n`);
        return 0;
      } finally {
        client.close();
      }
    },
  };
}

export const beginCommand = lifecycleCommand('begin');
export const finishCommand = lifecycleCommand('finish');
export const undoCommand = lifecycleCommand('undo');
