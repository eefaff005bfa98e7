// The NamespaceLifecycle admission plugin: nothing is created in a namespace that does not exist
// (404) or is terminating (403), and the system namespaces cannot be deleted. Local access reviews
// are exempt.

import { failure, notFoundStatus, StatusError } from '../errors.ts';
import type { Store } from '../storage/store.ts';
import type { AdmissionAttributes, AdmissionPlugin } from './admission.ts';

const immortal = new Set(['default', 'kube-system', 'kube-public']);

export function namespaceLifecycle(store: Pick<Store, 'get'>): AdmissionPlugin {
  return {
    name: 'NamespaceLifecycle',
    admit(a: AdmissionAttributes) {
      const qualified = a.resource.group ? `${a.resource.resource}.${a.resource.group}` : a.resource.resource;
      if (a.operation === 'DELETE' && a.resource.group === '' && a.resource.resource === 'namespaces' && immortal.has(a.name)) {
        throw new StatusError(
          failure(403, 'Forbidden', `namespaces "${a.name}" is forbidden: this namespace may not be deleted`, { name: a.name, kind: 'namespaces' }),
        );
      }
      if (a.operation !== 'CREATE' || !a.namespace || a.subresource) return;
      // Access reviews are answered in any namespace: a 404 would tell which namespaces exist.
      if (a.resource.group === 'authorization.k8s.io' && a.resource.resource === 'localsubjectaccessreviews') return;
      const ns = store.get('namespaces', a.namespace)?.object;
      if (!ns) throw new StatusError(notFoundStatus({ resource: 'namespaces', group: '', name: a.namespace }));
      if (ns.metadata.deletionTimestamp) {
        const details = {
          name: a.name,
          ...(a.resource.group ? { group: a.resource.group } : {}),
          kind: a.resource.resource,
          causes: [{ reason: 'NamespaceTerminating', message: `namespace ${a.namespace} is being terminated`, field: 'metadata.namespace' }],
        };
        throw new StatusError(
          failure(403, 'Forbidden', `${qualified} "${a.name}" is forbidden: unable to create new content in namespace ${a.namespace} because it is being terminated`, details),
        );
      }
    },
  };
}
