// Helpers of the workload-controller tests: a raw watch stream, a stand-in kubelet that reports pods
// Running and Ready through pods/status (and finishes terminating ones), the state of a Deployment's
// ReplicaSets, and a validating admission webhook served over HTTPS by the test.

import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { generateServingCertificates } from '../src/tls/certificates.ts';
import type { Harness } from './harness.ts';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Json = any;

export interface WatchStream {
  /**
   * Resolves once the server answered: it subscribes the watch before it sends the headers, so every
   * change made after this reaches the stream. Rejects if the request fails.
   */
  connected: Promise<void>;
  stop(): void;
}

/** Streams `{type, object}` lines of a watch URL (`?watch=1` added) until stopped. */
export function watchStream(h: Harness, path: string, onEvent: (type: string, object: Json) => void): WatchStream {
  const abort = new AbortController();
  const separator = path.includes('?') ? '&' : '?';
  const response = fetch(`${h.sandbox.url}${path}${separator}watch=1`, { signal: abort.signal });
  void (async () => {
    try {
      const res = await response;
      const decoder = new TextDecoder();
      let buffered = '';
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        buffered += decoder.decode(chunk, { stream: true });
        let newline: number;
        while ((newline = buffered.indexOf('\n')) >= 0) {
          const line = buffered.slice(0, newline);
          buffered = buffered.slice(newline + 1);
          if (line.trim()) {
            const event = JSON.parse(line);
            onEvent(event.type, event.object);
          }
        }
      }
    } catch {
      // stopped
    }
  })();
  return { connected: response.then(() => undefined), stop: () => abort.abort() };
}

const now = (): string => new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');

/** The pod status a kubelet reports for a running, ready (or not ready) pod. */
export function runningStatus(ready: boolean, readySince = now()): Json {
  const condition = (type: string, status: string): Json => ({ type, status, lastProbeTime: null, lastTransitionTime: readySince });
  return {
    phase: 'Running',
    conditions: [condition('Initialized', 'True'), condition('Ready', ready ? 'True' : 'False'), condition('ContainersReady', ready ? 'True' : 'False'), condition('PodScheduled', 'True')],
    startTime: readySince,
  };
}

/**
 * A stand-in for the kubelet of a namespace: every new pod is reported Running and Ready through
 * pods/status (optionally bound to `node` first); a bound pod being deleted is removed with grace 0
 * (unless `holdTerminating` says to keep it terminating).
 */
export function fakeKubelet(h: Harness, namespace: string, options: { node?: string; holdTerminating?: () => boolean } = {}): WatchStream {
  const seen = new Set<string>();
  return watchStream(h, `/api/v1/namespaces/${namespace}/pods`, (type, pod) => {
    const name = pod.metadata.name;
    const path = `/api/v1/namespaces/${namespace}/pods/${name}`;
    if (type === 'DELETED') return;
    if (pod.metadata.deletionTimestamp) {
      if (pod.spec.nodeName && !options.holdTerminating?.()) void h.http('DELETE', path, { kind: 'DeleteOptions', apiVersion: 'v1', gracePeriodSeconds: 0 });
      return;
    }
    if (seen.has(pod.metadata.uid)) return;
    seen.add(pod.metadata.uid);
    void (async () => {
      if (options.node && !pod.spec.nodeName) {
        await h.http('POST', `${path}/binding`, { apiVersion: 'v1', kind: 'Binding', metadata: { name }, target: { apiVersion: 'v1', kind: 'Node', name: options.node } });
      }
      await h.http('PATCH', `${path}/status`, { status: runningStatus(true) }, { 'Content-Type': 'application/merge-patch+json' });
    })();
  });
}

export interface ReplicaSetState {
  name: string;
  revision: string | undefined;
  replicas: number;
  status: Json;
}

/** The ReplicaSets of a namespace, oldest revision first. */
export async function replicaSets(h: Harness, namespace: string): Promise<ReplicaSetState[]> {
  const list = await h.http('GET', `/apis/apps/v1/namespaces/${namespace}/replicasets`);
  return list.json.items
    .map((rs: Json) => ({ name: rs.metadata.name, revision: rs.metadata.annotations?.['deployment.kubernetes.io/revision'], replicas: rs.spec.replicas, status: rs.status ?? {} }))
    .sort((a: ReplicaSetState, b: ReplicaSetState) => Number(a.revision ?? 0) - Number(b.revision ?? 0));
}

export async function getJson(h: Harness, path: string): Promise<Json> {
  const res = await h.http('GET', path);
  if (res.status !== 200) throw new Error(`GET ${path}: ${res.status} ${res.text}`);
  return res.json;
}

export interface TestWebhook {
  /** The PEM bundle to put in `clientConfig.caBundle` (base64 it). */
  caBundle: string;
  url: string;
  /** Requests seen, as AdmissionReview requests. */
  requests: Json[];
  /** Decides each request; answer a message to deny. */
  deny: (request: Json) => string | undefined;
  close(): Promise<void>;
}

/** An HTTPS admission webhook server on 127.0.0.1 answering AdmissionReview v1. */
export async function startTestWebhook(): Promise<TestWebhook> {
  const certificates = await generateServingCertificates(['127.0.0.1']);
  const hook: TestWebhook = {
    caBundle: Buffer.from(certificates.caCertificate).toString('base64'),
    url: '',
    requests: [],
    deny: () => undefined,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
  const server: Server = createServer({ key: certificates.privateKey, cert: certificates.certificate }, (req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      const review = JSON.parse(body);
      hook.requests.push(review.request);
      const message = hook.deny(review.request);
      const response: Json = { uid: review.request.uid, allowed: message === undefined };
      if (message !== undefined) response.status = { code: 403, message };
      res.setHeader('Content-Type', 'application/json');
      res.end(JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  hook.url = `https://127.0.0.1:${(server.address() as AddressInfo).port}/validate`;
  return hook;
}
