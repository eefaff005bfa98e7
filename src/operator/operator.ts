// The podops operator: the controllers, the admission webhooks and their certificates, the probes and
// metrics, and leader election, wired over one KubeClient. Nothing here decides protocol: it feeds the pure
// core (src/lifecycle) and writes what it returns.

import { watch } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import { Registry } from 'prom-client';
import type { Pod } from '../api/kube.ts';
import { CONTROL_LABEL, CONTROL_LABEL_VALUE } from '../api/protocol.ts';
import type { KubeClient } from '../kube/client.ts';
import { nowNanos, untilAborted } from '../kube/clock.ts';
import { Controller, keyOf } from '../kube/controller.ts';
import { EventRecorder } from '../kube/events.ts';
import { startProbeServer } from '../kube/health.ts';
import { Informer } from '../kube/informer.ts';
import { createLogger, type Logger } from '../kube/log.ts';
import { Manager, type Runnable } from '../kube/manager.ts';
import { RuntimeMetrics } from '../kube/metrics.ts';
import { LifecycleMetrics } from './lifecycle-metrics.ts';
import { PODS } from '../kube/resources.ts';
import { LIFECYCLE_CONTROLLER_NAME, LifecycleReconciler } from '../controllers/lifecycle-controller.ts';
import { PODTRANSITIONRULES, TRANSITION_CONTROLLER_NAME, TransitionReconciler, TransitionRuleChecker } from '../controllers/transition-controller.ts';
import { podTransitionRuleSchema, PTR_KIND, type PodTransitionRule } from '../api/podtransitionrule.ts';
import { labelSelectorMatches } from '../api/selector.ts';
import { CallManager } from '../transition/webhook/call-manager.ts';
import { PollManager } from '../transition/webhook/poll-manager.ts';
import { defaultTransitionRule, validateTransitionRule } from '../webhook/podtransitionrule.ts';
import { POD_DELETION_CONTROLLER_NAME, PodDeletionReconciler, wantsDeletion } from '../controllers/pod-deletion-controller.ts';
import { CertificateManager } from '../webhook/certificate-manager.ts';
import { genericRoute } from '../webhook/dispatch.ts';
import { graceDelete } from '../webhook/grace-delete.ts';
import { mutatePodLifecycle, validatePodLifecycle } from '../webhook/pod-lifecycle.ts';
import { requireShape, POD_SHAPE } from '../webhook/object-shape.ts';
import { WebhookServer, type ClientAuthentication, type ServingCertificate } from '../webhook/server.ts';
import type { FeatureGates } from './feature-gates.ts';
import { trimPod } from './pod-cache.ts';
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
  /** SKIP_POD_TRANSITION_RULES: rule types every PodTransitionRule ignores (availablePolicy, labelCheck, webhook). */
  skipTransitionRuleTypes?: string;
  logger?: Logger;
}

const selectsPod = (rule: PodTransitionRule, pod: Pod): boolean => {
  try {
    return rule.spec?.selector != null && labelSelectorMatches(rule.spec.selector, pod.metadata.labels ?? {});
  } catch {
    return false;
  }
};

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
  const { client } = options;
  const identity = options.identity ?? `${hostname()}_${randomBytes(4).toString('hex')}`;
  const events = new EventRecorder({ client, component: 'podops', instance: identity, logger: log });

  const pods = new Informer<Pod>({ client, type: PODS, labelSelector: `${CONTROL_LABEL}=${CONTROL_LABEL_VALUE}`, transform: trimPod, logger: log });
  const rules = new Informer<PodTransitionRule>({ client, type: PODTRANSITIONRULES, logger: log });
  const lifecycle = new Controller({
    name: LIFECYCLE_CONTROLLER_NAME,
    workers: options.lifecycleWorkers ?? 5,
    metrics,
    logger: log,
    reconciler: new LifecycleReconciler({ client, pods, events, logger: log, transitions: new TransitionRuleChecker(rules) }),
  });
  const deletion = new Controller({ name: POD_DELETION_CONTROLLER_NAME, workers: 5, metrics, logger: log, reconciler: new PodDeletionReconciler({ client, pods, events }) });
  // Polls and first requests run in the background; each one's end requeues its rule. An open call would keep
  // the process alive for up to its 30 s deadline after shutdown: both stop with the manager.
  const webhookCalls = new CallManager({ onAnswered: (owner) => transitions.enqueue(keyOf(owner.namespace, owner.name)) });
  const webhookPolls = new PollManager({ onPolled: (task) => transitions.enqueue(keyOf(task.namespace, task.name)) });
  const transitions: Controller = new Controller({
    name: TRANSITION_CONTROLLER_NAME,
    workers: 5,
    metrics,
    logger: log,
    reconciler: new TransitionReconciler({
      client,
      rules,
      pods,
      events,
      logger: log,
      skipRuleTypes: options.skipTransitionRuleTypes,
      polls: webhookPolls,
      calls: webhookCalls,
    }),
  });
  const podKey = (pod: Pod): string => keyOf(pod.metadata.namespace, pod.metadata.name ?? '');
  const ruleKey = (rule: PodTransitionRule): string => keyOf(rule.metadata.namespace, rule.metadata.name ?? '');
  // Level-triggered: events only name objects. A pod change concerns its lifecycle and the rules that select
  // or list it; a rule change concerns the lifecycles of its targets.
  const onPod = (...versions: Pod[]): void => {
    const pod = versions[versions.length - 1] as Pod;
    lifecycle.enqueue(podKey(pod));
    if (wantsDeletion(pod)) deletion.enqueue(podKey(pod));
    for (const rule of rules.list(pod.metadata.namespace)) {
      if (versions.some((v) => selectsPod(rule, v)) || (rule.status?.targets ?? []).includes(pod.metadata.name ?? '')) transitions.enqueue(ruleKey(rule));
    }
  };
  const onRule = (rule: PodTransitionRule): void => {
    transitions.enqueue(ruleKey(rule));
    for (const target of rule.status?.targets ?? []) lifecycle.enqueue(keyOf(rule.metadata.namespace, target));
  };
  // Only the leader counts lifecycle transitions, so replicas do not multiply them.
  const lifecycleMetrics = new LifecycleMetrics(registry);
  let leading = false;
  pods.addHandler({
    onAdd: (p) => onPod(p),
    onUpdate: (previous, current) => {
      if (leading) lifecycleMetrics.observe(previous, current, nowNanos());
      onPod(previous, current);
    },
    onDelete: (p) => onPod(p),
  });
  rules.addHandler({ onAdd: onRule, onUpdate: (_previous, current) => onRule(current), onDelete: onRule });

  const podShape = requireShape(POD_SHAPE);
  const ruleShape = requireShape(podTransitionRuleSchema());
  const validators = [podShape, validatePodLifecycle, ...(options.featureGates.GraceDeleteWebhook ? [(r: Parameters<typeof graceDelete>[0]) => graceDelete(r, { client, now: nowNanos, logger: log })] : [])];
  let webhookServer: WebhookServer | undefined;
  let resolveAddress: (address: string) => void = () => {};
  const webhookAddress = new Promise<string>((resolve) => (resolveAddress = resolve));
  const serve = async (certificate: ServingCertificate): Promise<void> => {
    if (webhookServer) return webhookServer.setCertificate(certificate);
    webhookServer = new WebhookServer({
      host: options.webhook.host,
      port: options.webhook.port,
      certificate,
      ...(options.webhook.clientAuthentication && { clientAuthentication: options.webhook.clientAuthentication }),
      registry,
      logger: log,
      routes: [
        genericRoute('/mutating-generic', {
          Pod: [podShape, (r) => mutatePodLifecycle(r, nowNanos)],
          'Pod/status': [podShape, (r) => mutatePodLifecycle(r, nowNanos)],
          [PTR_KIND]: [ruleShape, defaultTransitionRule],
        }),
        genericRoute('/validating-generic', { Pod: validators, [PTR_KIND]: [ruleShape, (r) => validateTransitionRule(r)] }),
      ],
    });
    resolveAddress(await webhookServer.listen());
  };

  const manager = new Manager({
    logger: log,
    ...(options.leaderElect && {
      leaderElection: { client, namespace: options.namespace, name: 'podops-leader', identity, metrics, ...options.leaderElection },
    }),
  });
  const always = (name: string, start: (signal: AbortSignal) => Promise<void>): Runnable => ({ name, needLeaderElection: false, start });
  const leader = (name: string, start: (signal: AbortSignal) => Promise<void>): Runnable => ({ name, needLeaderElection: true, start });

  manager.add(always('pod-informer', (s) => pods.run(s)));
  manager.add(always('podtransitionrule-informer', (s) => rules.run(s)));
  manager.add(
    always('webhook-server', async (s) => {
      if (options.webhook.certDir) await watchCertDir(options.webhook.certDir, serve, s, log);
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
        await certificates.run(s, (bundle) => void serve(bundle.serving).catch((err: unknown) => log.error({ err }, 'cannot serve webhooks')));
      }
      await webhookServer?.close();
    }),
  );
  manager.add(
    always('probes', async (s) => {
      const enabled = (address: string): boolean => address !== '0';
      const servers = await Promise.all([
        ...(enabled(options.metricsAddress) ? [startProbeServer({ address: options.metricsAddress, registry })] : []),
        ...(enabled(options.probeAddress)
          ? [
              startProbeServer({
                address: options.probeAddress,
                healthChecks: { ping: () => true },
                readyChecks: { 'informers-synced': () => pods.hasSynced() && rules.hasSynced(), webhook: () => webhookServer?.listening ?? false },
              }),
            ]
          : []),
      ]);
      await untilAborted(s);
      await Promise.all(servers.map((server) => server.close()));
    }),
  );
  manager.add(
    leader('lifecycle-metrics', async (s) => {
      leading = true;
      await untilAborted(s);
      leading = false;
    }),
  );
  for (const controller of [lifecycle, deletion, transitions]) {
    manager.add(
      leader(controller.name, async (s) => {
        await Promise.all([pods.waitForSync(s), rules.waitForSync(s)]);
        for (const pod of pods.list()) onPod(pod);
        for (const rule of rules.list()) onRule(rule);
        await controller.run(s);
      }),
    );
  }
  const done = manager.run(signal).finally(() => {
    webhookCalls.stop();
    webhookPolls.stop();
    return events.flush();
  });
  return { done, webhookAddress, registry, manager };
}

/**
 * Resolves after `ms`, or shortly after something in `dir` changes. A renewal replaces several files one
 * after the other, so a change is acted on once the directory has been quiet for a moment. The timeout
 * stays the fallback for volumes that report no changes.
 */
function changedOrTimeout(dir: string, ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const stop = new AbortController();
    let quiet: NodeJS.Timeout | undefined;
    const done = (): void => {
      clearTimeout(timeout);
      clearTimeout(quiet);
      signal.removeEventListener('abort', done);
      stop.abort();
      resolve();
    };
    const timeout = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
    try {
      watch(dir, { signal: stop.signal }, () => {
        clearTimeout(quiet);
        quiet = setTimeout(done, 200);
      }).on('error', () => {});
    } catch {
      // Not watchable here: the timeout alone decides.
    }
  });
}

/** Serves tls.crt/tls.key from a directory and reloads them when they change (cert-manager rotates them). */
async function watchCertDir(dir: string, serve: (c: ServingCertificate) => Promise<void>, signal: AbortSignal, log: Logger): Promise<void> {
  let seen = '';
  while (!signal.aborted) {
    try {
      const [certStat, keyStat] = await Promise.all([stat(join(dir, 'tls.crt')), stat(join(dir, 'tls.key'))]);
      const version = `${certStat.mtimeMs}/${keyStat.mtimeMs}`;
      if (version !== seen) {
        const [cert, key] = await Promise.all([readFile(join(dir, 'tls.crt'), 'utf8'), readFile(join(dir, 'tls.key'), 'utf8')]);
        await serve({ cert, key });
        seen = version;
        log.info({ dir }, 'serving certificate loaded');
      }
    } catch (err) {
      log.error({ err, dir }, 'cannot load the serving certificate from --cert-dir');
      if (!seen) throw err;
    }
    await changedOrTimeout(dir, 10_000, signal);
  }
}
