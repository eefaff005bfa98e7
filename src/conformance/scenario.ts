// A conformance scenario: one check of the PodOpsLifecycle protocol, written with plain API reads and writes so
// that it holds for any implementation (podops, Kuperator). Its expectations are spelled out as labels,
// annotations, finalizers, conditions and error strings, never computed by podops' own lifecycle code.

import type { ScenarioContext } from './context.ts';

/** What an implementation may or may not offer; a scenario that needs a missing one is skipped, with the reason. */
export type CapabilityName = 'podTransitionRule' | 'graceDelete' | 'gracefulEviction' | 'rolloutHooks';

export interface Scenario {
  /** `<topic>/<name>`: stable, what reports list and --focus/--skip match (with the title). */
  name: string;
  /** What it checks, in a line. */
  title: string;
  requires?: readonly CapabilityName[];
  run(ctx: ScenarioContext): Promise<void>;
}

/** The topic of a scenario: the part of its name before the slash (a JUnit test suite). */
export const topicOf = (scenario: Scenario): string => scenario.name.slice(0, scenario.name.indexOf('/'));

/** The state a failed step saw, as the report shows it. */
export type Observed =
  | { kind: 'Pod'; name: string; phase?: string; labels: Record<string, string>; annotations: Record<string, string>; finalizers: string[]; conditions: string[]; containers: string[]; deleting: boolean }
  | { kind: 'Answer'; request: string; code?: number; message: string }
  | { kind: 'Object'; name: string; state: unknown };

/** A step's expectation that did not hold: which step, what was expected, and what was there instead. */
export class StepFailure extends Error {
  override name = 'StepFailure';
  readonly observed: Observed | undefined;
  constructor(message: string, observed?: Observed) {
    super(message);
    this.observed = observed;
  }
}
