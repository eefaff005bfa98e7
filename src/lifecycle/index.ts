// The PodOpsLifecycle protocol core: pure functions, time passed in, no I/O.
export * from './time.ts';
export * from './labels.ts';
export * from './parse.ts';
export * from './pod.ts';
export * from './mutate.ts';
export * from './validate.ts';
export * from './readiness.ts';
export * from './reconcile.ts';
export * from './phase.ts';
export * from './explain.ts';
export * from './transitions.ts';
