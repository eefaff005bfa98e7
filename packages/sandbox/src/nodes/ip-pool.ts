// Pod IPs of one node, handed out as the host-local IPAM plugin does: from `.2` upwards, continuing
// after the last one given (so a freed address is not reused at once), skipping those in use.

export class IPPool {
  readonly #network: string;
  readonly #inUse = new Set<number>();
  #last = 1;

  /** `network` is the first three octets of a /24, e.g. `10.244.1`. */
  constructor(network: string) {
    this.#network = network;
  }

  allocate(): string | undefined {
    for (let step = 1; step <= 253; step++) {
      const host = ((this.#last - 2 + step) % 253) + 2;
      if (this.#inUse.has(host)) continue;
      this.#inUse.add(host);
      this.#last = host;
      return `${this.#network}.${host}`;
    }
    return undefined;
  }

  /** Frees an address; one outside the node's range (a hostNetwork pod's) is not the pool's. */
  release(ip: string): void {
    if (!ip.startsWith(`${this.#network}.`)) return;
    this.#inUse.delete(Number(ip.slice(this.#network.length + 1)));
  }
}
