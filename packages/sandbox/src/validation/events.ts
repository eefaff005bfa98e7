// Events through both APIs. core/v1 writes only get the legacy checks; events.k8s.io/v1 writes
// also get the strict ones. Both views are read with the internal field names the errors use
// (involvedObject, message, source, reportingController, …).

import { fieldInvalid, fieldRequired, type FieldError } from '../errors.ts';
import { FIELD_IMMUTABLE, validateObjectMetaCreate, validateObjectMetaUpdate } from './meta.ts';
import { asNumber, asObject, asString, isPresent, semanticEqual } from './json.ts';
import { isDNS1123Subdomain, isQualifiedName } from './names.ts';

type Obj = Record<string, unknown>;

/** An event in the internal shape, whichever API it came through. */
interface InternalEvent {
  namespace: string;
  involvedObject: Obj;
  reason: unknown;
  message: unknown;
  source: unknown;
  firstTimestamp: unknown;
  lastTimestamp: unknown;
  count: unknown;
  type: unknown;
  eventTime: unknown;
  series: unknown;
  action: unknown;
  related: unknown;
  reportingController: unknown;
  reportingInstance: unknown;
}

function internalEvent(event: Obj, eventsAPI: boolean): InternalEvent {
  return {
    namespace: asString(asObject(event.metadata).namespace),
    involvedObject: asObject(eventsAPI ? event.regarding : event.involvedObject),
    reason: event.reason,
    message: eventsAPI ? event.note : event.message,
    source: eventsAPI ? event.deprecatedSource : event.source,
    firstTimestamp: eventsAPI ? event.deprecatedFirstTimestamp : event.firstTimestamp,
    lastTimestamp: eventsAPI ? event.deprecatedLastTimestamp : event.lastTimestamp,
    count: eventsAPI ? event.deprecatedCount : event.count,
    type: event.type,
    eventTime: event.eventTime,
    series: event.series,
    action: event.action,
    related: event.related,
    reportingController: eventsAPI ? event.reportingController : event.reportingComponent,
    reportingInstance: event.reportingInstance,
  };
}

const doesNotMatch = (e: InternalEvent): FieldError =>
  fieldInvalid('involvedObject.namespace', asString(e.involvedObject.namespace), 'does not match event.namespace');

function legacyValidateEvent(e: InternalEvent): FieldError[] {
  const errs: FieldError[] = [];
  const involvedNamespace = asString(e.involvedObject.namespace);
  if (!isPresent(e.eventTime)) {
    if (involvedNamespace === '') {
      if (e.namespace !== '' && e.namespace !== 'default') errs.push(doesNotMatch(e));
    } else if (e.namespace !== involvedNamespace) errs.push(doesNotMatch(e));
  } else {
    if (involvedNamespace === '' && e.namespace !== 'default' && e.namespace !== 'kube-system') errs.push(doesNotMatch(e));
    const controller = asString(e.reportingController);
    if (controller === '') errs.push(fieldRequired('reportingController'));
    errs.push(...isQualifiedName(controller).map((msg) => fieldInvalid('reportingController', controller, msg)));
    const instance = asString(e.reportingInstance);
    if (instance === '') errs.push(fieldRequired('reportingInstance'));
    if (instance.length > 128) errs.push(fieldInvalid('reportingInstance', '', 'can have at most 128 characters'));
    const action = asString(e.action);
    if (action === '') errs.push(fieldRequired('action'));
    if (action.length > 128) errs.push(fieldInvalid('action', '', 'can have at most 128 characters'));
    const reason = asString(e.reason);
    if (reason === '') errs.push(fieldRequired('reason'));
    if (reason.length > 128) errs.push(fieldInvalid('reason', '', 'can have at most 128 characters'));
    if (asString(e.message).length > 1024) errs.push(fieldInvalid('message', '', 'can have at most 1024 characters'));
  }
  errs.push(...isDNS1123Subdomain(e.namespace).map((msg) => fieldInvalid('namespace', e.namespace, msg)));
  return errs;
}

function validateSeries(e: InternalEvent): FieldError[] {
  if (!isPresent(e.series)) return [];
  const series = asObject(e.series);
  const errs: FieldError[] = [];
  if ((asNumber(series.count) ?? 0) < 2) errs.push(fieldInvalid('series.count', '', 'should be at least 2'));
  if (!isPresent(series.lastObservedTime)) errs.push(fieldRequired('series.lastObservedTime'));
  return errs;
}

function strictValidateEventCreate(event: Obj, e: InternalEvent): FieldError[] {
  const errs = validateObjectMetaCreate(event.metadata, { namespaced: true, standardFinalizerNames: true });
  errs.push(...validateSeries(e));
  if (!isPresent(e.eventTime)) errs.push(fieldRequired('eventTime'));
  const type = asString(e.type);
  // The shown value is "" and the type is in the detail (sic).
  if (type !== 'Normal' && type !== 'Warning') errs.push(fieldInvalid('type', '', `has invalid value: ${type}`));
  if (isPresent(e.firstTimestamp)) errs.push(fieldInvalid('firstTimestamp', '', 'needs to be unset'));
  if (isPresent(e.lastTimestamp)) errs.push(fieldInvalid('lastTimestamp', '', 'needs to be unset'));
  if ((asNumber(e.count) ?? 0) !== 0) errs.push(fieldInvalid('count', '', 'needs to be unset'));
  const source = asObject(e.source);
  if (asString(source.component) !== '' || asString(source.host) !== '') errs.push(fieldInvalid('source', '', 'needs to be unset'));
  return errs;
}

export function validateEventCreate(event: Obj, eventsAPI: boolean): FieldError[] {
  const e = internalEvent(event, eventsAPI);
  const errs = legacyValidateEvent(e);
  return eventsAPI ? [...errs, ...strictValidateEventCreate(event, e)] : errs;
}

export function validateEventUpdate(event: Obj, old: Obj, eventsAPI: boolean): FieldError[] {
  const e = internalEvent(event, eventsAPI);
  const errs = legacyValidateEvent(e);
  if (!eventsAPI) return errs;
  const o = internalEvent(old, eventsAPI);
  errs.push(...validateObjectMetaUpdate(event.metadata, old.metadata, { standardFinalizerNames: true }));
  if (!semanticEqual(e.series, o.series)) errs.push(...validateSeries(e));
  // The real list checks reason twice; so does this one.
  const immutable: ReadonlyArray<readonly [string, keyof InternalEvent]> = [
    ['involvedObject', 'involvedObject'],
    ['reason', 'reason'],
    ['message', 'message'],
    ['source', 'source'],
    ['firstTimestamp', 'firstTimestamp'],
    ['lastTimestamp', 'lastTimestamp'],
    ['count', 'count'],
    ['reason', 'reason'],
    ['type', 'type'],
    ['eventTime', 'eventTime'],
    ['action', 'action'],
    ['related', 'related'],
    ['reportingController', 'reportingController'],
    ['reportingInstance', 'reportingInstance'],
  ];
  for (const [path, key] of immutable) if (!semanticEqual(e[key], o[key])) errs.push(fieldInvalid(path, immutableValue(e[key]), FIELD_IMMUTABLE));
  return errs;
}

const immutableValue = (v: unknown): unknown => (typeof v === 'string' || typeof v === 'number' ? v : v === undefined || v === null ? 'null' : v);
