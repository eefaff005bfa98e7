// Feature gates that differ from v1.32's defaults, for the API server and the controllers alike (a cluster
// whose kube-apiserver and kube-controller-manager were given the same --feature-gates).

export interface FeatureGates {
  /** Alpha, off by default: StatefulSet `rollingUpdate.maxUnavailable` (docs/sandbox-statefulsets.md). */
  MaxUnavailableStatefulSet?: boolean;
}
