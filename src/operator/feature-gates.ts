// Feature gates, spelled as Kubernetes components spell them: --feature-gates=Name=true,Other=false.

export const FEATURE_GATES = {
  /** Turn `kubectl delete pod` of controlled pods into a pod-delete lifecycle (Alpha, default off). */
  GraceDeleteWebhook: false,
  /** Evictions of controlled pods (kubectl drain, the cluster autoscaler) wait for a pod-eviction lifecycle (podops' addition, default on). */
  GracefulEviction: true,
} as const;

export type FeatureGate = keyof typeof FEATURE_GATES;
export type FeatureGates = Record<FeatureGate, boolean>;

export function parseFeatureGates(text: string | undefined): FeatureGates {
  const gates: FeatureGates = { ...FEATURE_GATES };
  for (const item of (text ?? '').split(',').map((s) => s.trim()).filter(Boolean)) {
    const [name, value, ...rest] = item.split('=');
    if (!name || value === undefined || rest.length > 0) throw new Error(`invalid feature gate "${item}": expected Name=true|false`);
    if (!(name in FEATURE_GATES)) throw new Error(`unrecognized feature gate: ${name} (known: ${Object.keys(FEATURE_GATES).join(', ')})`);
    if (value !== 'true' && value !== 'false') throw new Error(`invalid value of feature gate ${name}: "${value}" (expected true or false)`);
    gates[name as FeatureGate] = value === 'true';
  }
  return gates;
}
