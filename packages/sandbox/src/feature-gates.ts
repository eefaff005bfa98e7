// Feature gates that differ from v1.32's defaults, for the API server and the controllers alike (a cluster
// whose kube-apiserver and kube-controller-manager were given the same --feature-gates). Named apart from
// podops' own FeatureGates (src/operator), which are the operator's gates, not Kubernetes'.

export interface ApiServerFeatureGates {
  /** Alpha, off by default: StatefulSet `rollingUpdate.maxUnavailable` (docs/sandbox-statefulsets.md). */
  MaxUnavailableStatefulSet?: boolean;
}
