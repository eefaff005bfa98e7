// Test support: PodTransitionRules and pods in the PreCheck / PostCheck stages.

import type { OwnerReference, Pod } from '../api/kube.ts';
import type { PodTransitionRule, PodTransitionRuleStatus, TransitionRule } from '../api/podtransitionrule.ts';
import { SERVICE_AVAILABLE_LABEL } from '../api/protocol.ts';
import type { LabelSelector } from '../api/selector.ts';
import { L, pod } from '../../test/support/pods.ts';

export const NAMESPACE = 'default';
export const SELECTOR: LabelSelector = { matchLabels: { app: 'web' } };

export function ptr(rules: TransitionRule[], options: { name?: string; selector?: LabelSelector; status?: PodTransitionRuleStatus; generation?: number } = {}): PodTransitionRule {
  return {
    apiVersion: 'apps.kusionstack.io/v1alpha1',
    kind: 'PodTransitionRule',
    metadata: { name: options.name ?? 'ptr', namespace: NAMESPACE, ...(options.generation ? { generation: options.generation } : {}) },
    spec: { selector: options.selector ?? SELECTOR, rules },
    ...(options.status ? { status: options.status } : {}),
  };
}

export const PRE_CHECK_LABELS = { [L('operating', 'upd')]: '1', [L('operation-type', 'upd')]: 'update', [L('pre-check', 'upd')]: '1' };
export const POST_CHECK_LABELS = { [L('operated', 'upd')]: '1', [L('done-operation-type', 'upd')]: 'update', [L('post-check', 'upd')]: '1' };

export interface StagePodOptions {
  stage?: 'PreCheck' | 'PostCheck' | 'both' | 'none';
  /** Has the service-available label (default true). */
  available?: boolean;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  namespace?: string;
  owner?: OwnerReference;
  podIP?: string;
}

/** A selected (`app=web`) controlled pod in a stage. */
export function stagePod(name: string, options: StagePodOptions = {}): Pod {
  const stage = options.stage ?? 'PreCheck';
  const labels: Record<string, string> = {
    app: 'web',
    ...(stage === 'PreCheck' || stage === 'both' ? PRE_CHECK_LABELS : {}),
    ...(stage === 'PostCheck' || stage === 'both' ? POST_CHECK_LABELS : {}),
    ...(options.available === false ? {} : { [SERVICE_AVAILABLE_LABEL]: '1717505885197871195' }),
    ...options.labels,
  };
  const p = pod({ name, namespace: options.namespace ?? NAMESPACE, labels, ...(options.annotations ? { annotations: options.annotations } : {}) });
  if (options.owner) p.metadata.ownerReferences = [options.owner];
  if (options.podIP && p.status) p.status.podIP = options.podIP;
  return p;
}

export const collaSetOwner = (name: string, uid: string): OwnerReference => ({ apiVersion: 'apps.kusionstack.io/v1alpha1', kind: 'CollaSet', name, uid, controller: true });
