// The users requests act as. The sandbox authenticates nobody: an HTTP request is the admin, unless it
// impersonates someone (../http/impersonation.ts); an in-process client names its user.

import { isDNS1123Label, isDNS1123Subdomain } from '../validation/names.ts';
import type { UserInfo } from './admission.ts';

export const sandboxAdmin: UserInfo = { username: 'admin', groups: ['system:masters', 'system:authenticated'] };

const serviceAccountPrefix = 'system:serviceaccount:';

/** serviceaccount.SplitUsername: the namespace of `system:serviceaccount:<namespace>:<name>` with valid names, else undefined. */
export function serviceAccountNamespace(username: string): string | undefined {
  if (!username.startsWith(serviceAccountPrefix)) return undefined;
  const parts = username.slice(serviceAccountPrefix.length).split(':');
  if (parts.length !== 2) return undefined;
  const [namespace = '', name = ''] = parts;
  return isDNS1123Label(namespace).length || isDNS1123Subdomain(name).length ? undefined : namespace;
}

/** serviceaccount.MakeGroupNames: the groups of every service account of a namespace. */
export const serviceAccountGroups = (namespace: string): string[] => ['system:serviceaccounts', `system:serviceaccounts:${namespace}`];

/** The groups the authenticator gives a user; a service account also belongs to its namespace's group. */
export function authenticatedGroups(username: string): string[] {
  if (username.startsWith('system:node:')) return ['system:nodes', 'system:authenticated'];
  const namespace = serviceAccountNamespace(username);
  return [...(namespace === undefined ? [] : serviceAccountGroups(namespace)), 'system:authenticated'];
}
