// kubectl's column sets for coordination, discovery and admissionregistration kinds, and the
// default column set (Name, Created At) for kinds without a printer, such as CRDs.

import { readPath, type KubeObject } from '../meta/object.ts';
import type { TablePrinter } from '../registry/types.ts';
import { ageColumn, ageOf, column, int, nameColumn, none, objects, str } from './columns.ts';

const metaName = (o: KubeObject): string => o.metadata.name ?? '';

export const leasePrinter: TablePrinter = {
  columns: [nameColumn, column('Holder', 'string', 'The holder of the lease.'), ageColumn],
  cells: (o, now) => [metaName(o), str(readPath(o, ['spec', 'holderIdentity'])), ageOf(o, now)],
};

function slicePorts(o: KubeObject): string {
  const ports = objects(o.ports).map((p) => String(int(p.port)));
  if (!ports.length) return none;
  return ports.length > 3 ? `${ports.slice(0, 3).join(',')} + ${ports.length - 3} more...` : ports.join(',');
}

function sliceEndpoints(o: KubeObject): string {
  const addresses = objects(o.endpoints).flatMap((e) => (Array.isArray(e.addresses) ? e.addresses.map(String) : []));
  if (!addresses.length) return none;
  return addresses.length > 3 ? `${addresses.slice(0, 3).join(',')} + ${addresses.length - 3} more...` : addresses.join(',');
}

export const endpointSlicePrinter: TablePrinter = {
  columns: [
    nameColumn,
    column('AddressType', 'string', 'The type of address carried by this EndpointSlice.'),
    column('Ports', 'string', 'The ports of this EndpointSlice.'),
    column('Endpoints', 'string', 'The addresses of the endpoints of this EndpointSlice.'),
    ageColumn,
  ],
  cells: (o, now) => [metaName(o), str(o.addressType), slicePorts(o), sliceEndpoints(o), ageOf(o, now)],
};

export const webhookConfigurationPrinter: TablePrinter = {
  columns: [nameColumn, column('Webhooks', 'integer', 'The number of webhooks in the configuration.'), ageColumn],
  cells: (o, now) => [metaName(o), objects(o.webhooks).length, ageOf(o, now)],
};

/** The default table convertor of the real server. */
export const defaultPrinter: TablePrinter = {
  columns: [
    nameColumn,
    column('Created At', 'date', 'CreationTimestamp is the server time when this object was created.'),
  ],
  cells: (o) => [metaName(o), o.metadata.creationTimestamp ?? null],
};
