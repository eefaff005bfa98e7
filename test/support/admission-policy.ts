// Evaluates a ValidatingAdmissionPolicy as kube-apiserver does, with a conformant CEL implementation: the
// match conditions, then the variables (an erroring variable fails only the expressions that use it), then
// every validation; with failurePolicy Fail an evaluation error denies like a false result.

import { run } from '@bufbuild/cel';


/** JSON as the API server hands it to CEL: objects are maps, integral numbers are ints. */
export function toCel(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(toCel);
  if (value !== null && typeof value === 'object') return new Map(Object.entries(value).map(([k, v]) => [k, toCel(v)]));
  if (typeof value === 'number' && Number.isInteger(value)) return BigInt(value);
  return value;
}

export interface PolicyRequest {
  operation: 'CREATE' | 'UPDATE' | 'DELETE';
  resource: { group: string; version: string; resource: string };
  subResource?: string;
  username: string;
  object?: unknown;
  oldObject?: unknown;
}

interface Policy {
  spec: {
    matchConditions?: { name: string; expression: string }[];
    variables?: { name: string; expression: string }[];
    validations: { expression: string; message: string }[];
  };
}

export interface PolicyOutcome {
  /** False when a match condition excluded the request. */
  matched: boolean;
  /** The messages of the validations that failed, errors included as `error: ...`. */
  denials: string[];
}

export function evaluatePolicy(policy: Policy, request: PolicyRequest): PolicyOutcome {
  const bindings: Record<string, unknown> = {
    request: toCel({
      operation: request.operation,
      resource: request.resource,
      // Left out of a request to the resource itself, as kube-apiserver leaves it out.
      ...(request.subResource && { subResource: request.subResource }),
      userInfo: { username: request.username },
    }),
    object: toCel(request.object ?? null),
    oldObject: toCel(request.oldObject ?? null),
  };
  for (const condition of policy.spec.matchConditions ?? []) {
    if (run(condition.expression, bindings as never) !== true) return { matched: false, denials: [] };
  }
  const variables = new Map<string, unknown>();
  for (const variable of policy.spec.variables ?? []) {
    try {
      variables.set(variable.name, run(variable.expression, { ...bindings, variables: variables } as never));
    } catch {
      // unset: an expression that reads it fails, as the lazy evaluation of the real server does
    }
  }
  const denials: string[] = [];
  for (const validation of policy.spec.validations) {
    try {
      if (run(validation.expression, { ...bindings, variables } as never) !== true) denials.push(validation.message);
    } catch (err) {
      denials.push(`error: ${(err as Error).message} (${validation.message})`);
    }
  }
  return { matched: true, denials };
}

