// Builders for controlled pods in the shapes the protocol tests need.

import type { Pod, PodCondition, Service } from '../../src/api/kube.ts';
import { CONTROL_LABEL, SERVICE_READY_GATE, idLabelKey, operationPermissionKey, type IdLabelWord } from '../../src/api/protocol.ts';

/** The fixed time of upstream's webhook table test. */
export const NOW = 1717505885197871195n;
export const STAMP = NOW.toString();

export const L = (word: IdLabelWord, id: string): string => idLabelKey(word, id);
export const PERM = operationPermissionKey;

export interface PodOptions {
  name?: string;
  namespace?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  finalizers?: string[];
  /** Status of the service-ready condition; undefined: no condition. */
  serviceReady?: 'True' | 'False';
  /** The kubelet's Ready condition. */
  ready?: boolean;
  /** The service-ready readiness gate in the spec (default true). */
  gate?: boolean;
  controlled?: boolean;
}

export function pod(options: PodOptions = {}): Pod {
  const conditions: PodCondition[] = [];
  if (options.ready !== undefined) conditions.push({ type: 'Ready', status: options.ready ? 'True' : 'False' });
  if (options.serviceReady !== undefined) conditions.push({ type: SERVICE_READY_GATE, status: options.serviceReady });
  const labels: Record<string, string> = { ...options.labels };
  if (options.controlled !== false) labels[CONTROL_LABEL] = 'true';
  const metadata: Pod['metadata'] = { name: options.name ?? 'pod-a', namespace: options.namespace ?? 'default', labels };
  if (options.annotations) metadata.annotations = options.annotations;
  if (options.finalizers) metadata.finalizers = options.finalizers;
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata,
    spec: { containers: [{ name: 'app', image: 'nginx' }], ...(options.gate === false ? {} : { readinessGates: [{ conditionType: SERVICE_READY_GATE }] }) },
    status: { phase: 'Running', conditions },
  };
}

/** The pod's labels without the control label, to compare protocol labels only. */
export function protocolLabels(labels: Record<string, string> | undefined): Record<string, string> {
  const { [CONTROL_LABEL]: _control, ...rest } = labels ?? {};
  return rest;
}

export function service(name: string, selector: Record<string, string> | undefined, namespace = 'default'): Service {
  return { apiVersion: 'v1', kind: 'Service', metadata: { name, namespace }, spec: selector ? { selector } : {} };
}
