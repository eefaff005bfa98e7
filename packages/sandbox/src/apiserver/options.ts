// Query and body options of API requests (CreateOptions, UpdateOptions, PatchOptions,
// DeleteOptions, ListOptions), validated with the real server's messages. Options errors name the
// options kind (`CreateOptions.meta.k8s.io "" is invalid: …`) and render values as Go does.

import { badRequestStatus, failure, StatusError, type StatusCause } from '../errors.ts';
import { isJsonObject } from '../meta/object.ts';
import { reasonlessFailure } from './status.ts';

export type OptionsKind = 'CreateOptions' | 'UpdateOptions' | 'PatchOptions' | 'DeleteOptions' | 'ListOptions';

export interface OptionsCause {
  reason: string;
  field: string;
  /** The cause message without the field prefix, e.g. `Unsupported value: "Bogus": supported values: "All"`. */
  message: string;
}

/** 422 for invalid request options, worded as apimachinery words it. */
export function invalidOptions(kind: OptionsKind, causes: readonly OptionsCause[]): StatusError {
  const rendered = causes.map((c) => `${c.field}: ${c.message}`);
  const body = rendered.length === 1 ? rendered[0] : `[${rendered.join(', ')}]`;
  const details = {
    group: 'meta.k8s.io',
    kind,
    causes: causes.map((c): StatusCause => ({ reason: c.reason, message: c.message, field: c.field })),
  };
  return new StatusError(failure(422, 'Invalid', `${kind}.meta.k8s.io "" is invalid: ${body}`, details));
}

export type FieldValidation = 'Ignore' | 'Warn' | 'Strict';

export interface WriteOptions {
  dryRun: boolean;
  fieldValidation: FieldValidation;
  fieldManager: string | undefined;
  force: boolean;
}

const quoteList = (values: readonly string[]): string => `[]string{${values.map((v) => JSON.stringify(v)).join(', ')}}`;

function parseDryRun(values: readonly string[], kind: OptionsKind): boolean {
  if (values.length === 0) return false;
  if (values.every((v) => v === 'All')) return true;
  throw invalidOptions(kind, [
    { reason: 'FieldValueNotSupported', field: 'dryRun', message: `Unsupported value: ${quoteList(values)}: supported values: "All"` },
  ]);
}

export function parseWriteOptions(query: URLSearchParams, kind: OptionsKind): WriteOptions {
  const dryRun = parseDryRun(query.getAll('dryRun'), kind);
  const rawValidation = query.get('fieldValidation') ?? '';
  if (!['', 'Ignore', 'Warn', 'Strict'].includes(rawValidation)) {
    throw invalidOptions(kind, [
      {
        reason: 'FieldValueNotSupported',
        field: 'fieldValidation',
        message: `Unsupported value: ${JSON.stringify(rawValidation)}: supported values: "", "Ignore", "Strict", "Warn"`,
      },
    ]);
  }
  const fieldManager = query.get('fieldManager') ?? undefined;
  if (fieldManager !== undefined && fieldManager.length > 128) {
    throw invalidOptions(kind, [
      { reason: 'FieldValueTooLong', field: 'fieldManager', message: 'Too long: may not be more than 128 bytes' },
    ]);
  }
  const force = query.get('force') === 'true';
  return { dryRun, fieldValidation: (rawValidation || 'Warn') as FieldValidation, fieldManager, force };
}

export type PropagationPolicy = 'Foreground' | 'Background' | 'Orphan';

export interface DeleteOptions {
  dryRun: boolean;
  gracePeriodSeconds: number | undefined;
  propagationPolicy: PropagationPolicy | undefined;
  orphanDependents: boolean | undefined;
  preconditions: { uid?: string; resourceVersion?: string };
}

/** DeleteOptions from the query string and an optional body (a DeleteOptions object). */
export function parseDeleteOptions(query: URLSearchParams, body: unknown): DeleteOptions {
  const fromBody = isJsonObject(body) ? body : {};
  const dryRunValues = query.getAll('dryRun').length
    ? query.getAll('dryRun')
    : Array.isArray(fromBody.dryRun)
      ? fromBody.dryRun.map(String)
      : [];
  const dryRun = parseDryRun(dryRunValues, 'DeleteOptions');
  const graceQuery = query.get('gracePeriodSeconds');
  let gracePeriodSeconds: number | undefined;
  if (graceQuery !== null && graceQuery !== '') {
    gracePeriodSeconds = Number(graceQuery);
    if (!Number.isInteger(gracePeriodSeconds)) {
      throw new StatusError(badRequestStatus(`invalid value for gracePeriodSeconds: ${graceQuery}`));
    }
  } else if (typeof fromBody.gracePeriodSeconds === 'number') {
    gracePeriodSeconds = fromBody.gracePeriodSeconds;
  }
  const rawPolicy = query.get('propagationPolicy') ?? (typeof fromBody.propagationPolicy === 'string' ? fromBody.propagationPolicy : undefined);
  const orphanQuery = query.get('orphanDependents');
  const orphanDependents =
    orphanQuery !== null ? orphanQuery === 'true' : typeof fromBody.orphanDependents === 'boolean' ? fromBody.orphanDependents : undefined;
  const causes: OptionsCause[] = [];
  if (rawPolicy !== undefined && !['Foreground', 'Background', 'Orphan'].includes(rawPolicy)) {
    causes.push({
      reason: 'FieldValueNotSupported',
      field: 'propagationPolicy',
      message: `Unsupported value: ${JSON.stringify(rawPolicy)}: supported values: "Foreground", "Background", "Orphan", "nil"`,
    });
  }
  if (rawPolicy !== undefined && orphanDependents !== undefined) {
    causes.push({
      reason: 'FieldValueInvalid',
      field: 'propagationPolicy',
      message: `Invalid value: ${JSON.stringify(rawPolicy)}: orphanDependents and deletionPropagation cannot be both set`,
    });
  }
  if (gracePeriodSeconds !== undefined && gracePeriodSeconds < 0) gracePeriodSeconds = 1;
  if (causes.length) throw invalidOptions('DeleteOptions', causes);
  const pre = isJsonObject(fromBody.preconditions) ? fromBody.preconditions : {};
  const preconditions: DeleteOptions['preconditions'] = {};
  if (typeof pre.uid === 'string') preconditions.uid = pre.uid;
  if (typeof pre.resourceVersion === 'string') preconditions.resourceVersion = pre.resourceVersion;
  return { dryRun, gracePeriodSeconds, propagationPolicy: rawPolicy as PropagationPolicy | undefined, orphanDependents, preconditions };
}

export type ResourceVersionMatch = 'NotOlderThan' | 'Exact' | undefined;

export interface ListOptions {
  /** The raw `resourceVersion` parameter (`undefined` when absent or empty). */
  resourceVersion: string | undefined;
  resourceVersionMatch: ResourceVersionMatch;
  limit: number | undefined;
  continueToken: string | undefined;
  labelSelector: string;
  fieldSelector: string;
  watch: boolean;
  allowWatchBookmarks: boolean;
  sendInitialEvents: boolean | undefined;
  timeoutSeconds: number | undefined;
}

const forbidden = (field: string, detail: string): OptionsCause => ({ reason: 'FieldValueForbidden', field, message: `Forbidden: ${detail}` });

export function parseListOptions(query: URLSearchParams, watchFromPath: boolean): ListOptions {
  const truthy = (v: string | null): boolean => v === 'true' || v === '1';
  const rv = query.get('resourceVersion') || undefined;
  const match = query.get('resourceVersionMatch') || undefined;
  const watch = watchFromPath || truthy(query.get('watch'));
  const sendRaw = query.get('sendInitialEvents');
  const sendInitialEvents = sendRaw === null ? undefined : truthy(sendRaw);
  const limitRaw = query.get('limit');
  const limitNum = limitRaw === null || limitRaw === '' ? undefined : Number(limitRaw);
  const limit = limitNum !== undefined && Number.isFinite(limitNum) && limitNum > 0 ? Math.floor(limitNum) : undefined;
  const timeoutRaw = query.get('timeoutSeconds');
  const timeoutSeconds = timeoutRaw === null || timeoutRaw === '' ? undefined : Math.max(0, Number(timeoutRaw) || 0);
  const continueToken = query.get('continue') || undefined;

  const causes: OptionsCause[] = [];
  if (watch) {
    if (match && sendInitialEvents === undefined) {
      causes.push(forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided'));
    }
    if (match && match !== 'NotOlderThan') {
      causes.push({
        reason: 'FieldValueNotSupported',
        field: 'resourceVersionMatch',
        message: `Unsupported value: ${JSON.stringify(match)}: supported values: "NotOlderThan"`,
      });
    }
    if (sendInitialEvents !== undefined && match !== 'NotOlderThan') {
      causes.push(forbidden('resourceVersionMatch', 'sendInitialEvents requires setting resourceVersionMatch to NotOlderThan'));
    }
  } else {
    if (match && !rv) causes.push(forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden unless resourceVersion is provided'));
    if (match === 'Exact' && rv === '0') {
      causes.push(forbidden('resourceVersionMatch', 'resourceVersionMatch "exact" is forbidden for resourceVersion "0"'));
    }
    if (match && match !== 'Exact' && match !== 'NotOlderThan') {
      causes.push({
        reason: 'FieldValueNotSupported',
        field: 'resourceVersionMatch',
        message: `Unsupported value: ${JSON.stringify(match)}: supported values: "Exact", "NotOlderThan", ""`,
      });
    }
    if (sendInitialEvents !== undefined) causes.push(forbidden('sendInitialEvents', 'sendInitialEvents is forbidden for list'));
  }
  if (causes.length) throw invalidOptions('ListOptions', causes);
  if (continueToken && rv && rv !== '0' && !watch) {
    throw new StatusError(badRequestStatus('specifying resource version is not allowed when using continue'));
  }
  return {
    resourceVersion: rv,
    resourceVersionMatch: match as ResourceVersionMatch,
    limit,
    continueToken,
    labelSelector: query.get('labelSelector') ?? '',
    fieldSelector: query.get('fieldSelector') ?? '',
    watch,
    allowWatchBookmarks: truthy(query.get('allowWatchBookmarks')),
    sendInitialEvents,
    timeoutSeconds,
  };
}

const maxUint64 = (1n << 64n) - 1n;

/**
 * Parses a resourceVersion as the server does (a uint64, strconv.ParseUint), 500 on garbage or a value out of
 * range. Above 2^53 the number is approximate: still larger than any version the store has reached.
 */
export function parseResourceVersion(value: string, field?: string): number {
  const why = !/^\d+$/.test(value) ? 'invalid syntax' : BigInt(value) > maxUint64 ? 'value out of range' : undefined;
  if (why === undefined) return Number(value);
  const message = `strconv.ParseUint: parsing ${JSON.stringify(value)}: ${why}`;
  throw reasonlessFailure(500, field ? `${field}: Invalid value: ${JSON.stringify(value)}: ${message}` : message);
}

/** A valid resourceVersion as Go prints the uint64 it parsed: every digit (no float notation), no leading zeros. */
export const resourceVersionText = (value: string): string => BigInt(value).toString();
