// The knobs of the simulated nodes (docs/sandbox-nodes.md). Delays are milliseconds so tests can run
// the whole pod lifecycle with zero or a few milliseconds.

export interface KubeletOptions {
  /** From admitting a pod to its sandbox being up and its containers starting. Default 1000. */
  startDelayMs?: number;
  /** Cap on a stopping container's grace period. Default 2000. */
  gracePeriodCapMs?: number;
  /** `sleep S` runs S × sleepScale seconds. Default 1. */
  sleepScale?: number;
  /** The crash-loop back-off of the second restart; it doubles up to 30 × this. Default 10,000. */
  restartBackOffMs?: number;
  /** Pods per node (status.allocatable.pods), at most 253. Default 110. */
  maxPods?: number;
  /** Node Lease renewal interval; 0 turns Leases off. Default 10,000. */
  leaseRenewIntervalMs?: number;
}

export type ResolvedKubeletOptions = Required<KubeletOptions>;

export function resolveKubeletOptions(options: KubeletOptions = {}): ResolvedKubeletOptions {
  const maxPods = options.maxPods ?? 110;
  if (!Number.isInteger(maxPods) || maxPods < 1 || maxPods > 253) throw new Error(`kubelet maxPods must be 1 to 253, not ${maxPods}`);
  return {
    startDelayMs: options.startDelayMs ?? 1000,
    gracePeriodCapMs: options.gracePeriodCapMs ?? 2000,
    sleepScale: options.sleepScale ?? 1,
    restartBackOffMs: options.restartBackOffMs ?? 10_000,
    maxPods,
    leaseRenewIntervalMs: options.leaseRenewIntervalMs ?? 10_000,
  };
}
