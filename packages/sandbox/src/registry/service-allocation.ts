// What the service registry allocates for a new Service: a free cluster IP from the service CIDR
// (10.96.0.0/12, single-stack IPv4) and free node ports (30000-32767). Addresses in use are read
// from the stored services; the defaults module decides when to allocate.

import { randomInt } from 'node:crypto';
import { isJsonObject, type KubeObject } from '../meta/object.ts';

export type StoredServices = () => readonly KubeObject[];

export interface ServiceAllocators {
  allocateClusterIP(): string;
  allocateNodePort(): number;
}

const cidrBase = (10 << 24) | (96 << 16);
const cidrSize = 1 << 20;
const nodePortMin = 30000;
const nodePortMax = 32767;

const ipToString = (n: number): string => [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.');

export function serviceAllocators(stored: StoredServices): ServiceAllocators {
  return {
    allocateClusterIP() {
      const used = new Set(stored().map((s) => (isJsonObject(s.spec) ? s.spec.clusterIP : undefined)));
      let ip: string;
      do ip = ipToString(cidrBase + 1 + randomInt(cidrSize - 2));
      while (used.has(ip));
      return ip;
    },
    allocateNodePort() {
      const used = new Set<number>();
      for (const s of stored()) {
        const ports = isJsonObject(s.spec) && Array.isArray(s.spec.ports) ? s.spec.ports : [];
        for (const p of ports) if (isJsonObject(p) && typeof p.nodePort === 'number') used.add(p.nodePort);
      }
      let port: number;
      do port = nodePortMin + randomInt(nodePortMax - nodePortMin + 1);
      while (used.has(port));
      return port;
    },
  };
}
