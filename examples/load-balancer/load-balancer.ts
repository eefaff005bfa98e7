// A simulated load balancer: backends registered per Service, with a history of every change so tests can
// check that no pod was ever removed while it still received traffic.

export interface BackendChange {
  at: number;
  service: string;
  pod: string;
  change: 'register' | 'deregister';
}

export class SimulatedLoadBalancer {
  readonly history: BackendChange[] = [];
  readonly #backends = new Map<string, Set<string>>();
  readonly #log: (line: string) => void;

  constructor(log: (line: string) => void = () => {}) {
    this.#log = log;
  }

  backends(service: string): string[] {
    return [...(this.#backends.get(service) ?? [])].sort();
  }

  isRegistered(service: string, pod: string): boolean {
    return this.#backends.get(service)?.has(pod) ?? false;
  }

  /** Services that send traffic to the pod. */
  servicesOf(pod: string): string[] {
    return [...this.#backends].filter(([, pods]) => pods.has(pod)).map(([service]) => service);
  }

  register(service: string, pod: string): void {
    let pods = this.#backends.get(service);
    if (!pods) this.#backends.set(service, (pods = new Set()));
    if (pods.has(pod)) return;
    pods.add(pod);
    this.history.push({ at: Date.now(), service, pod, change: 'register' });
    this.#log(`traffic on:  ${pod} behind ${service}`);
  }

  deregister(service: string, pod: string): void {
    if (!this.#backends.get(service)?.delete(pod)) return;
    this.history.push({ at: Date.now(), service, pod, change: 'deregister' });
    this.#log(`traffic off: ${pod} behind ${service}`);
  }
}
