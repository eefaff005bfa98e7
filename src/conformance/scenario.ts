// A conformance scenario: one check of the PodOpsLifecycle protocol, written with plain API reads and writes so
// that it holds for any implementation (podops, Kuperator). Its expectations are spelled out as labels,
// annotations, finalizers, conditions and error strings, never computed by podops' own lifecycle code.

import type { CapabilityName } from './capabilities.ts';
import type { ScenarioContext } from './context.ts';

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
