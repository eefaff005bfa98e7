// A conformance scenario: one check of the PodOpsLifecycle protocol, written with plain API reads and writes so
// that it holds for any implementation (podops, Kuperator). Its expectations are spelled out as labels,
// annotations, finalizers, conditions and error strings, never computed by podops' own lifecycle code. The
// objects it creates are named with ctx.name, unique to the run, so that an implementation that mixes up
// objects of different namespaces cannot carry one scenario's state into another.

import type { CapabilityName } from './capabilities.ts';
import type { ScenarioContext } from './context.ts';

export interface Scenario {
  /** `<topic>/<name>`: stable, what reports list and --focus/--skip match. */
  name: string;
  /** What it checks, in a line. */
  title: string;
  requires?: readonly CapabilityName[];
  run(ctx: ScenarioContext): Promise<void>;
}

/** The topic of a scenario: the part of its name before the slash (a JUnit test suite). */
export const topicOf = (scenario: Scenario): string => scenario.name.slice(0, scenario.name.indexOf('/'));
