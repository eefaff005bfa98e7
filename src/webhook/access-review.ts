// Acting for a requester only within the requester's own rights: before podops does something with its
// ServiceAccount on the strength of an object a user wrote (a RolloutLifecycle's hooks become Jobs, and its
// target workload is held and released), the API server's authorizer is asked, by a SubjectAccessReview,
// whether that user may do it themselves.

import type { KubeClient } from '../kube/client.ts';
import { SUBJECT_ACCESS_REVIEWS } from '../kube/resources.ts';
import { denied, errored, type UserInfo, type Verdict } from './admission.ts';

export interface ResourceAction {
  verb: string;
  group: string;
  resource: string;
  namespace: string;
  /** One object; absent: any in the namespace. */
  name?: string;
}

interface SubjectAccessReview {
  apiVersion: string;
  kind: string;
  metadata: Record<string, never>;
  spec: {
    user?: string;
    uid?: string;
    groups?: string[];
    extra?: Record<string, string[]>;
    resourceAttributes: ResourceAction;
  };
  status?: { allowed?: boolean; denied?: boolean; reason?: string; evaluationError?: string };
}

/** `create jobs.batch in namespace "shop"`, `update or patch deployments.apps "web" in namespace "shop"`. */
const described = (verbs: readonly string[], { group, resource, namespace, name }: Omit<ResourceAction, 'verb'>): string =>
  `${verbs.join(' or ')} ${group ? `${resource}.${group}` : resource}${name === undefined ? '' : ` "${name}"`} in namespace "${namespace}"`;

/**
 * `undefined` when `user` may perform `action` with one of `verbs` (asked in order, until one is allowed);
 * otherwise the refusal, naming `field` (what would make podops act) and why it needs that right. An
 * authorizer that cannot be asked refuses too (500): the write is retried, never let through unchecked.
 */
export async function refuseUnlessAllowed(
  client: KubeClient,
  user: UserInfo | undefined,
  verbs: readonly [string, ...string[]],
  action: Omit<ResourceAction, 'verb'>,
  field: string,
  because: string,
): Promise<Verdict | undefined> {
  let why: string | undefined;
  for (const verb of verbs) {
    const review: SubjectAccessReview = {
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SubjectAccessReview',
      metadata: {},
      spec: { user: user?.username, uid: user?.uid, groups: user?.groups, extra: user?.extra, resourceAttributes: { verb, ...action } },
    };
    let answer: SubjectAccessReview;
    try {
      answer = await client.create(SUBJECT_ACCESS_REVIEWS, review as never);
    } catch (err) {
      const message = (err as { status?: { message?: string } }).status?.message ?? (err as Error).message;
      return errored(500, `cannot ask the API server whether user "${user?.username ?? ''}" may ${described([verb], action)} (${because}): ${message}`);
    }
    if (answer.status?.allowed === true) return undefined;
    why ||= answer.status?.reason || answer.status?.evaluationError;
  }
  return denied(`${field}: Forbidden: user "${user?.username ?? ''}" may not ${described(verbs, action)}, and ${because}${why ? ` (${why})` : ''}`);
}
