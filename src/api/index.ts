export * from './protocol.ts';
export * from './kube.ts';
