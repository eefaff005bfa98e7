// kubectl's column sets for core/v1 kinds (and events.k8s.io Events, which share the printer),
// with the cell logic of the real server's printers.

import { isJsonObject, readPath, type JsonObject, type KubeObject } from '../meta/object.ts';
import { parseTimestamp } from '../meta/time.ts';
import type { TablePrinter } from '../registry/types.ts';
import { ageColumn, ageOf, column, int, labelMapString, nameColumn, none, objects, orNone, since, str } from './columns.ts';

const metaName = (o: KubeObject): string => o.metadata.name ?? '';

const isRestartableInit = (c: JsonObject | undefined): boolean => c?.restartPolicy === 'Always';

function podCells(pod: KubeObject, now: number): unknown[] {
  const spec = isJsonObject(pod.spec) ? pod.spec : {};
  const status = isJsonObject(pod.status) ? pod.status : {};
  const initSpecs = new Map(objects(spec.initContainers).map((c) => [str(c.name), c]));
  let totalContainers = objects(spec.containers).length;
  for (const c of initSpecs.values()) if (isRestartableInit(c)) totalContainers++;
  let readyContainers = 0;
  let restarts = 0;
  let restartableRestarts = 0;
  let lastRestart = 0;
  let lastRestartableRestart = 0;
  const phase = str(status.phase);
  let reason = str(status.reason) || phase;
  const conditions = objects(status.conditions);
  if (conditions.some((c) => c.type === 'PodScheduled' && c.reason === 'SchedulingGated')) reason = 'SchedulingGated';
  const finishedAt = (cs: JsonObject): number => parseTimestamp(readPath(cs, ['lastState', 'terminated', 'finishedAt'])) ?? 0;

  let initializing = false;
  const initStatuses = objects(status.initContainerStatuses);
  for (let i = 0; i < initStatuses.length; i++) {
    const cs = initStatuses[i] as JsonObject;
    restarts += int(cs.restartCount);
    lastRestart = Math.max(lastRestart, finishedAt(cs));
    const restartable = isRestartableInit(initSpecs.get(str(cs.name)));
    if (restartable) {
      restartableRestarts += int(cs.restartCount);
      lastRestartableRestart = Math.max(lastRestartableRestart, finishedAt(cs));
    }
    const terminated = readPath(cs, ['state', 'terminated']);
    const waiting = readPath(cs, ['state', 'waiting']);
    if (isJsonObject(terminated) && int(terminated.exitCode) === 0) continue;
    if (restartable && cs.started === true) {
      if (cs.ready === true) readyContainers++;
      continue;
    }
    if (isJsonObject(terminated)) {
      reason = str(terminated.reason)
        ? `Init:${str(terminated.reason)}`
        : int(terminated.signal)
          ? `Init:Signal:${int(terminated.signal)}`
          : `Init:ExitCode:${int(terminated.exitCode)}`;
    } else if (isJsonObject(waiting) && str(waiting.reason) && waiting.reason !== 'PodInitializing') {
      reason = `Init:${str(waiting.reason)}`;
    } else {
      reason = `Init:${i}/${initSpecs.size}`;
    }
    initializing = true;
    break;
  }

  const initializedTrue = conditions.some((c) => c.type === 'Initialized' && c.status === 'True');
  if (!initializing || initializedTrue) {
    restarts = restartableRestarts;
    lastRestart = lastRestartableRestart;
    let hasRunning = false;
    const statuses = objects(status.containerStatuses);
    for (let i = statuses.length - 1; i >= 0; i--) {
      const cs = statuses[i] as JsonObject;
      restarts += int(cs.restartCount);
      lastRestart = Math.max(lastRestart, finishedAt(cs));
      const waiting = readPath(cs, ['state', 'waiting']);
      const terminated = readPath(cs, ['state', 'terminated']);
      if (isJsonObject(waiting) && str(waiting.reason)) reason = str(waiting.reason);
      else if (isJsonObject(terminated) && str(terminated.reason)) reason = str(terminated.reason);
      else if (isJsonObject(terminated)) {
        reason = int(terminated.signal) ? `Signal:${int(terminated.signal)}` : `ExitCode:${int(terminated.exitCode)}`;
      } else if (cs.ready === true && isJsonObject(readPath(cs, ['state', 'running']))) {
        hasRunning = true;
        readyContainers++;
      }
    }
    if (reason === 'Completed' && hasRunning) {
      reason = conditions.some((c) => c.type === 'Ready' && c.status === 'True') ? 'Running' : 'NotReady';
    }
  }
  if (pod.metadata.deletionTimestamp && status.reason === 'NodeLost') reason = 'Unknown';
  else if (pod.metadata.deletionTimestamp && phase !== 'Succeeded' && phase !== 'Failed') reason = 'Terminating';

  const restartText = restarts !== 0 && lastRestart ? `${restarts} (${since(new Date(lastRestart).toISOString(), now)} ago)` : String(restarts);
  const podIPs = objects(status.podIPs);
  const podIP = str(podIPs[0]?.ip) || str(status.podIP);
  const gates = objects(spec.readinessGates);
  let readinessGates = none;
  if (gates.length) {
    let trueCount = 0;
    for (const gate of gates) {
      const condition = conditions.find((c) => c.type === gate.conditionType);
      if (condition?.status === 'True') trueCount++;
    }
    readinessGates = `${trueCount}/${gates.length}`;
  }
  return [
    metaName(pod),
    `${readyContainers}/${totalContainers}`,
    reason,
    restartText,
    ageOf(pod, now),
    orNone(podIP),
    orNone(str(spec.nodeName)),
    orNone(str(status.nominatedNodeName)),
    readinessGates,
  ];
}

export const podPrinter: TablePrinter = {
  columns: [
    nameColumn,
    column('Ready', 'string', 'The aggregate readiness state of this pod for accepting traffic.'),
    column('Status', 'string', 'The aggregate status of the containers in this pod.'),
    column('Restarts', 'string', 'The number of times the containers in this pod have been restarted and when the last container in this pod has restarted.'),
    ageColumn,
    column('IP', 'string', 'The IP address allocated to the pod.', 1),
    column('Node', 'string', 'The node the pod is scheduled on.', 1),
    column('Nominated Node', 'string', 'The node the scheduler nominated for this pod while preempting others.', 1),
    column('Readiness Gates', 'string', 'How many of the pod\'s readiness gates are True, of all its readiness gates.', 1),
  ],
  cells: podCells,
};

export const namespacePrinter: TablePrinter = {
  columns: [nameColumn, column('Status', 'string', 'The status of the namespace.'), ageColumn],
  cells: (o, now) => [metaName(o), str(readPath(o, ['status', 'phase'])), ageOf(o, now)],
};

function nodeStatus(node: KubeObject): string {
  const conditions = objects(readPath(node, ['status', 'conditions']));
  const ready = conditions.find((c) => c.type === 'Ready');
  const parts = [ready?.status === 'True' ? 'Ready' : ready?.status === 'False' ? 'NotReady' : 'Unknown'];
  if (readPath(node, ['spec', 'unschedulable']) === true) parts.push('SchedulingDisabled');
  return parts.join(',');
}

function nodeRoles(node: KubeObject): string {
  const roles = new Set<string>();
  for (const [key, value] of Object.entries(node.metadata.labels ?? {})) {
    if (key.startsWith('node-role.kubernetes.io/')) roles.add(key.slice('node-role.kubernetes.io/'.length));
    else if (key === 'kubernetes.io/role' && value) roles.add(value);
  }
  return roles.size ? [...roles].sort().join(',') : none;
}

function nodeAddress(node: KubeObject, type: string): string {
  const found = objects(readPath(node, ['status', 'addresses'])).find((a) => a.type === type);
  return orNone(str(found?.address));
}

const unknownIfEmpty = (v: string): string => v || '<unknown>';

export const nodePrinter: TablePrinter = {
  columns: [
    nameColumn,
    column('Status', 'string', 'The status of the node.'),
    column('Roles', 'string', 'The roles of the node.'),
    ageColumn,
    column('Version', 'string', 'Kubelet version reported by the node.'),
    column('Internal-IP', 'string', 'The node\'s internal IP address.', 1),
    column('External-IP', 'string', 'The node\'s external IP address.', 1),
    column('OS-Image', 'string', 'OS image reported by the node.', 1),
    column('Kernel-Version', 'string', 'Kernel version reported by the node.', 1),
    column('Container-Runtime', 'string', 'Container runtime version reported by the node.', 1),
  ],
  cells: (o, now) => {
    const info = readPath(o, ['status', 'nodeInfo']);
    const field = (name: string): string => (isJsonObject(info) ? str(info[name]) : '');
    return [
      metaName(o),
      nodeStatus(o),
      nodeRoles(o),
      ageOf(o, now),
      field('kubeletVersion'),
      nodeAddress(o, 'InternalIP'),
      nodeAddress(o, 'ExternalIP'),
      unknownIfEmpty(field('osImage')),
      unknownIfEmpty(field('kernelVersion')),
      unknownIfEmpty(field('containerRuntimeVersion')),
    ];
  },
};

function serviceExternalIP(service: KubeObject): string {
  const spec = isJsonObject(service.spec) ? service.spec : {};
  const externalIPs = Array.isArray(spec.externalIPs) ? spec.externalIPs.map(String) : [];
  switch (spec.type) {
    case 'LoadBalancer': {
      const ingress = objects(readPath(service, ['status', 'loadBalancer', 'ingress'])).map((i) => str(i.ip) || str(i.hostname));
      const all = [...ingress, ...externalIPs].filter(Boolean);
      return all.length ? all.join(',') : '<pending>';
    }
    case 'ExternalName':
      return str(spec.externalName);
    default:
      return externalIPs.length ? externalIPs.join(',') : none;
  }
}

function servicePorts(service: KubeObject): string {
  const ports = objects(readPath(service, ['spec', 'ports'])).map((p) => {
    const proto = str(p.protocol) || 'TCP';
    return p.nodePort ? `${int(p.port)}:${int(p.nodePort)}/${proto}` : `${int(p.port)}/${proto}`;
  });
  return ports.length ? ports.join(',') : none;
}

export const servicePrinter: TablePrinter = {
  columns: [
    nameColumn,
    column('Type', 'string', 'The type of the service.'),
    column('Cluster-IP', 'string', 'The cluster IP of the service.'),
    column('External-IP', 'string', 'The external IP addresses of the service.'),
    column('Port(s)', 'string', 'The ports the service exposes.'),
    ageColumn,
    column('Selector', 'string', 'The labels of the pods this service routes traffic to.', 1),
  ],
  cells: (o, now) => [
    metaName(o),
    str(readPath(o, ['spec', 'type'])),
    orNone(str(readPath(o, ['spec', 'clusterIP']))),
    serviceExternalIP(o),
    servicePorts(o),
    ageOf(o, now),
    orNone(labelMapString(readPath(o, ['spec', 'selector']))),
  ],
};

function endpointsText(o: KubeObject): string {
  const all: string[] = [];
  for (const subset of objects(o.subsets)) {
    const ports = objects(subset.ports);
    for (const address of objects(subset.addresses)) {
      if (!ports.length) all.push(str(address.ip));
      for (const port of ports) all.push(`${str(address.ip)}:${int(port.port)}`);
    }
  }
  if (!all.length) return none;
  return all.length > 3 ? `${all.slice(0, 3).join(',')} + ${all.length - 3} more...` : all.join(',');
}

export const endpointsPrinter: TablePrinter = {
  columns: [nameColumn, column('Endpoints', 'string', 'The addresses and ports of the endpoints.'), ageColumn],
  cells: (o, now) => [metaName(o), endpointsText(o), ageOf(o, now)],
};

const countKeys = (value: unknown): number => (isJsonObject(value) ? Object.keys(value).length : 0);

export const configMapPrinter: TablePrinter = {
  columns: [nameColumn, column('Data', 'string', 'The number of keys in data and binaryData.'), ageColumn],
  cells: (o, now) => [metaName(o), countKeys(o.data) + countKeys(o.binaryData), ageOf(o, now)],
};

export const secretPrinter: TablePrinter = {
  columns: [
    nameColumn,
    column('Type', 'string', 'The type of the secret.'),
    column('Data', 'string', 'The number of keys in the secret.'),
    ageColumn,
  ],
  cells: (o, now) => [metaName(o), str(o.type), countKeys(o.data), ageOf(o, now)],
};

export const serviceAccountPrinter: TablePrinter = {
  columns: [nameColumn, column('Secrets', 'string', 'The number of secrets of the service account.'), ageColumn],
  cells: (o, now) => [metaName(o), objects(o.secrets).length, ageOf(o, now)],
};

function eventSource(o: KubeObject): string {
  const source = isJsonObject(o.source) ? o.source : {};
  const component = str(source.component) || str(o.reportingComponent) || str(o.reportingController);
  const host = str(source.host) || str(o.reportingInstance);
  return host ? `${component}, ${host}` : component;
}

/** Core Event printer; events.k8s.io views are converted to the core shape first. */
export const eventPrinter: TablePrinter = {
  columns: [
    column('Last Seen', 'string', 'The time since the event was last observed.'),
    column('Type', 'string', 'The type of the event (Normal, Warning).'),
    column('Reason', 'string', 'Why the event happened, in one word.'),
    column('Object', 'string', 'The object the event is about.'),
    column('Subobject', 'string', 'The part of the object the event is about.', 1),
    column('Source', 'string', 'The component that reported the event.', 1),
    column('Message', 'string', 'A human-readable description of the event.'),
    column('First Seen', 'string', 'The time since the event was first observed.', 1),
    column('Count', 'string', 'How many times the event happened.', 1),
    column('Name', 'string', 'The name of the event object.', 1, 'name'),
  ],
  cells: (o, now) => {
    const involved = isJsonObject(o.involvedObject) ? o.involvedObject : {};
    const first = o.firstTimestamp ? since(o.firstTimestamp, now) : since(o.eventTime, now);
    let last = o.lastTimestamp ? since(o.lastTimestamp, now) : first;
    let count = int(o.count);
    if (isJsonObject(o.series)) {
      last = since(o.series.lastObservedTime, now);
      count = int(o.series.count);
    } else if (count === 0) {
      count = 1;
    }
    const kind = str(involved.kind).toLowerCase();
    const target = str(involved.name) ? `${kind}/${str(involved.name)}` : kind;
    return [last, str(o.type), str(o.reason), target, str(involved.fieldPath), eventSource(o), str(o.message).trim(), first, count, metaName(o)];
  },
};
