// The podops operator: the controllers, the admission webhooks and their certificates, the probes and
// metrics, and leader election, wired over one KubeClient. Nothing here decides protocol: it feeds the pure
// core (src/lifecycle) and writes what it returns.

import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import { Registry } from '../kube/prometheus.ts';
import type { KubeClient } from '../kube/client.ts';
import { nowNanos, untilAborted } from '../kube/clock.ts';
import { NANOS_PER_MILLI } from '../lifecycle/time.ts';
import { keyOf } from '../kube/controller.ts';
import { EventRecorder } from '../kube/events.ts';
import { startProbeServer } from '../kube/health.ts';
import { Informer, type RunnableInformer } from '../kube/informer.ts';
import { createLogger, type Logger } from '../kube/log.ts';
import { Manager, type Runnable } from '../kube/manager.ts';
import { RuntimeMetrics } from '../kube/metrics.ts';
import { ClientMetrics } from '../kube/client-metrics.ts';
import { LifecycleMetrics } from './lifecycle-metrics.ts';
import { PODTRANSITIONRULES } from '../kube/resources.ts';
import { clusterCaches, namedCaches, type ClusterCaches } from '../cache/cluster-cache.ts';
import { LeavingDecisions } from '../cache/leaving.ts';
import { WorkloadReads } from '../cache/workloads.ts';
import { RL_KIND, rolloutLifecycleSchema, type RolloutLifecycle } from '../api/rolloutlifecycle.ts';
import { rolloutController, rolloutInformers } from '../controllers/rollout-controller.ts';
import { admitWorkload, defaultRolloutLifecycleRequest, validateRolloutLifecycleRequest } from '../webhook/rollout.ts';
import { admitEviction } from '../webhook/eviction.ts';
import type { AdmissionRequest } from '../webhook/admission.ts';
import { lifecycleController } from '../controllers/lifecycle-controller.ts';
import { TransitionRuleChecker, transitionController } from '../controllers/transition-controller.ts';
import { podTransitionRuleSchema, PTR_KIND, type PodTransitionRule } from '../api/podtransitionrule.ts';
import { CallManager } from '../transition/webhook/call-manager.ts';
import { PollManager } from '../transition/webhook/poll-manager.ts';
import { defaultTransitionRule, validateTransitionRule } from '../webhook/podtransitionrule.ts';
import { reachabilityWarnings, serverOnLoopback } from '../transition/webhook/probe.ts';
import { podDeletionController } from '../controllers/pod-deletion-controller.ts';
import { podEvictionController } from '../controllers/pod-eviction-controller.ts';
import { watchCertDir } from '../webhook/cert-dir.ts';
import { CertificateManager } from '../webhook/certificate-manager.ts';
import { genericRoute } from '../webhook/dispatch.ts';
import { graceDelete } from '../webhook/grace-delete.ts';
import { DeploymentSurgeAdmission } from '../webhook/deployment-surge.ts';
import { mutatePodLifecycle, validatePodLifecycle } from '../webhook/pod-lifecycle.ts';
import { requireShape, POD_SHAPE } from '../webhook/object-shape.ts';
import { WebhookServer, type ClientAuthentication, type ServingCertificate } from '../webhook/server.ts';
import type { FeatureGates } from './feature-gates.ts';
import { WEBHOOK_NAMES } from './webhook-configuration.ts';

export interface OperatorOptions {
  client: KubeClient;
  /** Namespace of the operator's Lease and certificate Secret. */
  namespace: string;
  featureGates: FeatureGates;
  leaderElect: boolean;
  /** Lease timings (client-go defaults 15 s / 10 s / 2 s). */
  leaderElection?: { leaseDurationMs?: number; renewDeadlineMs?: number; retryPeriodMs?: number };
  /** This replica's name in the Lease; defaults to the hostname plus a random suffix. */
  identity?: string;
  webhook: {
    host: string;
    port: number;
    /** Serve tls.crt/tls.key from this directory (reloaded when they change); otherwise self-managed. */
    certDir?: string;
    /** DNS names and IPs of the self-managed serving certificate. */
    hosts: string[];
    secretName: string;
    /** Serve only callers presenting a client certificate signed by this CA (the API server's). */
    clientAuthentication?: ClientAuthentication;
  };
  metricsAddress: string;
  probeAddress: string;
  lifecycleWorkers?: number;
  /** --eviction-abandoned-after: how long an eviction nobody retries keeps its pod out of service (default 60 s). */
  evictionAbandonedAfterMs?: number;
  /** SKIP_POD_TRANSITION_RULES: rule types every PodTransitionRule ignores (availablePolicy, labelCheck, webhook). */
  skipTransitionRuleTypes?: string;
  logger?: Logger;
}

/** The parts of a running operator that tests and `podops up` look at. */
export interface RunningOperator {
  done: Promise<void>;
  webhookAddress: Promise<string>;
  registry: Registry;
  manager: Manager;
}

export function startOperator(options: OperatorOptions, signal: AbortSignal): RunningOperator {
  const log = options.logger ?? createLogger();
  const registry = new Registry();
  const metrics = new RuntimeMetrics(registry);
  // One client for every part, counting what podops asks of the API server.
  const client = options.client.withOptions({ onRequest: new ClientMetrics(registry).observe });
  const identity = options.identity ?? `${hostname()}_${randomBytes(4).toString('hex')}`;
  const events = new EventRecorder({ client, component: 'podops', instance: identity, logger: log });
  const manager = new Manager({
    logger: log,
    ...(options.leaderElect && {
      leaderElection: { client, namespace: options.namespace, name: 'podops-leader', identity, metrics, ...options.leaderElection },
    }),
  });

  const caches = clusterCaches(client, log);
  const { pods } = caches;
  const workloadReads = new WorkloadReads(caches, client);
  // One decision at a time per ReplicaSet or namespace, whether the webhook or the controller decides.
  const leaving = new LeavingDecisions(workloadReads);
  const rules = new Informer<PodTransitionRule>({ client, type: PODTRANSITIONRULES, logger: log });
  // Polls and first requests run in the background; each one's end requeues its rule.
  const requeueRule = (owner: { namespace: string; name: string }): void => transitions.enqueue(keyOf(owner.namespace, owner.name));
  const webhookCalls = new CallManager({ onAnswered: requeueRule });
  const webhookPolls = new PollManager({ onPolled: requeueRule });
  const common = { client, caches, events, metrics, logger: log };
  const controllers = [
    lifecycleController({ ...common, pods, services: caches.services, rules, transitions: new TransitionRuleChecker(rules), ...(options.lifecycleWorkers && { workers: options.lifecycleWorkers }) }),
    podDeletionController({ ...common, leaving }),
    ...(options.featureGates.GracefulEviction
      ? [podEvictionController({ ...common, ...(options.evictionAbandonedAfterMs !== undefined && { evictionAbandonedAfter: BigInt(Math.round(options.evictionAbandonedAfterMs)) * NANOS_PER_MILLI }) })]
      : []),
  ];
  const transitions = transitionController({ ...common, pods, rules, polls: webhookPolls, calls: webhookCalls, ...(options.skipTransitionRuleTypes && { skipRuleTypes: options.skipTransitionRuleTypes }) });
  controllers.push(transitions);
  const rollout = rolloutInformers(client, log);
  const { rolloutLifecycles, workloads } = rollout;
  controllers.push(rolloutController({ client, ...rollout, events, metrics, logger: log }));
  // The caches the protocol needs gate the start and readiness. The rollout caches do not: without the
  // RolloutLifecycle CRD (a `helm upgrade` does not add CRDs) rollout hooks wait for it, the rest runs; the
  // rollout controller waits for its own caches.
  const protocolCaches: [string, RunnableInformer][] = [...namedCaches(caches), ['podtransitionrule-informer', rules]];
  const rolloutCaches: [string, RunnableInformer][] = [
    ['rolloutlifecycle-informer', rolloutLifecycles],
    ['deployment-informer', workloads.Deployment],
    ['statefulset-informer', workloads.StatefulSet],
    ['daemonset-informer', workloads.DaemonSet],
    ['job-informer', rollout.jobs],
    ['replicaset-informer', rollout.replicaSets],
  ];

  // Only the leader counts lifecycle transitions, so replicas do not multiply them.
  const lifecycleMetrics = new LifecycleMetrics(registry);
  pods.addHandler({ onUpdate: (previous, current) => manager.isLeader() && lifecycleMetrics.observe(previous, current, nowNanos()) });

  const webhook = webhookRunnable(options, client, { caches, workloads: workloadReads, leaving }, registry, log, rolloutLifecycles);
  manager.add({
    name: 'probes',
    stage: 'servers',
    ...listeningRunnable(async () => {
      const enabled = (address: string): boolean => address !== '0';
      return Promise.all([
        ...(enabled(options.metricsAddress) ? [startProbeServer({ address: options.metricsAddress, registry })] : []),
        ...(enabled(options.probeAddress)
          ? [
              startProbeServer({
                address: options.probeAddress,
                healthChecks: { ping: () => true },
                readyChecks: { 'informers-synced': () => protocolCaches.every(([, informer]) => informer.hasSynced()), webhook: () => webhook.listening() },
              }),
            ]
          : []),
      ]);
    }),
  });
  manager.add(webhook.runnable);
  for (const [name, informer] of protocolCaches) manager.add({ name, stage: 'caches', start: (s) => informer.run(s), ready: (s) => informer.waitForSync(s) });
  for (const [name, informer] of rolloutCaches) manager.add({ name, stage: 'caches', start: (s) => informer.run(s) });
  manager.add({
    name: 'podtransitionrule-webhook-calls',
    stage: 'others',
    start: async (s) => {
      await untilAborted(s);
      webhookCalls.stop();
      webhookPolls.stop();
    },
  });
  for (const controller of controllers) manager.add({ name: controller.name, stage: 'leader', start: (s) => controller.run(s) });
  const done = manager.run(signal).finally(async () => {
    await events.flush();
    client.close();
  });
  return { done, webhookAddress: webhook.address, registry, manager };
}

/** A runnable around servers that `open` starts: ready once they listen, closed on stop. */
function listeningRunnable(open: () => Promise<{ close(): Promise<void> }[]>): Pick<Runnable, 'start' | 'ready'> {
  let listening: () => void = () => {};
  const ready = new Promise<void>((resolve) => (listening = resolve));
  return {
    async start(signal) {
      const servers = await open();
      listening();
      await untilAborted(signal);
      await Promise.all(servers.map((server) => server.close()));
    },
    ready: (signal) => Promise.race([ready, untilAborted(signal)]),
  };
}

/** The admission webhook server with its certificates (self-managed, or from --cert-dir). */
function webhookRunnable(
  options: OperatorOptions,
  client: KubeClient,
  { caches, workloads, leaving }: { caches: ClusterCaches; workloads: WorkloadReads; leaving: LeavingDecisions },
  registry: Registry,
  log: Logger,
  rolloutLifecycles: Informer<RolloutLifecycle>,
): { runnable: Runnable; address: Promise<string>; listening(): boolean } {
  let server: WebhookServer | undefined;
  let resolveAddress: (address: string) => void = () => {};
  const address = new Promise<string>((resolve) => (resolveAddress = resolve));
  const shape = { pod: requireShape(POD_SHAPE), rule: requireShape(podTransitionRuleSchema()), rollout: requireShape(rolloutLifecycleSchema()) };
  const rollouts = { client, rolloutLifecycles, now: () => new Date() };
  const workload = (r: AdmissionRequest) => admitWorkload(r, rollouts);
  // Beside its API server on one host (podops up, a developer's laptop), loopback is where rule servers run.
  const loopbackIsCluster = serverOnLoopback(client.server);
  const surge = new DeploymentSurgeAdmission({ workloads, now: nowNanos, logger: log });
  const gracefully = { client, caches, workloads, leaving, now: nowNanos, logger: log };
  const validators = [
    shape.pod,
    validatePodLifecycle,
    ...(options.featureGates.GraceDeleteWebhook ? [(r: AdmissionRequest) => graceDelete(r, gracefully), (r: AdmissionRequest) => surge.admit(r)] : []),
  ];
  const serve = async (certificate: ServingCertificate): Promise<void> => {
    if (server) return server.setCertificate(certificate);
    server = new WebhookServer({
      host: options.webhook.host,
      port: options.webhook.port,
      certificate,
      ...(options.webhook.clientAuthentication && { clientAuthentication: options.webhook.clientAuthentication }),
      registry,
      logger: log,
      routes: [
        genericRoute('/mutating-generic', {
          Pod: [shape.pod, (r) => mutatePodLifecycle(r, nowNanos)],
          'Pod/status': [shape.pod, (r) => mutatePodLifecycle(r, nowNanos)],
          [PTR_KIND]: [shape.rule, defaultTransitionRule],
          [RL_KIND]: [shape.rollout, defaultRolloutLifecycleRequest],
          Deployment: [workload],
          StatefulSet: [workload],
          DaemonSet: [workload],
        }),
        genericRoute('/validating-generic', {
          Pod: validators,
          ...(options.featureGates.GracefulEviction && { 'Eviction/eviction': [(r) => admitEviction(r, { client, caches, now: nowNanos, apiServerAuthenticated: options.webhook.clientAuthentication !== undefined })] }),
          [PTR_KIND]: [shape.rule, (r) => validateTransitionRule(r, (rule, probing) => reachabilityWarnings(rule, { ...probing, loopbackIsCluster }))],
          [RL_KIND]: [shape.rollout, (r) => validateRolloutLifecycleRequest(r, rollouts)],
        }),
      ],
    });
    resolveAddress(await server.listen());
  };
  const runnable: Runnable = {
    name: 'webhook-server',
    stage: 'webhooks',
    async start(signal) {
      if (options.webhook.certDir) await watchCertDir(options.webhook.certDir, serve, signal, log);
      else {
        const certificates = new CertificateManager({
          client,
          namespace: options.namespace,
          secretName: options.webhook.secretName,
          hosts: options.webhook.hosts,
          mutatingWebhookConfigurations: [WEBHOOK_NAMES.mutatingConfiguration],
          validatingWebhookConfigurations: [WEBHOOK_NAMES.validatingConfiguration],
          logger: log,
        });
        await certificates.run(signal, (bundle) => void serve(bundle.serving).catch((err: unknown) => log.error({ err }, 'cannot serve webhooks')));
      }
      await server?.close();
    },
    ready: (signal) => Promise.race([address.then(() => undefined), untilAborted(signal)]),
  };
  return { runnable, address, listening: () => server?.listening ?? false };
}
