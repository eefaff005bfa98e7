// kube-apiserver's impersonation filter: a request whose user may impersonate (in the sandbox every HTTP
// request is the admin, and authorization is AlwaysAllow) acts as the user its Impersonate-* headers name.
// kubectl's --as and a kubeconfig user's `as` (which @kubernetes/client-node sends) set them, so the
// writes of a client configured that way carry its own username (webhooks' userInfo, the write log).

import type { UserInfo } from '../apiserver/admission.ts';
import { serviceAccountGroups, serviceAccountNamespace } from '../apiserver/users.ts';

const extraPrefix = 'impersonate-extra-';

/** A request asked for groups, extra or a uid without a user: Go's InternalError, in plain text. */
export class ImpersonationError extends Error {}

/** responsewriters' sanitizer of the plain-text errors it writes. */
const sanitize = (text: string): string => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** url.PathUnescape of an extra key, the key itself when it does not unescape. */
function unescapeExtraKey(key: string): string {
  try {
    return decodeURIComponent(key);
  } catch {
    return key;
  }
}

/**
 * The user a request acts as: `authenticated`, or the one its Impersonate-* headers name (headers as Node's
 * `headersDistinct`, lower-case names). `requestUri` is quoted by the error, as Go quotes it.
 */
export function impersonatedUser(headers: NodeJS.Dict<string[]>, authenticated: UserInfo, requestUri: string): UserInfo {
  const username = headers['impersonate-user']?.[0] ?? '';
  const groups = headers['impersonate-group'] ?? [];
  const uid = headers['impersonate-uid']?.[0] ?? '';
  const extra: Record<string, string[]> = {};
  // What else was requested, as Go's %v prints each ObjectReference (Kind Namespace Name UID APIVersion ResourceVersion FieldPath).
  const requested: string[] = [];
  for (const group of groups) requested.push(`{Group  ${group}    }`);
  for (const [name, values] of Object.entries(headers)) {
    if (!name.startsWith(extraPrefix) || !values) continue;
    const key = unescapeExtraKey(name.slice(extraPrefix.length));
    (extra[key] ??= []).push(...values);
    for (const value of values) requested.push(`{UserExtra  ${value}  authentication.k8s.io/v1  ${key}}`);
  }
  if (uid) requested.push(`{UID  ${uid}  authentication.k8s.io/v1  }`);
  if (!username) {
    if (!requested.length) return authenticated;
    throw new ImpersonationError(sanitize(`Internal Server Error: ${JSON.stringify(requestUri)}: requested [${requested.join(' ')}] without impersonating a user`));
  }

  const namespace = serviceAccountNamespace(username);
  // A service account impersonated without groups gets its fixed ones.
  const all = namespace !== undefined && !groups.length ? serviceAccountGroups(namespace) : [...groups];
  if (username === 'system:anonymous') {
    if (!all.includes('system:unauthenticated')) all.push('system:unauthenticated');
  } else if (!all.includes('system:authenticated') && !all.includes('system:unauthenticated')) all.push('system:authenticated');
  return { username, ...(uid ? { uid } : {}), groups: all, ...(Object.keys(extra).length ? { extra } : {}) };
}
