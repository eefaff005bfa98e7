// What kube-apiserver reaches on a node's kubelet (port 10250): here, the simulated kubelets of this
// process, registered by node name while they run. A node without one is a node nothing listens on.

import type { StreamSink } from './request.ts';

/** PodLogOptions as the apiserver passes them on to the kubelet. */
export interface ContainerLogOptions {
  follow: boolean;
  previous: boolean;
  timestamps: boolean;
  tailLines: number | undefined;
  limitBytes: number | undefined;
  /** Wall-clock milliseconds: lines written before are left out (sinceSeconds or sinceTime). */
  sinceMs: number | undefined;
}

export interface ContainerLogStream {
  /** Starts writing into the sink; returns a function that stops (the client went away). */
  start(sink: StreamSink): () => void;
}

/** The kubelet's HTTP error answer: its status code and its plain-text body. */
export class KubeletError extends Error {
  readonly code: 400 | 404;
  constructor(code: 400 | 404, message: string) {
    super(message);
    this.name = 'KubeletError';
    this.code = code;
  }
}

export interface KubeletConnection {
  /** GET /containerLogs/NAMESPACE/POD/CONTAINER; throws a KubeletError for what the kubelet refuses. */
  containerLogs(namespace: string, pod: string, container: string, options: ContainerLogOptions): ContainerLogStream;
}

export class KubeletConnections {
  readonly #byNode = new Map<string, KubeletConnection>();

  /** Registers a node's kubelet; returns a function that takes it away (the kubelet stopped). */
  register(nodeName: string, connection: KubeletConnection): () => void {
    this.#byNode.set(nodeName, connection);
    return () => {
      if (this.#byNode.get(nodeName) === connection) this.#byNode.delete(nodeName);
    };
  }

  get(nodeName: string): KubeletConnection | undefined {
    return this.#byNode.get(nodeName);
  }
}
