// prom-client, loaded part by part. Its entry point loads every default metric, and with the CPU one
// @opentelemetry/api (for exemplars, which podops does not use): about 2 MiB of the operator's resident memory.
// podops' code imports the metric classes from here and prom-client only for types.

import { createRequire } from 'node:module';
import type * as PromClient from 'prom-client';

const require = createRequire(import.meta.url);

export const Registry: typeof PromClient.Registry = require('prom-client/lib/registry');
export type Registry = PromClient.Registry;
export const Counter: typeof PromClient.Counter = require('prom-client/lib/counter');
export type Counter<T extends string = string> = PromClient.Counter<T>;
export const Gauge: typeof PromClient.Gauge = require('prom-client/lib/gauge');
export type Gauge<T extends string = string> = PromClient.Gauge<T>;
export const Histogram: typeof PromClient.Histogram = require('prom-client/lib/histogram');
export type Histogram<T extends string = string> = PromClient.Histogram<T>;

/** prom-client's default metrics but its CPU counters, which come from processCpuMetrics below. */
const DEFAULT_METRICS_BUT_CPU = [
  'processStartTime',
  'osMemoryHeap',
  'processOpenFileDescriptors',
  'processMaxFileDescriptors',
  'eventLoopLag',
  'processResources',
  'processHandles',
  'processRequests',
  'heapSizeAndUsed',
  'heapSpacesSizeAndUsed',
  'version',
  'gc',
];

type MetricsModule = (registry: Registry, config: { eventLoopMonitoringPrecision: number }) => void;

/** The process metrics prom-client's collectDefaultMetrics registers, under the same names. */
export function collectProcessMetrics(registry: Registry): void {
  for (const name of DEFAULT_METRICS_BUT_CPU) (require(`prom-client/lib/metrics/${name}`) as MetricsModule)(registry, { eventLoopMonitoringPrecision: 10 });
  processCpuMetrics(registry);
}

function processCpuMetrics(registry: Registry): void {
  const registers = [registry];
  let last = process.cpuUsage();
  // Registered first (prom-client's order), so its collect sets all three before a scrape reads the other two.
  const user = new Counter({
    name: 'process_cpu_user_seconds_total',
    help: 'Total user CPU time spent in seconds.',
    registers,
    collect() {
      const now = process.cpuUsage();
      user.inc((now.user - last.user) / 1e6);
      system.inc((now.system - last.system) / 1e6);
      total.inc((now.user - last.user + now.system - last.system) / 1e6);
      last = now;
    },
  });
  const system = new Counter({ name: 'process_cpu_system_seconds_total', help: 'Total system CPU time spent in seconds.', registers });
  const total = new Counter({ name: 'process_cpu_seconds_total', help: 'Total user and system CPU time spent in seconds.', registers });
}
