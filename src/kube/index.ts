// The runtime podops' controllers are built on, public as `podops/runtime` for controllers of your own: the API
// client, shared informers, controllers with a rate-limited queue, events, the staged manager, the logger.
export * from './client.ts';
export * from './clock.ts';
export * from './controller.ts';
export * from './events.ts';
export * from './informer.ts';
export * from './log.ts';
export * from './manager.ts';
export * from './resources.ts';
