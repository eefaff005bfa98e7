// `podops manifests`: the objects that install podops in a cluster, as YAML.

import { isIP } from 'node:net';
import { stringify } from 'yaml';
import { parseFeatureGates } from '../../operator/feature-gates.ts';
import { DEFAULT_MANIFEST_OPTIONS, manifests } from '../../operator/manifests.ts';
import { UsageError, parseCommandArgs, type Command } from '../command.ts';

const usage = `Usage: podops manifests [options] | kubectl apply -f -

Prints the Namespace, RBAC, webhook Service, Deployment, PodDisruptionBudget, admission policy and webhook
configurations that install podops.

Options:
  --namespace NS        (default ${DEFAULT_MANIFEST_OPTIONS.namespace})
  --image IMAGE         (default ${DEFAULT_MANIFEST_OPTIONS.image}; build it with the Dockerfile at the repository root)
  --replicas N          (default ${DEFAULT_MANIFEST_OPTIONS.replicas}; replicas elect a leader, all serve webhooks)
  --feature-gates LIST  e.g. GraceDeleteWebhook=true
  --webhook-source-cidrs LIST
                        add a NetworkPolicy admitting only these CIDRs (the control plane's) to the
                        webhook port; metrics and probes stay open
  --no-admission-policy leave out the ValidatingAdmissionPolicy that limits podops' ServiceAccount
                        (needed before Kubernetes 1.30)
  --webhook-client-ca-secret NAME
                        a Secret in --namespace whose ca.crt signs the API server's webhook client
                        certificate: only callers presenting such a certificate are served
  --webhook-client-names LIST
                        with --webhook-client-ca-secret: the accepted names of that certificate`;

function isCidr(text: string): boolean {
  const slash = text.lastIndexOf('/');
  const version = isIP(text.slice(0, slash));
  const bits = Number(text.slice(slash + 1));
  return slash > 0 && version !== 0 && /^\d+$/.test(text.slice(slash + 1)) && bits <= (version === 4 ? 32 : 128);
}

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
        'webhook-source-cidrs': { type: 'string', default: '' },
        'no-admission-policy': { type: 'boolean', default: false },
        'webhook-client-ca-secret': { type: 'string', default: '' },
        'webhook-client-names': { type: 'string', default: '' },
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
    const cidrs = values['webhook-source-cidrs'].split(',').map((c) => c.trim()).filter(Boolean);
    for (const cidr of cidrs) if (!isCidr(cidr)) throw new UsageError(`--webhook-source-cidrs: "${cidr}" is not a CIDR such as 10.0.0.0/16 or fd00::/64`);
    if (values['webhook-client-names'] && !values['webhook-client-ca-secret']) throw new UsageError('--webhook-client-names needs --webhook-client-ca-secret');
    const objects = manifests({
      namespace: values.namespace,
      image: values.image,
      replicas,
      featureGates: values['feature-gates'],
      webhookSourceCIDRs: cidrs,
      admissionPolicy: !values['no-admission-policy'],
      webhookClientCASecret: values['webhook-client-ca-secret'],
      webhookClientNames: values['webhook-client-names'],
    });
    io.stdout.write(objects.map((o) => stringify(o)).join('---\n'));
    return 0;
  },
};
