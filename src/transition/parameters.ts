// Webhook-rule parameters: a literal value, or a field of the pod by fieldRef path
// (Kuperator's behaviour, docs/podtransitionrule.md). Upstream panics on a path through a missing or non-object field; here
// every bad path is a ParameterError naming the parameter and the path.

import type { Pod } from '../api/kube.ts';
import type { WebhookParameter } from '../api/podtransitionrule.ts';
import { ownMember } from '../api/own-member.ts';
import { qualifiedNameProblem } from '../api/selector.ts';

export class ParameterError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ParameterError';
  }
}

/**
 * The parameter's value for one pod. Like upstream, the text `null` (a JSON null read from the pod)
 * becomes "". Throws ParameterError with upstream's wording where upstream has one.
 */
export function parameterValue(parameter: WebhookParameter, pod: Pod): string {
  const value = rawParameterValue(parameter, pod);
  return value === 'null' ? '' : value;
}

function rawParameterValue(parameter: WebhookParameter, pod: Pod): string {
  const key = parameter.key ?? '';
  if (parameter.value != null && parameter.value !== '') return parameter.value;
  const fieldPath = parameter.valueFrom?.fieldRef?.fieldPath;
  if (fieldPath == null) throw new ParameterError(`unexpected empty parameter ${key}`);
  const problem = fieldPathProblem(fieldPath);
  if (problem) throw new ParameterError(`fail to parse parameter ${key} by field ref: ${problem}`);
  return fieldValue(pod, fieldPath, key);
}

/** Why a fieldPath can never be read, or undefined. Used by validation (as a warning) and before reading. */
export function fieldPathProblem(fieldPath: string): string | undefined {
  if (fieldPath === '') return 'fieldPath is empty';
  const subscripted = splitSubscript(fieldPath);
  if (subscripted) {
    const [path, subscript] = subscripted;
    if (path !== 'metadata.labels' && path !== 'metadata.annotations') return `fieldPath "${fieldPath}" does not support subscript`;
    const keyProblem = qualifiedNameProblem(path === 'metadata.annotations' ? subscript.toLowerCase() : subscript);
    return keyProblem && `invalid key subscript in ${fieldPath}: ${keyProblem}`;
  }
  if (fieldPath.split('.').some((segment) => segment === '')) return `fieldPath "${fieldPath}" has an empty segment`;
  return undefined;
}

/** `metadata.labels['k']` -> ["metadata.labels", "k"], as upstream's splitMaybeSubscriptedPath. */
function splitSubscript(fieldPath: string): [string, string] | undefined {
  if (!fieldPath.endsWith("']")) return undefined;
  const inner = fieldPath.slice(0, -2);
  const at = inner.indexOf("['");
  if (at <= 0) return undefined;
  return [inner.slice(0, at), inner.slice(at + 2)];
}

function fieldValue(pod: Pod, fieldPath: string, key: string): string {
  const subscripted = splitSubscript(fieldPath);
  if (subscripted) {
    const [path, subscript] = subscripted;
    const map = path === 'metadata.labels' ? pod.metadata.labels : pod.metadata.annotations;
    return ownMember(map, subscript) ?? '';
  }
  switch (fieldPath) {
    case 'metadata.annotations':
      return formatMap(pod.metadata.annotations);
    case 'metadata.labels':
      return formatMap(pod.metadata.labels);
    case 'metadata.name':
      return pod.metadata.name ?? '';
    case 'metadata.namespace':
      return pod.metadata.namespace ?? '';
    case 'metadata.uid':
      return pod.metadata.uid ?? '';
  }
  const segments = fieldPath.split('.');
  let current: unknown = pod;
  for (const [i, segment] of segments.entries()) {
    if (current === null || typeof current !== 'object' || Array.isArray(current)) {
      const parent = segments.slice(0, i).join('.');
      throw new ParameterError(`fail to parse parameter ${key} by field ref: ${parent} is ${current === undefined ? 'missing' : 'not an object'} in the pod`);
    }
    current = ownMember(current as Record<string, unknown>, segment);
  }
  if (typeof current === 'string') return current;
  return current === undefined ? '' : JSON.stringify(current);
}

/** Sorted `key="value"` lines, as upstream's formatMap (Go's %q quoting). */
function formatMap(map: Record<string, string> | undefined): string {
  return Object.keys(map ?? {})
    .sort()
    .map((k) => `${k}=${goQuote((map as Record<string, string>)[k] as string)}`)
    .join('\n');
}

const GO_ESCAPES: Record<string, string> = { '\x07': '\\a', '\b': '\\b', '\f': '\\f', '\n': '\\n', '\r': '\\r', '\t': '\\t', '\v': '\\v', '"': '\\"', '\\': '\\\\' };

function goQuote(value: string): string {
  let out = '"';
  for (const ch of value) {
    const code = ch.codePointAt(0) as number;
    out += GO_ESCAPES[ch] ?? (code < 0x20 || code === 0x7f ? `\\x${code.toString(16).padStart(2, '0')}` : ch);
  }
  return `${out}"`;
}
