// Every scenario, in the order they run and are reported: the lifecycle first (everything else builds on it),
// then the checks that refuse, the rules that hold, and the features an implementation may lack.

import type { Scenario } from '../scenario.ts';
import { deletionScenarios } from './deletion.ts';
import { lifecycleScenarios } from './lifecycle.ts';
import { rolloutHookScenarios } from './rollout-hooks.ts';
import { transitionScenarios } from './transition.ts';
import { undoScenarios } from './undo.ts';
import { validationScenarios } from './validation.ts';

export const scenarios: readonly Scenario[] = [...lifecycleScenarios, ...undoScenarios, ...validationScenarios, ...transitionScenarios, ...deletionScenarios, ...rolloutHookScenarios];
