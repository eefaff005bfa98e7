// The sandbox: an embedded Kubernetes-compatible API server (storage, watch, discovery, OpenAPI,
// tables, deletion and garbage collection, namespaces, CRDs) that kubectl and
// @kubernetes/client-node talk to as to a real cluster.

import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { AdmissionChain, type AdmissionPlugin, type UserInfo } from './apiserver/admission.ts';
import type { ServerContext } from './apiserver/context.ts';
import { KubeletConnections } from './apiserver/kubelet-connections.ts';
import { ListSnapshots } from './apiserver/list-snapshots.ts';
import { LocalClient } from './apiserver/local-client.ts';
import { RequestCounter, type RequestLabels } from './apiserver/metrics.ts';
import { namespaceLifecycle } from './apiserver/namespace-lifecycle.ts';
import { authenticatedGroups, sandboxAdmin } from './apiserver/users.ts';
import type { Controller, ControllerContext } from './controllers/in-process-controller.ts';
import { crdController, type CustomResourceServer } from './controllers/crd-controller.ts';
import { garbageCollector } from './controllers/garbage-collector.ts';
import { namespaceController } from './controllers/namespace-controller.ts';
import { DiscoveryDocuments } from './discovery/documents.ts';
import { StatusError } from './errors.ts';
import { createHttpFront } from './http/server.ts';
import { kubeConfigLoadOptions, renderKubeconfig, type KubeConfigLoadOptions, type KubeconfigOptions } from './kubeconfig.ts';
import type { KubeObject } from './meta/object.ts';
import { systemClock, type Clock } from './meta/time.ts';
import { OpenApiDocuments } from './openapi/documents.ts';
import { builtinResources } from './registry/builtins.ts';
import { customResourceServing } from './registry/custom-resources.ts';
import { Registry } from './registry/registry.ts';
import { Store } from './storage/store.ts';
import { recordWrites, type WriteLog } from './storage/write-log.ts';
import { registerCrd } from './testing/crd.ts';
import { conditionStatus, waitForState, WaitTimeoutError, type ObjectReference, type Waiting, type WaitOptions } from './testing/wait.ts';
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
export type { WriteFilter, WriteLog, WriteRecord } from './storage/write-log.ts';
export type { ApiServerFeatureGates } from './feature-gates.ts';
export type { SimulationOptions } from './simulation.ts';
export type { WebhookServiceAddresses } from './webhooks/endpoint.ts';
export type { RequestLabels } from './apiserver/metrics.ts';
export { renderKubeconfig, type KubeConfigLoadOptions, type KubeconfigOptions } from './kubeconfig.ts';
export type { ObjectReference, WaitOptions } from './testing/wait.ts';
export { controlPlaneUnavailable, startControlPlane, type ControlPlane, type ControlPlaneOptions } from './control-plane/control-plane.ts';
export { startSimulatedNodes, type SimulatedNodes, type SimulatedNodesOptions } from './remote/remote-nodes.ts';
export type { KubeletOptions } from './nodes/index.ts';

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

export interface Sandbox extends AsyncDisposable {
  /** Base URL, e.g. `http://127.0.0.1:41235`. */
  readonly url: string;
  /** A kubeconfig (YAML) for kubectl and @kubernetes/client-node, as the admin. */
  readonly kubeconfig: string;
  /** The kubeconfig as a file: `kubeconfigPath` of the options, else a file in a temporary directory removed by `stop()`. */
  readonly kubeconfigPath: string;
  /** The kubeconfig as @kubernetes/client-node's `new KubeConfig().loadFromOptions(…)` takes it, as the admin. */
  readonly kubeConfigOptions: KubeConfigLoadOptions;
  /**
   * The same, acting as `username` (clients send `Impersonate-User`): the user of the requests of a client
   * loaded with it, in webhooks' userInfo and in the write log, e.g. `system:serviceaccount:default:my-controller`.
   */
  kubeConfigOptionsAs(username: string): KubeConfigLoadOptions;
  /** PEM of the CA in TLS mode. */
  readonly caCertificate: string | undefined;
  /** An in-process client; its requests run the full pipeline (admission, validation, metrics). */
  client(identity?: { username?: string; userAgent?: string }): LocalClient;
  /** Starts an in-process controller; returns a function that stops it. */
  runController(controller: Controller): () => void;
  /** Adds an admission plugin at the end of the chain; returns a function that removes it. */
  addAdmission(plugin: AdmissionPlugin): () => void;
  /**
   * Creates a CustomResourceDefinition and resolves with it once it is Established and its resources are
   * served (in discovery), so the next request for them works; rejects at once if its names conflict.
   */
  registerCrd(crd: object, options?: WaitOptions): Promise<KubeObject>;
  /**
   * Resolves with the object once `predicate` holds for it: checked on its current state, then on every
   * change (a watch, no polling). `T` is the shape you read: objects are JSON as served (timestamps are strings).
   */
  waitFor<T = KubeObject>(object: ObjectReference, predicate: (object: T) => boolean, options?: WaitOptions): Promise<T>;
  /** Resolves with the object once its condition `type` has `status` (default `True`) in `status.conditions`. */
  waitForCondition(object: ObjectReference, type: string, options?: WaitOptions & { status?: string }): Promise<KubeObject>;
  /** Resolves once the object does not exist (at once if it never did). */
  waitForDeletion(object: ObjectReference, options?: WaitOptions): Promise<void>;
  /**
   * How many requests the API server answered, as `apiserver_request_total` counts them at /metrics: the sum of
   * the series whose labels include `filter`, e.g. `{ verb: 'POST', resource: 'configmaps' }` (every request when
   * empty).
   */
  requestCount(filter?: Partial<RequestLabels>): number;
  /** The write log, when `recordWrites` is on: every stored write, who made it (user, agent, field manager, verb). */
  readonly history: WriteLog | undefined;
  /** The current global resourceVersion. */
  readonly resourceVersion: number;
  /** Forgets the snapshots behind continue tokens, as an etcd compaction would (old tokens then get 410). */
  compact(): void;
  /** Stops the server, its controllers and watches, and removes the temporary kubeconfig; again, it is the same stop. */
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
  // The stop signal ends waits and watches first; then what the start set going is undone in reverse, by
  // stop() or by a start that fails half way (a port in use), so nothing is left running either way.
  const stopController = new AbortController();
  const cleanups: (() => void | Promise<void>)[] = [];
  const cleanUp = async (): Promise<void> => {
    stopController.abort();
    for (const cleanup of cleanups.toReversed()) await cleanup();
  };
  try {
    return await start(options, stopController.signal, cleanups, cleanUp);
  } catch (err) {
    await cleanUp();
    throw err;
  }
}

async function start(options: SandboxOptions, stopped: AbortSignal, cleanups: (() => void | Promise<void>)[], cleanUp: () => Promise<void>): Promise<Sandbox> {
  const host = options.host ?? '127.0.0.1';
  const clock = options.clock ?? systemClock;
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
  cleanups.push(() => webhooks.stop());
  admission.add(webhooks.mutating);
  admission.add(webhooks.validating);
  for (const plugin of options.admission ?? []) admission.add(plugin);
  const requests = new RequestCounter();
  const ctx: ServerContext = {
    store,
    registry,
    admission,
    clock,
    requests,
    kubelets: new KubeletConnections(),
    snapshots: new ListSnapshots(64, 5 * 60_000, clock),
    bookmarkIntervalMs: options.bookmarkIntervalMs ?? 60_000,
    futureResourceVersionWaitMs: 3000,
    stopped,
  };
  const history = options.recordWrites ? recordWrites(store, options.recordWrites === true ? 100_000 : options.recordWrites) : undefined;
  if (history) cleanups.push(() => history.stop());

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
    cleanups.push(stop);
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
  cleanups.push(() => front.close());
  const { port } = front.server.address() as AddressInfo;
  const url = `${certificates ? 'https' : 'http'}://${host.includes(':') ? `[${host}]` : host}:${port}`;
  const kubeconfigOf = (as?: string): KubeconfigOptions => ({ server: url, ...(certificates ? { caCertificate: certificates.caCertificate } : {}), ...(as === undefined ? {} : { as }) });
  const kubeconfig = renderKubeconfig(kubeconfigOf());
  const kubeconfigPath = options.kubeconfigPath ?? join(await temporaryDirectory(cleanups), 'kubeconfig');
  await writeKubeconfig(kubeconfigPath, kubeconfig);

  const waiting: Waiting = { client: system, registry, stopped };
  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> => (stopping ??= cleanUp());
  return {
    url,
    kubeconfig,
    kubeconfigPath,
    kubeConfigOptions: kubeConfigLoadOptions(kubeconfigOf()),
    kubeConfigOptionsAs: (username) => {
      if (typeof username !== 'string' || !username) throw new Error(`kubeConfigOptionsAs needs the username to act as, not ${JSON.stringify(username)}`);
      return kubeConfigLoadOptions(kubeconfigOf(username));
    },
    caCertificate: certificates?.caCertificate,
    client,
    runController,
    addAdmission: (plugin) => admission.add(plugin),
    registerCrd: (crd, o) => registerCrd(waiting, crd, o),
    waitFor: async <T>(object: ObjectReference, predicate: (object: T) => boolean, o?: WaitOptions) =>
      (await waitForState(waiting, object, (state) => state !== undefined && predicate(state as T), 'to meet the condition', o)) as T,
    waitForCondition: async (object, type, { status = 'True', ...o } = {}) =>
      (await waitForState(waiting, object, (state) => state !== undefined && conditionStatus(state, type) === status, `to have condition ${type}=${status}`, o)) as KubeObject,
    waitForDeletion: async (object, o) => {
      await waitForState(waiting, object, (state) => state === undefined, 'to be deleted', o);
    },
    requestCount: (filter) => requests.count(filter),
    history,
    get resourceVersion() {
      return store.currentRv;
    },
    compact: () => ctx.snapshots.compact(),
    stop,
    [Symbol.asyncDispose]: stop,
  };
}

async function writeKubeconfig(path: string, kubeconfig: string): Promise<void> {
  try {
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, kubeconfig, { mode: 0o600 });
  } catch (err) {
    throw new Error(`cannot write the kubeconfig to ${path}: ${(err as Error).message}`, { cause: err });
  }
}

/** A directory of our own under the system's temporary directory, removed by the cleanups. */
async function temporaryDirectory(cleanups: (() => void | Promise<void>)[]): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'podops-sandbox-'));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

export { StatusError, WaitTimeoutError };
