// The sandbox: an embedded Kubernetes-compatible API server (storage, watch, discovery, OpenAPI,
// tables, deletion and garbage collection, namespaces, CRDs) that kubectl and
// @kubernetes/client-node talk to as to a real cluster.

import { mkdir, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { dirname } from 'node:path';
import { AdmissionChain, type AdmissionPlugin, type UserInfo } from './apiserver/admission.ts';
import type { ServerContext } from './apiserver/context.ts';
import { KubeletConnections } from './apiserver/kubelet-connections.ts';
import { ListSnapshots } from './apiserver/list-snapshots.ts';
import { LocalClient } from './apiserver/local-client.ts';
import { WriteCounter } from './apiserver/metrics.ts';
import { namespaceLifecycle } from './apiserver/namespace-lifecycle.ts';
import { authenticatedGroups, sandboxAdmin } from './apiserver/users.ts';
import type { Controller, ControllerContext } from './controllers/in-process-controller.ts';
import { crdController, type CustomResourceServer } from './controllers/crd-controller.ts';
import { garbageCollector } from './controllers/garbage-collector.ts';
import { namespaceController } from './controllers/namespace-controller.ts';
import { DiscoveryDocuments } from './discovery/documents.ts';
import { StatusError } from './errors.ts';
import { createHttpFront } from './http/server.ts';
import { renderKubeconfig } from './kubeconfig.ts';
import type { KubeObject } from './meta/object.ts';
import { systemClock, type Clock } from './meta/time.ts';
import { OpenApiDocuments } from './openapi/documents.ts';
import { builtinResources } from './registry/builtins.ts';
import { customResourceServing } from './registry/custom-resources.ts';
import { Registry } from './registry/registry.ts';
import { Store } from './storage/store.ts';
import { recordWrites, type WriteLog } from './storage/write-log.ts';
import { generateServingCertificates } from './tls/certificates.ts';
import type { ApiServerFeatureGates } from './feature-gates.ts';
import { simulationControllers, type SimulationOptions } from './simulation.ts';
import { loadClientCertificates, loadClientCertificatesFile, type ClientCertificates } from './webhooks/client-credentials.ts';
import { webhookAdmission } from './webhooks/plugins.ts';
import type { WebhookServiceAddresses } from './webhooks/endpoint.ts';

export type { AdmissionAttributes, ApiServerAdmissionOperation, AdmissionPlugin, UserInfo } from './apiserver/admission.ts';
export type { LocalClient, LocalWatch, ObjectList, PatchKind, RequestOptions, ResourceRef } from './apiserver/local-client.ts';
export type { WatchEvent } from './apiserver/request.ts';
export type { Controller, ControllerContext } from './controllers/in-process-controller.ts';
export type { KubeObject, ObjectMeta, OwnerReference } from './meta/object.ts';
export type { WriteLog, WriteRecord } from './storage/write-log.ts';
export type { ApiServerFeatureGates } from './feature-gates.ts';
export type { SimulationOptions } from './simulation.ts';
export type { WebhookServiceAddresses } from './webhooks/endpoint.ts';
export { renderKubeconfig, type KubeconfigOptions } from './kubeconfig.ts';

export interface SandboxOptions {
  /** Port to listen on; 0 (default) picks a free one. */
  port?: number;
  /** Address to listen on; default 127.0.0.1. */
  host?: string;
  /** Serve HTTPS with a generated CA (included in the kubeconfig). */
  tls?: boolean;
  /** Also write the kubeconfig to this file (directories are created). */
  kubeconfigPath?: string;
  /** Watch events kept per resource for resumption; older resourceVersions get 410 Expired. Default 1000. */
  watchCacheSize?: number;
  /** Keep a log of every stored write (`Sandbox.history`), bounded to this many records (true: 100,000). */
  recordWrites?: boolean | number;
  /** Milliseconds between watch bookmarks for watchers that allow them. Default 60,000. */
  bookmarkIntervalMs?: number;
  /** The time source of timestamps and ages (tests may pin it). Default Date.now. */
  clock?: Clock;
  /** Admission plugins run after the built-in ones, in order. */
  admission?: AdmissionPlugin[];
  /** Extra in-process controllers started with the sandbox. */
  controllers?: Controller[];
  /** Simulate a cluster around the API server: workload controllers and nodes (scheduler + kubelet). */
  simulation?: SimulationOptions;
  /** Feature gates to turn on, e.g. `{ MaxUnavailableStatefulSet: true }`; the rest keep v1.32's defaults. */
  featureGates?: ApiServerFeatureGates;
  /**
   * Where admission webhooks configured with `clientConfig.service` are served: `namespace/name`
   * (or `namespace/name:port`) → `https://host:port`. Read on every call (docs/sandbox-webhooks.md).
   */
  webhookServices?: WebhookServiceAddresses;
  /**
   * kube-apiserver's --admission-control-config-file: an AdmissionConfiguration whose webhook plugins
   * name kubeconfigs with the client certificates presented to webhooks (docs/sandbox-webhooks.md).
   */
  admissionControlConfigFile?: string;
  /** The same AdmissionConfiguration as parsed content; relative `path`s are resolved from the working directory. */
  admissionControlConfig?: Record<string, unknown>;
}

export interface Sandbox {
  /** Base URL, e.g. `http://127.0.0.1:41235`. */
  readonly url: string;
  /** A kubeconfig (YAML) for kubectl and @kubernetes/client-node. */
  readonly kubeconfig: string;
  readonly kubeconfigPath: string | undefined;
  /** PEM of the CA in TLS mode. */
  readonly caCertificate: string | undefined;
  /** An in-process client; its requests run the full pipeline (admission, validation, metrics). */
  client(identity?: { username?: string; userAgent?: string }): LocalClient;
  /** Starts an in-process controller; returns a function that stops it. */
  runController(controller: Controller): () => void;
  /** Adds an admission plugin at the end of the chain; returns a function that removes it. */
  addAdmission(plugin: AdmissionPlugin): () => void;
  /** API write counts, as served at /metrics. */
  writeCount(resource: string, verb: string, options?: { group?: string; subresource?: string }): number;
  /** The write log, when `recordWrites` is on. */
  readonly history: WriteLog | undefined;
  /** The current global resourceVersion. */
  readonly resourceVersion: number;
  /** Forgets the snapshots behind continue tokens, as an etcd compaction would (old tokens then get 410). */
  compact(): void;
  stop(): Promise<void>;
}

const systemNamespaces = ['default', 'kube-system', 'kube-public', 'kube-node-lease'];

/** The webhook client certificates of the admission configuration, if one is given. */
function webhookClientCertificates(options: SandboxOptions): Promise<ClientCertificates> {
  if (options.admissionControlConfigFile !== undefined && options.admissionControlConfig !== undefined) {
    throw new Error('admissionControlConfigFile and admissionControlConfig are exclusive');
  }
  if (options.admissionControlConfigFile !== undefined) return loadClientCertificatesFile(options.admissionControlConfigFile);
  if (options.admissionControlConfig !== undefined) return loadClientCertificates(options.admissionControlConfig, process.cwd());
  return Promise.resolve(() => undefined);
}

export async function startSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  const host = options.host ?? '127.0.0.1';
  const clock = options.clock ?? systemClock;
  const stopController = new AbortController();
  const store = new Store({ historySize: options.watchCacheSize ?? 1000, clock });
  const registry = new Registry();
  const featureGates = options.featureGates ?? {};
  registry.add(builtinResources({ services: () => store.list('services').map((e) => e.object), featureGates }));
  for (const def of registry.all()) store.ensureResource(def.storageKey);
  const admission = new AdmissionChain();
  admission.add(namespaceLifecycle(store));
  const webhooks = webhookAdmission({
    store,
    registry,
    clock,
    serviceAddresses: () => options.webhookServices ?? {},
    clientCertificates: await webhookClientCertificates(options),
  });
  admission.add(webhooks.mutating);
  admission.add(webhooks.validating);
  for (const plugin of options.admission ?? []) admission.add(plugin);
  const writes = new WriteCounter();
  const ctx: ServerContext = {
    store,
    registry,
    admission,
    clock,
    writes,
    kubelets: new KubeletConnections(),
    snapshots: new ListSnapshots(64, 5 * 60_000, clock),
    bookmarkIntervalMs: options.bookmarkIntervalMs ?? 60_000,
    futureResourceVersionWaitMs: 3000,
    stopped: stopController.signal,
  };
  const history = options.recordWrites ? recordWrites(store, options.recordWrites === true ? 100_000 : options.recordWrites) : undefined;

  const certificates = options.tls ? await generateServingCertificates([host, 'localhost', '127.0.0.1']) : undefined;
  const client = (identity: { username?: string; userAgent?: string } = {}): LocalClient => {
    const user: UserInfo = identity.username ? { username: identity.username, groups: authenticatedGroups(identity.username) } : sandboxAdmin;
    return new LocalClient(ctx, { user, userAgent: identity.userAgent ?? 'podops-sandbox' });
  };
  const system = client();
  for (const name of systemNamespaces) {
    await system.create({ group: '', version: 'v1', resource: 'namespaces' }, { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  }

  const crdServer: CustomResourceServer = {
    serve(crd: KubeObject) {
      const serving = customResourceServing(crd);
      store.ensureResource(serving.storageKey);
      registry.replaceStorage(serving.storageKey, serving.definitions, serving.versionOrder);
    },
    unserve(storageKey: string) {
      registry.removeStorage(storageKey);
      store.dropResource(storageKey);
    },
    isServed: (storageKey: string) => store.hasResource(storageKey) && registry.all().some((d) => d.storageKey === storageKey),
  };
  const stops: (() => void)[] = [];
  const runController = (controller: Controller): (() => void) => {
    const controllerCtx: ControllerContext = {
      client: client({ username: `system:serviceaccount:kube-system:${controller.name}`, userAgent: `kube-controller-manager/v1.32.0 ${controller.name}` }),
      clientAs: client,
      subscribe: (listener) => store.subscribe(listener),
      store,
      registry,
      clock,
    };
    const stop = controller.start(controllerCtx);
    stops.push(stop);
    return stop;
  };
  runController(garbageCollector);
  runController(namespaceController({ caCertificate: certificates?.caCertificate ?? '' }));
  runController(crdController(crdServer));
  for (const controller of options.simulation ? simulationControllers(options.simulation, featureGates, ctx.kubelets) : []) runController(controller);
  for (const controller of options.controllers ?? []) runController(controller);

  const discovery = new DiscoveryDocuments(registry);
  const openapi = new OpenApiDocuments(registry);
  const front = createHttpFront(ctx, discovery, openapi, certificates ? { tls: { key: certificates.privateKey, cert: certificates.certificate } } : {});
  await new Promise<void>((resolve, reject) => {
    front.server.once('error', reject);
    front.server.listen(options.port ?? 0, host, () => resolve());
  });
  const { port } = front.server.address() as AddressInfo;
  const url = `${certificates ? 'https' : 'http'}://${host.includes(':') ? `[${host}]` : host}:${port}`;
  const kubeconfig = renderKubeconfig({ server: url, ...(certificates ? { caCertificate: certificates.caCertificate } : {}) });
  if (options.kubeconfigPath) {
    await mkdir(dirname(options.kubeconfigPath), { recursive: true });
    await writeFile(options.kubeconfigPath, kubeconfig, { mode: 0o600 });
  }

  let stopped = false;
  return {
    url,
    kubeconfig,
    kubeconfigPath: options.kubeconfigPath,
    caCertificate: certificates?.caCertificate,
    client,
    runController,
    addAdmission: (plugin) => admission.add(plugin),
    writeCount: (resource, verb, o = {}) => writes.get(o.group ?? '', resource, o.subresource, verb),
    history,
    get resourceVersion() {
      return store.currentRv;
    },
    compact: () => ctx.snapshots.compact(),
    async stop() {
      if (stopped) return;
      stopped = true;
      stopController.abort();
      for (const stop of stops) stop();
      webhooks.stop();
      history?.stop();
      await front.close();
    },
  };
}

export { StatusError };
