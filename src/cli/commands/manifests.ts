// `podops manifests`: the objects that install podops in a cluster, as YAML.

import { stringify } from 'yaml';
import { parseFeatureGates } from '../../operator/feature-gates.ts';
import { DEFAULT_MANIFEST_OPTIONS, manifests } from '../../operator/manifests.ts';
import { UsageError, parseCommandArgs, type Command } from '../command.ts';

const usage = `Usage: podops manifests [options] | kubectl apply -f -

Prints the Namespace, RBAC, webhook Service, Deployment, PodDisruptionBudget and webhook configurations
that install podops.

Options:
  --namespace NS        (default ${DEFAULT_MANIFEST_OPTIONS.namespace})
  --image IMAGE         (default ${DEFAULT_MANIFEST_OPTIONS.image}; build it with the Dockerfile at the repository root)
  --replicas N          (default ${DEFAULT_MANIFEST_OPTIONS.replicas}; replicas elect a leader, all serve webhooks)
  --feature-gates LIST  e.g. GraceDeleteWebhook=true`;

export const manifestsCommand: Command = {
  name: 'manifests',
  summary: 'print the Kubernetes objects that install podops',
  usage,
  async run(args, io) {
    const { values } = parseCommandArgs({
      args,
      options: {
        namespace: { type: 'string', default: DEFAULT_MANIFEST_OPTIONS.namespace },
        image: { type: 'string', default: DEFAULT_MANIFEST_OPTIONS.image },
        replicas: { type: 'string', default: String(DEFAULT_MANIFEST_OPTIONS.replicas) },
        'feature-gates': { type: 'string', default: '' },
      },
    });
    try {
      parseFeatureGates(values['feature-gates']);
    } catch (err) {
      throw new UsageError((err as Error).message);
    }
    const replicas = Number(values.replicas);
    if (!Number.isInteger(replicas) || replicas < 1) throw new UsageError(`--replicas must be a positive integer, got "${values.replicas}"`);
    if (!/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(values.namespace)) throw new UsageError(`--namespace "${values.namespace}" is not a valid namespace name`);
    const objects = manifests({ namespace: values.namespace, image: values.image, replicas, featureGates: values['feature-gates'] });
    io.stdout.write(objects.map((o) => stringify(o)).join('---\n'));
    return 0;
  },
};
