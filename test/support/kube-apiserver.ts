// A real kube-apiserver (with etcd, no controller manager) for the tests that must hold against the real thing:
// CEL as the API server runs it (ValidatingAdmissionPolicy), RBAC, and the webhook client certificate of an
// AdmissionConfiguration. It is @podops/sandbox's startControlPlane, with the binaries of KUBEBUILDER_ASSETS (Go
// envtest's variable); without them the tests that need one skip, saying so. The admin is in system:masters, and
// may impersonate anyone.

import { controlPlaneUnavailable, startControlPlane } from '@podops/sandbox';
import { KubeClient } from '../../src/kube/client.ts';
import type { ResourceType } from '../../src/kube/resources.ts';

const unavailable = await controlPlaneUnavailable();

/** `skip` option for node:test: the reason when no real API server can be started here. */
export const skipWithoutKubeApiserver: string | false = unavailable ? `no real kube-apiserver: ${unavailable}` : false;

export interface KubeApiserver {
  url: string;
  /** A kubeconfig of the admin (system:masters), or of the admin acting as `as` (impersonation). */
  kubeconfig(as?: string): string;
  /** A client of the admin, or of the admin acting as `as`. */
  client(as?: string): KubeClient;
  stop(): Promise<void>;
}

export interface KubeApiserverOptions {
  /** --admission-control-config-file. */
  admissionControlConfigFile?: string;
}

export async function startKubeApiserver(options: KubeApiserverOptions = {}): Promise<KubeApiserver> {
  const plane = await startControlPlane(options.admissionControlConfigFile ? { apiServerFlags: [`--admission-control-config-file=${options.admissionControlConfigFile}`] } : {});
  const kubeconfig = (as?: string): string => (as === undefined ? plane.kubeconfig : plane.kubeconfigAs(as));
  return { url: plane.url, kubeconfig, client: (as) => KubeClient.fromKubeconfigText(kubeconfig(as)), stop: () => plane.stop() };
}

const CLUSTER_SCOPED = new Set(['Namespace', 'CustomResourceDefinition', 'ClusterRole', 'ClusterRoleBinding', 'ValidatingAdmissionPolicy', 'ValidatingAdmissionPolicyBinding', 'MutatingWebhookConfiguration', 'ValidatingWebhookConfiguration']);

/** The resource of an object of the manifests, from its apiVersion and kind. */
export function resourceTypeOf(object: { apiVersion?: unknown; kind?: unknown }): ResourceType {
  const [group, version] = String(object.apiVersion).includes('/') ? String(object.apiVersion).split('/') : ['', String(object.apiVersion)];
  const kind = String(object.kind);
  const lower = kind.toLowerCase();
  const resource = lower.endsWith('y') ? `${lower.slice(0, -1)}ies` : `${lower}s`;
  return { group: group ?? '', version: version ?? '', resource, kind, namespaced: !CLUSTER_SCOPED.has(kind) };
}
