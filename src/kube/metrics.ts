// Prometheus metrics of the controller runtime, named as controller-runtime and client-go name them so
// existing dashboards and alerts work unchanged.

import { Counter, Gauge, Histogram, Registry, collectProcessMetrics } from './prometheus.ts';
import type { WorkQueue, WorkQueueObserver } from './workqueue.ts';

// controller-runtime's reconcile-time buckets.
const RECONCILE_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6, 0.7, 0.8, 0.9, 1, 1.25, 1.5, 1.75, 2, 2.5, 3, 3.5, 4, 4.5, 5, 6, 7, 8, 9, 10, 15, 20, 25, 30, 40, 50, 60];
// client-go's workqueue buckets: 10 ns to 1000 s.
const QUEUE_BUCKETS = Array.from({ length: 12 }, (_, i) => 1e-8 * 10 ** i);

export class RuntimeMetrics {
  readonly registry: Registry;
  readonly reconcileTotal: Counter<'controller' | 'result'>;
  readonly reconcileErrors: Counter<'controller'>;
  readonly terminalReconcileErrors: Counter<'controller'>;
  readonly reconcilePanics: Counter<'controller'>;
  readonly reconcileTime: Histogram<'controller'>;
  readonly maxConcurrentReconciles: Gauge<'controller'>;
  readonly activeWorkers: Gauge<'controller'>;
  readonly queueDepth: Gauge<'name' | 'controller'>;
  readonly queueAdds: Counter<'name' | 'controller'>;
  readonly queueDuration: Histogram<'name' | 'controller'>;
  readonly workDuration: Histogram<'name' | 'controller'>;
  readonly queueRetries: Counter<'name' | 'controller'>;
  readonly leaderStatus: Gauge<'name'>;
  readonly leaderSlowpath: Counter<'name'>;
  readonly #queues = new Map<string, WorkQueue>();

  constructor(registry = new Registry(), options: { processMetrics?: boolean } = {}) {
    this.registry = registry;
    if (options.processMetrics ?? true) collectProcessMetrics(registry);
    const registers = [registry];
    this.reconcileTotal = new Counter({ name: 'controller_runtime_reconcile_total', help: 'Total number of reconciliations per controller', labelNames: ['controller', 'result'], registers });
    this.reconcileErrors = new Counter({ name: 'controller_runtime_reconcile_errors_total', help: 'Total number of reconciliation errors per controller', labelNames: ['controller'], registers });
    this.terminalReconcileErrors = new Counter({ name: 'controller_runtime_terminal_reconcile_errors_total', help: 'Total number of terminal reconciliation errors per controller', labelNames: ['controller'], registers });
    this.reconcilePanics = new Counter({ name: 'controller_runtime_reconcile_panics_total', help: 'Total number of reconciliation panics per controller', labelNames: ['controller'], registers });
    this.reconcileTime = new Histogram({ name: 'controller_runtime_reconcile_time_seconds', help: 'Length of time per reconciliation per controller', labelNames: ['controller'], buckets: RECONCILE_BUCKETS, registers });
    this.maxConcurrentReconciles = new Gauge({ name: 'controller_runtime_max_concurrent_reconciles', help: 'Maximum number of concurrent reconciles per controller', labelNames: ['controller'], registers });
    this.activeWorkers = new Gauge({ name: 'controller_runtime_active_workers', help: 'Number of currently used workers per controller', labelNames: ['controller'], registers });
    this.queueDepth = new Gauge({ name: 'workqueue_depth', help: 'Current depth of workqueue', labelNames: ['name', 'controller'], registers });
    this.queueAdds = new Counter({ name: 'workqueue_adds_total', help: 'Total number of adds handled by workqueue', labelNames: ['name', 'controller'], registers });
    this.queueDuration = new Histogram({ name: 'workqueue_queue_duration_seconds', help: 'How long in seconds an item stays in workqueue before being requested', labelNames: ['name', 'controller'], buckets: QUEUE_BUCKETS, registers });
    this.workDuration = new Histogram({ name: 'workqueue_work_duration_seconds', help: 'How long in seconds processing an item from workqueue takes', labelNames: ['name', 'controller'], buckets: QUEUE_BUCKETS, registers });
    this.queueRetries = new Counter({ name: 'workqueue_retries_total', help: 'Total number of retries handled by workqueue', labelNames: ['name', 'controller'], registers });
    const queues = this.#queues;
    new Gauge({
      name: 'workqueue_unfinished_work_seconds',
      help: 'How many seconds of work has been done that is in progress and hasn\'t been observed by work_duration',
      labelNames: ['name', 'controller'],
      registers,
      collect() {
        for (const [name, queue] of queues) this.set({ name, controller: name }, queue.unfinishedWork().totalSeconds);
      },
    });
    new Gauge({
      name: 'workqueue_longest_running_processor_seconds',
      help: 'How many seconds has the longest running processor for workqueue been running',
      labelNames: ['name', 'controller'],
      registers,
      collect() {
        for (const [name, queue] of queues) this.set({ name, controller: name }, queue.unfinishedWork().longestSeconds);
      },
    });
    this.leaderStatus = new Gauge({ name: 'leader_election_master_status', help: 'Gauge of if the reporting system is master of the relevant lease, 0 indicates backup, 1 indicates master', labelNames: ['name'], registers });
    this.leaderSlowpath = new Counter({ name: 'leader_election_slowpath_total', help: 'Total number of slow path exercised in renewing leader leases', labelNames: ['name'], registers });
  }

  /** The observer a controller's queue reports to; the queue itself is sampled for unfinished work. */
  queueObserver(name: string, queue: () => WorkQueue): WorkQueueObserver {
    const labels = { name, controller: name };
    const queues = this.#queues;
    return {
      added: () => {
        this.queueAdds.inc(labels);
        if (!queues.has(name)) queues.set(name, queue());
      },
      depth: (n) => this.queueDepth.set(labels, n),
      started: (waitedMs) => this.queueDuration.observe(labels, waitedMs / 1000),
      finished: (workedMs) => this.workDuration.observe(labels, workedMs / 1000),
      retried: () => this.queueRetries.inc(labels),
    };
  }
}
