// The I/O of webhook rules: the HTTP(S) client, the admission-time reachability probe, the managers of
// first requests and polls (both in the background), and the driver that runs an evaluation with them.
export * from './client.ts';
export * from './probe.ts';
export * from './call-manager.ts';
export * from './poll-manager.ts';
export * from './driver.ts';
