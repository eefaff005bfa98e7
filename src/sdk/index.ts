// The podops SDK for users' controllers: operation controllers (begin / allowOps / finish / undo) and
// cooperation controllers (protection finalizers, expected finalizers, lifecycleReady).
export * from './pod-change.ts';
export * from './writer.ts';
export * from './write-pod.ts';
export * from './kube-writer.ts';
export * from './operation.ts';
export * from './operation-client.ts';
export * from './cooperation.ts';
