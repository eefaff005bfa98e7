export * from './protocol.ts';
export * from './kube.ts';
export * from './selector.ts';
export * from './podtransitionrule.ts';
