// The I/O of webhook rules: the HTTP(S) client, the admission-time reachability probe, the poll
// manager, and the driver that runs an evaluation with its webhook calls.
export * from './client.ts';
export * from './probe.ts';
export * from './poll-manager.ts';
export * from './driver.ts';
