// Upstream's generic webhooks: one path for all mutations and one for all validations, dispatched on the
// request's kind (or `Kind/subresource`), each kind handled by its handlers in registration order.

import type { AdmissionRequest, Verdict } from './admission.ts';
import { allowed } from './admission.ts';
import { OTHER_LABEL_VALUE } from '../kube/bounded-label.ts';
import type { WebhookRoute } from './server.ts';

export type AdmissionHandler = (request: AdmissionRequest) => Verdict | Promise<Verdict>;

/** `Pod` or `Pod/status`, as upstream keys its handlers. */
const dispatchKey = (request: AdmissionRequest): string => (request.subResource ? `${request.kind.kind}/${request.subResource}` : request.kind.kind);

/**
 * A route that runs the handlers registered for the request's kind in order: the first verdict that denies
 * ends the chain; patches of the allowing handlers are concatenated. Kinds nobody handles are allowed.
 * The kind is the caller's text: it is looked up in a Map of the registered kinds only (a plain object would
 * answer `constructor` or `__proto__` with its prototype's members), and it labels the review's metrics only
 * when registered.
 */
export function genericRoute(path: string, handlers: Record<string, AdmissionHandler[]>): WebhookRoute {
  const chains = new Map(Object.entries(handlers));
  return {
    path,
    kindLabel(request) {
      const key = dispatchKey(request);
      return chains.has(key) ? key : OTHER_LABEL_VALUE;
    },
    async handle(request) {
      const chain = chains.get(dispatchKey(request)) ?? [];
      const patch: NonNullable<Extract<Verdict, { allowed: true }>['patch']> = [];
      const warnings: string[] = [];
      for (const handler of chain) {
        const verdict = await handler(request);
        if (verdict.warnings) warnings.push(...verdict.warnings);
        if (!verdict.allowed) return { ...verdict, ...(warnings.length > 0 && { warnings }) };
        if (verdict.patch) patch.push(...verdict.patch);
      }
      return allowed(patch, warnings);
    },
  };
}
