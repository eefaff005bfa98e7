// A failed list or watch in words a user can act on: which permission is missing (verb, resource, scope, and the
// kubectl command that checks it), that the credentials were refused, or that the API server cannot be reached.

import { ApiError, ConnectionError } from '../kube/client.ts';
import type { ResourceType } from '../kube/resources.ts';
import type { Problem } from './views.ts';

/** `pods`, `podtransitionrules.apps.kusionstack.io`: the name RBAC rules and `kubectl auth can-i` use. */
export const resourceName = (type: ResourceType): string => (type.group ? `${type.resource}.${type.group}` : type.resource);

export function describeProblem(type: ResourceType, namespace: string | undefined, verb: Problem['verb'], error: unknown): Problem {
  const resource = resourceName(type);
  const scope = namespace === undefined ? 'in all namespaces' : `in namespace ${namespace}`;
  const problem = (kind: Problem['kind'], message: string): Problem => ({ resource, verb, kind, message });
  if (error instanceof ConnectionError) return problem('unreachable', error.message);
  if (!(error instanceof ApiError)) return problem('failed', `${verb} ${resource} failed: ${error instanceof Error ? error.message : String(error)}`);
  const said = error.status.message ?? `HTTP ${error.code}`;
  switch (error.code) {
    case 403: {
      const check = `kubectl auth can-i ${verb} ${resource} ${namespace === undefined ? '-A' : `-n ${namespace}`}`;
      return problem('forbidden', `missing permission: ${verb} ${resource} ${scope} (the API server said: ${said}; check with: ${check})`);
    }
    case 401:
      return problem('unauthorized', `the API server refused the credentials (401 Unauthorized) to ${verb} ${resource}: ${said}`);
    case 404:
      return problem('not-served', `the API server does not serve ${resource}/${type.version} (is its CustomResourceDefinition installed?)`);
    default:
      return problem('failed', `${verb} ${resource} ${scope} failed (HTTP ${error.code}): ${said}`);
  }
}
