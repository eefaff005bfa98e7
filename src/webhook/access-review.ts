// Acting for a requester only within the requester's own rights: before podops does something with its
// ServiceAccount on the strength of an object a user wrote (a RolloutLifecycle's hooks become Jobs), the API
// server's authorizer is asked, by a SubjectAccessReview, whether that user may do it themselves.

import type { KubeClient } from '../kube/client.ts';
import { SUBJECT_ACCESS_REVIEWS } from '../kube/resources.ts';
import { denied, errored, type UserInfo, type Verdict } from './admission.ts';

export interface ResourceAction {
  verb: string;
  group: string;
  resource: string;
  namespace: string;
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

const described = ({ verb, group, resource, namespace }: ResourceAction): string => `${verb} ${group ? `${resource}.${group}` : resource} in namespace "${namespace}"`;

/**
 * `undefined` when `user` may perform `action`; otherwise the refusal, naming `field` (what would make
 * podops act) and why it needs that right. An authorizer that cannot be asked refuses too (500): the write
 * is retried, never let through unchecked.
 */
export async function refuseUnlessAllowed(client: KubeClient, user: UserInfo | undefined, action: ResourceAction, field: string, because: string): Promise<Verdict | undefined> {
  const review: SubjectAccessReview = {
    apiVersion: 'authorization.k8s.io/v1',
    kind: 'SubjectAccessReview',
    metadata: {},
    spec: { user: user?.username, uid: user?.uid, groups: user?.groups, extra: user?.extra, resourceAttributes: action },
  };
  let answer: SubjectAccessReview;
  try {
    answer = await client.create(SUBJECT_ACCESS_REVIEWS, review as never);
  } catch (err) {
    const message = (err as { status?: { message?: string } }).status?.message ?? (err as Error).message;
    return errored(500, `cannot ask the API server whether user "${user?.username ?? ''}" may ${described(action)} (${because}): ${message}`);
  }
  if (answer.status?.allowed === true) return undefined;
  const why = answer.status?.reason || answer.status?.evaluationError;
  return denied(`${field}: Forbidden: user "${user?.username ?? ''}" may not ${described(action)}, and ${because}${why ? ` (${why})` : ''}`);
}
