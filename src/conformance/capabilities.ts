// What an implementation may offer besides the pod lifecycle itself, as the capability probes (probes.ts) find
// it and the report shows it; a scenario that needs one that is missing is skipped, with the reason.

/** What an implementation may or may not offer; a scenario that needs a missing one is skipped, with the reason. */
export type CapabilityName = 'podTransitionRule' | 'graceDelete' | 'gracefulEviction' | 'rolloutHooks';

export interface Capability {
  available: boolean;
  /** What was found, or why it is missing: printed at the top of the report, and as the reason of a skip. */
  summary: string;
}

export type Capabilities = Record<'lifecycleWebhooks' | Exclude<CapabilityName, 'gracefulEviction'>, Capability> & {
  /** `needsCordon`: podops defers an eviction only from a node being emptied (a cordoned one). */
  gracefulEviction: Capability & { needsCordon: boolean };
};

export const CAPABILITY_TITLES: Record<keyof Capabilities, string> = {
  lifecycleWebhooks: 'pod lifecycle webhooks',
  podTransitionRule: 'PodTransitionRule',
  graceDelete: 'GraceDelete',
  gracefulEviction: 'graceful evictions',
  rolloutHooks: 'rollout hooks',
};
