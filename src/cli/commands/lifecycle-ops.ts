// `podops begin|finish|undo POD --id ID --type TYPE`: an operation controller in the terminal. begin starts a
// lifecycle; finish ends the operation once podops allows it (the pod is out of traffic and its checks
// passed); undo cancels the lifecycle in any phase.

import type { Pod } from '../../api/kube.ts';
import { CONTROL_LABEL, CONTROL_LABEL_VALUE, ID_LABEL_WORDS, idLabelKey } from '../../api/protocol.ts';
import { isNotFound, type KubeClient } from '../../kube/client.ts';
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
  begin: `Begins a lifecycle on a pod (an operation controller in the terminal). The pod must be under PodOpsLifecycle
(label ${CONTROL_LABEL}=${CONTROL_LABEL_VALUE}): on another pod no lifecycle would run, and begin refuses.`,
  finish: 'Finishes a lifecycle once podops allows the operation.',
  undo: `Cancels a lifecycle in any phase. Labels of the ID left on a pod without a lifecycle (or on a pod that is not
under PodOpsLifecycle) are removed.`,
};

function usageOf(verb: Verb): string {
  return `Usage: podops ${verb} POD --id ID --type TYPE [options]

${descriptions[verb]}

Options:
${optionsHelp([
  ['--id ID', 'the lifecycle ID (a label name of at most 63 characters)'],
  ['--type TYPE', 'the operation type, e.g. update, restart'],
  ...(verb === 'begin' ? [['--allow-multi-type', 'allow another lifecycle of the same type on the pod'] as const] : []),
  ...(verb === 'finish' ? [['--force', 'finish a lifecycle even if podops has not allowed the operation yet'] as const] : []),
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
        const where = `pod ${namespace}/${podName}`;
        const controlled = pod.metadata.labels?.[CONTROL_LABEL] === CONTROL_LABEL_VALUE;
        const ops = new OperationClient(podWriterFor(client));
        let result;
        if (verb === 'begin') {
          if (!controlled) {
            throw new UsageError(`${where} is not under PodOpsLifecycle (it has no label ${CONTROL_LABEL}=${CONTROL_LABEL_VALUE}): no lifecycle would run on it`);
          }
          try {
            result = await ops.begin(adapter, pod);
          } catch (err) {
            if (err instanceof OperationTypeConflictError) throw new UsageError(`${err.message} (use --allow-multi-type to run them side by side)`);
            throw err;
          }
        } else if (verb === 'finish') {
          const phase = controlled ? explainPod(pod).lifecycles.find((l) => l.id === adapter.id) : undefined;
          // Nothing to finish, forced or not.
          if (!phase) throw new UsageError(`${where} has no lifecycle ${adapter.id}${controlled ? '' : ` (it is not under PodOpsLifecycle)`}: nothing to finish`);
          const { allowed, requeueAfterMs } = allowOps(adapter, 0, pod, nowNanos());
          if (!allowed && !values.force) {
            throw new UsageError(
              `podops has not allowed the operation on ${where} yet: it is in ${phase.phase}: ${phase.waitingFor.join('; ')}${requeueAfterMs ? ` (ask again in ${Math.ceil(requeueAfterMs / 1000)}s)` : ''}; --force finishes anyway`,
            );
          }
          result = await ops.finish(adapter, pod);
        } else if (controlled && hasLifecycle(adapter.id, pod)) {
          result = await ops.undo(adapter, pod);
        } else {
          const stray = strayLabels(pod, adapter.id);
          if (stray.length === 0) throw new UsageError(`${where} has no lifecycle ${adapter.id}`);
          await removeLabels(client, pod, stray);
          io.stdout.write(`pod/${podName}: removed ${stray.join(', ')} (no lifecycle ${adapter.id} runs on it)\n`);
          return 0;
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

/** The labels of an ID on a pod: on one without a lifecycle of it, nothing will ever remove them but undo. */
const strayLabels = (pod: Pod, id: string): string[] => ID_LABEL_WORDS.map((word) => idLabelKey(word, id)).filter((key) => pod.metadata.labels?.[key] !== undefined);

/** Removes labels in one merge patch, guarded by the resourceVersion they were read at. */
async function removeLabels(client: KubeClient, pod: Pod, keys: readonly string[]): Promise<void> {
  const labels = Object.fromEntries(keys.map((key) => [key, null]));
  await client.patch(PODS, pod.metadata.namespace, pod.metadata.name ?? '', 'merge', { metadata: { resourceVersion: pod.metadata.resourceVersion, labels } });
}

export const beginCommand = lifecycleCommand('begin');
export const finishCommand = lifecycleCommand('finish');
export const undoCommand = lifecycleCommand('undo');
