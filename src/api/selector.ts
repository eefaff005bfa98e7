// metav1.LabelSelector as plain JSON, and a matcher with the semantics of apimachinery's
// LabelSelectorAsSelector: nil selects nothing, an empty selector selects everything, `NotIn` and
// `DoesNotExist` match objects that lack the key. Pure: compile once, match many.

import { ownMember } from './own-member.ts';

export interface LabelSelectorRequirement {
  key: string;
  operator: string;
  values?: string[];
}

export interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: LabelSelectorRequirement[];
}

/** The structural OpenAPI v3 schema of a LabelSelector, as CRDs embed it. */
export function labelSelectorSchema(description: string): Record<string, unknown> {
  return {
    type: 'object',
    description,
    'x-kubernetes-map-type': 'atomic',
    properties: {
      matchLabels: {
        type: 'object',
        description: 'Labels that must be present with exactly these values.',
        additionalProperties: { type: 'string' },
      },
      matchExpressions: {
        type: 'array',
        description: 'Requirements on label keys; all must hold.',
        items: {
          type: 'object',
          required: ['key', 'operator'],
          properties: {
            key: { type: 'string', description: 'The label key.' },
            operator: { type: 'string', description: 'In, NotIn, Exists or DoesNotExist.' },
            values: {
              type: 'array',
              description: 'Values for In and NotIn (at least one); empty for Exists and DoesNotExist.',
              items: { type: 'string' },
            },
          },
        },
      },
    },
  };
}

export class LabelSelectorError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'LabelSelectorError';
  }
}

type Operator = 'Equals' | 'In' | 'NotIn' | 'Exists' | 'DoesNotExist';

interface Requirement {
  key: string;
  operator: Operator;
  values: readonly string[];
}

export interface CompiledSelector {
  matches(labels: Readonly<Record<string, string>> | undefined): boolean;
  /** The selector in kubectl's syntax (`a=b,c in (d,e),!f`), requirements sorted by key, as labels.Selector.String() prints it. */
  readonly text: string;
}

const NOTHING: CompiledSelector = { matches: () => false, text: '' };
const EVERYTHING: CompiledSelector = { matches: () => true, text: '' };

const EXPRESSION_OPERATORS: Record<string, Operator> = { In: 'In', NotIn: 'NotIn', Exists: 'Exists', DoesNotExist: 'DoesNotExist' };

/**
 * Compiles a selector once for many matches. Throws LabelSelectorError naming the bad key, value or
 * operator, as LabelSelectorAsSelector refuses them.
 */
export function compileLabelSelector(selector: LabelSelector | null | undefined): CompiledSelector {
  if (selector == null) return NOTHING;
  const requirements: Requirement[] = [];
  for (const [key, value] of Object.entries(selector.matchLabels ?? {})) {
    requirements.push(requirement(`matchLabels["${key}"]`, key, 'Equals', [value]));
  }
  (selector.matchExpressions ?? []).forEach((expression, i) => {
    const where = `matchExpressions[${i}]`;
    const operator = ownMember(EXPRESSION_OPERATORS, expression.operator);
    if (operator === undefined) throw new LabelSelectorError(`${where}: "${expression.operator}" is not a valid label selector operator`);
    requirements.push(requirement(where, expression.key, operator, expression.values ?? []));
  });
  if (requirements.length === 0) return EVERYTHING;
  requirements.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return {
    matches: (labels) => requirements.every((r) => requirementMatches(r, labels)),
    text: requirements.map(requirementText).join(','),
  };
}

/** Convenience for one-off matches; compile with compileLabelSelector when matching many objects. */
export const labelSelectorMatches = (selector: LabelSelector | null | undefined, labels: Readonly<Record<string, string>> | undefined): boolean =>
  compileLabelSelector(selector).matches(labels);

function requirement(where: string, key: string, operator: Operator, values: readonly string[]): Requirement {
  const keyProblem = qualifiedNameProblem(key);
  if (keyProblem) throw new LabelSelectorError(`${where}: invalid label key "${key}": ${keyProblem}`);
  if ((operator === 'In' || operator === 'NotIn') && values.length === 0) {
    throw new LabelSelectorError(`${where}: values must be non-empty for operator ${operator}`);
  }
  if ((operator === 'Exists' || operator === 'DoesNotExist') && values.length > 0) {
    throw new LabelSelectorError(`${where}: values must be empty for operator ${operator}`);
  }
  for (const value of values) {
    const valueProblem = labelValueProblem(value);
    if (valueProblem) throw new LabelSelectorError(`${where}: invalid label value "${value}": ${valueProblem}`);
  }
  return { key, operator, values: [...values].sort() };
}

function requirementMatches(r: Requirement, labels: Readonly<Record<string, string>> | undefined): boolean {
  const value = ownMember(labels, r.key);
  switch (r.operator) {
    case 'Equals':
    case 'In':
      return value !== undefined && r.values.includes(value);
    case 'NotIn':
      return value === undefined || !r.values.includes(value);
    case 'Exists':
      return value !== undefined;
    case 'DoesNotExist':
      return value === undefined;
  }
}

function requirementText(r: Requirement): string {
  switch (r.operator) {
    case 'Equals':
      return `${r.key}=${r.values.join(',')}`;
    case 'In':
      return `${r.key} in (${r.values.join(',')})`;
    case 'NotIn':
      return `${r.key} notin (${r.values.join(',')})`;
    case 'Exists':
      return r.key;
    case 'DoesNotExist':
      return `!${r.key}`;
  }
}

const NAME_PART = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const NAME_CHARS = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";

/** Why `key` is not a Kubernetes qualified name (`[prefix/]name`, as label keys are), or undefined when it is. */
export function qualifiedNameProblem(key: string): string | undefined {
  const parts = key.split('/');
  if (parts.length > 2) return `a qualified name ${NAME_CHARS}, with an optional DNS subdomain prefix and '/'`;
  const name = parts[parts.length - 1] as string;
  if (parts.length === 2) {
    const prefix = parts[0] as string;
    if (prefix.length === 0) return 'prefix part must be non-empty';
    if (prefix.length > 253) return 'prefix part must be no more than 253 characters';
    if (!DNS_SUBDOMAIN.test(prefix)) {
      return "prefix part must be a lowercase RFC 1123 subdomain: lower case alphanumeric characters, '-' or '.', starting and ending with an alphanumeric character";
    }
  }
  if (name.length === 0) return 'name part must be non-empty';
  if (name.length > 63) return 'name part must be no more than 63 characters';
  if (!NAME_PART.test(name)) return `name part ${NAME_CHARS}`;
  return undefined;
}

/** Why `value` is not a valid label value, or undefined when it is (the empty string is valid). */
export function labelValueProblem(value: string): string | undefined {
  if (value.length > 63) return 'must be no more than 63 characters';
  if (value.length > 0 && !NAME_PART.test(value)) return `a valid label value must be empty or ${NAME_CHARS.replace('must ', '')}`;
  return undefined;
}

/** A LabelSelector in the `labelSelector` query syntax (metav1.FormatLabelSelector's, sorted by key). */
export function labelSelectorString(selector: LabelSelector): string {
  const parts = Object.entries(selector.matchLabels ?? {}).map(([key, value]) => `${key}=${value}`);
  for (const { key, operator, values = [] } of selector.matchExpressions ?? []) {
    const list = [...values].sort().join(',');
    if (operator === 'In') parts.push(`${key} in (${list})`);
    else if (operator === 'NotIn') parts.push(`${key} notin (${list})`);
    else if (operator === 'Exists') parts.push(key);
    else if (operator === 'DoesNotExist') parts.push(`!${key}`);
  }
  return parts.sort().join(',');
}
