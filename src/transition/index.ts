// PodTransitionRule evaluation, pure: no I/O, no clock (time is a parameter). The webhook rule's HTTP
// client, poll manager and evaluation driver are the I/O part, in ./webhook/.
export * from './rules.ts';
export * from './defaults.ts';
export * from './validate.ts';
export * from './parameters.ts';
export * from './wire.ts';
export * from './result.ts';
export * from './available.ts';
export * from './labelcheck.ts';
export * from './webhook-rule.ts';
export * from './processor.ts';
export * from './evaluate.ts';
export * from './verdict.ts';
