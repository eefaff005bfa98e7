// An example cooperation controller, written with podops' SDK: it keeps a (simulated) load balancer in sync
// with the pods behind every Service labelled kusionstack.io/control=true, and cooperates with
// PodOpsLifecycle the ResourceConsist way:
//   - it declares itself in each selected pod's expected-finalizers annotation, so the pod does not become
//     service-available (or finish a lifecycle) before this controller holds its finalizer again;
//   - while lifecycleReady(pod) it holds its protection finalizer and registers the pod, in that order (podops
//     may mark the pod service-available in the write that adds the finalizer: the finalizer is its word);
//   - when the pod leaves traffic (readiness gate False, not Ready, deleting) it deregisters the pod first and
//     drops the finalizer after, which is what lets PodOpsLifecycle move the pod from preparing to operate.
//   So whenever the load balancer routes to a pod, the pod carries the finalizer.
// Reconciles are keyed by Service and level-triggered.

import { CONTROL_LABEL, CONTROL_LABEL_VALUE, type Pod, type Service } from '../../src/api/index.ts';
import { Controller, Informer, isNotFound, keyOf, type KubeClient, type Logger, PODS, type Reconciler, type Request, type Result, SERVICES, silentLogger } from '../../src/kube/index.ts';
import { isDeleting } from '../../src/lifecycle/index.ts';
import { addFinalizer, expectedFinalizerKey, lifecycleReady, type PodChange, protectionFinalizer, removeExpectedFinalizers, removeFinalizer, setExpectedFinalizers, writePod } from '../../src/sdk/index.ts';
import { SimulatedLoadBalancer } from './load-balancer.ts';

const controlled = `${CONTROL_LABEL}=${CONTROL_LABEL_VALUE}`;

const selects = (service: Service, pod: Pod): boolean => {
  const selector = Object.entries(service.spec?.selector ?? {});
  return selector.length > 0 && selector.every(([k, v]) => pod.metadata.labels?.[k] === v);
};

/** Applies transforms in order, each to the result of the previous one. */
function chain(pod: Pod, ...steps: ((p: Pod) => PodChange)[]): PodChange {
  let current: PodChange = { pod, changed: false };
  for (const step of steps) {
    const next = step(current.pod);
    current = { pod: next.pod, changed: current.changed || next.changed };
  }
  return current;
}

export class LoadBalancerReconciler implements Reconciler {
  readonly #client: KubeClient;
  readonly #services: Informer<Service>;
  readonly #pods: Informer<Pod>;
  readonly #lb: SimulatedLoadBalancer;

  constructor(client: KubeClient, services: Informer<Service>, pods: Informer<Pod>, lb: SimulatedLoadBalancer) {
    this.#client = client;
    this.#services = services;
    this.#pods = pods;
    this.#lb = lb;
  }

  /** `signal` aborts when the controller stops: passed to every request, so a stop cancels those in flight. */
  async reconcile({ namespace, name }: Request, signal: AbortSignal): Promise<Result | void> {
    const serviceKey = keyOf(namespace, name);
    const service = this.#services.get(namespace, name);
    const finalizer = protectionFinalizer(name);
    const entry = expectedFinalizerKey('Service', namespace, name);
    const selected = service && !isDeleting(service) ? this.#pods.list(namespace).filter((p) => selects(service, p)) : [];
    // A Conflict is the harness's: the pod's newer version reaches the informer, whose event brings the Service back.
    for (const pod of selected) {
      if (lifecycleReady(pod)) {
        // The finalizer means "this controller may route traffic to the pod": it must be on the pod before the
        // first request is routed. A stale read fails the resourceVersion guard and registers nothing.
        await this.#write(signal, pod, chain(pod, (p) => setExpectedFinalizers(p, { [entry]: finalizer }), (p) => addFinalizer(p, finalizer)));
        this.#lb.register(serviceKey, pod.metadata.name ?? '');
      } else {
        this.#lb.deregister(serviceKey, pod.metadata.name ?? '');
        await this.#write(signal, pod, chain(pod, (p) => setExpectedFinalizers(p, { [entry]: finalizer }), (p) => removeFinalizer(p, finalizer)));
      }
    }
    // Pods no longer behind the Service (relabelled, or the Service is gone): out of the LB, out of the protocol.
    const selectedNames = new Set(selected.map((p) => p.metadata.name));
    for (const podName of this.#lb.backends(serviceKey).filter((n) => !selectedNames.has(n))) this.#lb.deregister(serviceKey, podName);
    for (const pod of this.#pods.list(namespace).filter((p) => !selectedNames.has(p.metadata.name))) {
      await this.#write(signal, pod, chain(pod, (p) => removeFinalizer(p, finalizer), (p) => removeExpectedFinalizers(p, [entry])));
    }
  }

  async #write(signal: AbortSignal, pod: Pod, change: PodChange): Promise<void> {
    if (!change.changed) return;
    try {
      await writePod(this.#client, pod, change.pod, signal);
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
  }
}

export interface LoadBalancerController {
  lb: SimulatedLoadBalancer;
  done: Promise<void>;
}

/** Runs the example cooperation controller until the signal aborts. */
export function startLoadBalancerController(client: KubeClient, signal: AbortSignal, options: { logger?: Logger; log?: (line: string) => void } = {}): LoadBalancerController {
  const logger = options.logger ?? silentLogger();
  const lb = new SimulatedLoadBalancer(options.log);
  const services = new Informer<Service>({ client, type: SERVICES, labelSelector: controlled, logger });
  const pods = new Informer<Pod>({ client, type: PODS, labelSelector: controlled, logger });
  const controller = new Controller({ name: 'example-load-balancer', workers: 5, logger, reconciler: new LoadBalancerReconciler(client, services, pods, lb) });
  const enqueueService = (service: Service): void => controller.enqueue(keyOf(service.metadata.namespace, service.metadata.name ?? ''));
  // A pod change concerns the Services that select it now, selected it before, or still route to it.
  const enqueueFor = (...versions: Pod[]): void => {
    const namespace = versions[0]?.metadata.namespace;
    for (const service of services.list(namespace)) if (versions.some((pod) => selects(service, pod))) enqueueService(service);
    for (const pod of versions) for (const key of lb.servicesOf(pod.metadata.name ?? '')) controller.enqueue(key);
  };
  services.addHandler({ onAdd: enqueueService, onUpdate: (_p, s) => enqueueService(s), onDelete: enqueueService });
  pods.addHandler({ onAdd: (p) => enqueueFor(p), onUpdate: (previous, current) => enqueueFor(previous, current), onDelete: (p) => enqueueFor(p) });
  const done = (async () => {
    const informers = [services.run(signal), pods.run(signal)];
    await Promise.all([services.waitForSync(signal), pods.waitForSync(signal)]);
    await controller.run(signal);
    await Promise.all(informers);
  })();
  return { lb, done };
}
