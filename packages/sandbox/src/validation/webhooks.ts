// admissionregistration.k8s.io/v1 Mutating- and ValidatingWebhookConfiguration.

import { goQuote } from '../crd/go-format.ts';
import { fieldDuplicate, fieldInvalid, fieldNotSupported, fieldRequired, type FieldError } from '../errors.ts';
import { validateLabelSelector } from '../selectors/label-selector.ts';
import { fieldTooMany } from './field-errors.ts';
import { goLiteral, goStringSliceText } from './golang.ts';
import { asArray, asNumber, asObject, asString, isPresent, objectList } from './json.ts';
import { validateObjectMetaCreate } from './meta.ts';
import { isDNS1035Label, isDNS1123Subdomain, isFullyQualifiedName, isQualifiedName, isValidPortNum } from './names.ts';

type Obj = Record<string, unknown>;
type WebhookKind = 'mutating' | 'validating';

const acceptedReviewVersions = ['v1', 'v1beta1'];
const noSideEffectClasses = ['None', 'NoneOnDryRun'];
const allSideEffectClasses = ['None', 'NoneOnDryRun', 'Some', 'Unknown'];
const operations = ['*', 'CONNECT', 'CREATE', 'DELETE', 'UPDATE'];
const scopes = ['*', 'Cluster', 'Namespaced'];

interface Options {
  requireNoSideEffects: boolean;
  requireRecognizedAdmissionReviewVersion: boolean;
  requireUniqueWebhookNames: boolean;
  allowInvalidLabelValueInSelector: boolean;
}

const listLiteral = (values: string[]): unknown => goLiteral(goStringSliceText(values));

function validateResources(resources: string[], path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (resources.length === 0) errs.push(fieldRequired(path));
  const withWildcardSub = new Set<string>();
  const subWithWildcardRes = new Set<string>();
  let doubleWildcard = false;
  let singleWildcard = false;
  let withoutSub = false;
  resources.forEach((resSub, i) => {
    if (resSub === '') {
      errs.push(fieldRequired(`${path}[${i}]`));
      return;
    }
    if (resSub === '*/*') doubleWildcard = true;
    if (resSub === '*') singleWildcard = true;
    const slash = resSub.indexOf('/');
    if (slash < 0) {
      withoutSub = resSub !== '*';
      return;
    }
    const res = resSub.slice(0, slash);
    const sub = resSub.slice(slash + 1);
    if (withWildcardSub.has(res)) errs.push(fieldInvalid(`${path}[${i}]`, resSub, `if '${res}/*' is present, must not specify ${resSub}`));
    if (subWithWildcardRes.has(sub)) errs.push(fieldInvalid(`${path}[${i}]`, resSub, `if '*/${sub}' is present, must not specify ${resSub}`));
    if (sub === '*') withWildcardSub.add(res);
    if (res === '*') subWithWildcardRes.add(sub);
  });
  if (resources.length > 1 && doubleWildcard) errs.push(fieldInvalid(path, listLiteral(resources), "if '*/*' is present, must not specify other resources"));
  if (singleWildcard && withoutSub) errs.push(fieldInvalid(path, listLiteral(resources), "if '*' is present, must not specify other resources without subresources"));
  return errs;
}

export function validateRuleWithOperations(rule: Obj, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const ops = asArray(rule.operations).map(asString);
  if (ops.length === 0) errs.push(fieldRequired(`${path}.operations`));
  if (ops.length > 1 && ops.includes('*'))
    errs.push(fieldInvalid(`${path}.operations`, goLiteral(`[]admissionregistration.OperationType{${ops.map(goQuote).join(', ')}}`), "if '*' is present, must not specify other operations"));
  ops.forEach((op, i) => !operations.includes(op) && errs.push(fieldNotSupported(`${path}.operations[${i}]`, op, operations)));
  const groups = asArray(rule.apiGroups).map(asString);
  if (groups.length === 0) errs.push(fieldRequired(`${path}.apiGroups`));
  if (groups.length > 1 && groups.includes('*')) errs.push(fieldInvalid(`${path}.apiGroups`, listLiteral(groups), "if '*' is present, must not specify other API groups"));
  const versions = asArray(rule.apiVersions).map(asString);
  if (versions.length === 0) errs.push(fieldRequired(`${path}.apiVersions`));
  if (versions.length > 1 && versions.includes('*')) errs.push(fieldInvalid(`${path}.apiVersions`, listLiteral(versions), "if '*' is present, must not specify other API versions"));
  versions.forEach((v, i) => v === '' && errs.push(fieldRequired(`${path}.apiVersions[${i}]`)));
  errs.push(...validateResources(asArray(rule.resources).map(asString), `${path}.resources`));
  if (isPresent(rule.scope) && !scopes.includes(asString(rule.scope))) errs.push(fieldNotSupported(`${path}.scope`, asString(rule.scope), scopes));
  return errs;
}

/** url.Parse as far as the webhook checks need it: scheme, userinfo, host, query and fragment. */
function parseURL(raw: string): { scheme: string; user: string | undefined; host: string; query: string; fragment: string } | string {
  const hash = raw.indexOf('#');
  const fragment = hash < 0 ? '' : raw.slice(hash + 1);
  let rest = hash < 0 ? raw : raw.slice(0, hash);
  const schemeMatch = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(rest);
  if (!schemeMatch) {
    if (rest.startsWith(':')) return 'missing protocol scheme';
    const colon = rest.indexOf(':');
    const slash = rest.indexOf('/');
    if (colon >= 0 && (slash < 0 || colon < slash)) return 'first path segment in URL cannot contain colon';
  }
  const scheme = schemeMatch ? (schemeMatch[1] ?? '').toLowerCase() : '';
  if (schemeMatch) rest = rest.slice(schemeMatch[0].length);
  const q = rest.indexOf('?');
  const query = q < 0 ? '' : rest.slice(q + 1);
  if (q >= 0) rest = rest.slice(0, q);
  if (!rest.startsWith('//')) return { scheme, user: undefined, host: '', query, fragment };
  const authority = rest.slice(2).split('/')[0] ?? '';
  const at = authority.lastIndexOf('@');
  return { scheme, user: at < 0 ? undefined : authority.slice(0, at), host: at < 0 ? authority : authority.slice(at + 1), query, fragment };
}

function validateWebhookURL(url: string, path: string): FieldError[] {
  const form = '; desired format: https://host[/path]';
  const u = parseURL(url);
  if (typeof u === 'string') return [fieldRequired(path, `url must be a valid URL: parse ${goQuote(url)}: ${u}${form}`)];
  const errs: FieldError[] = [];
  if (u.scheme !== 'https') errs.push(fieldInvalid(path, u.scheme, `'https' is the only allowed URL scheme${form}`));
  if (u.host === '') errs.push(fieldInvalid(path, u.host, `host must be specified${form}`));
  if (u.user !== undefined) errs.push(fieldInvalid(path, u.user, 'user information is not permitted in the URL'));
  if (u.fragment !== '') errs.push(fieldInvalid(path, u.fragment, 'fragments are not permitted in the URL'));
  if (u.query !== '') errs.push(fieldInvalid(path, u.query, 'query parameters are not permitted in the URL'));
  return errs;
}

/**
 * ValidateWebhookService. The real server passes the service name where the function expects the
 * namespace and the reverse, so a missing name is reported at `service.namespace` (sic).
 */
function validateWebhookService(service: Obj, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (asString(service.name) === '') errs.push(fieldRequired(`${path}.namespace`));
  if (asString(service.namespace) === '') errs.push(fieldRequired(`${path}.name`));
  const port = asNumber(service.port) ?? 0;
  const portErrs = isValidPortNum(port);
  if (portErrs.length > 0) errs.push(fieldInvalid(`${path}.port`, port, `port is not valid: ${portErrs.join(', ')}`));
  if (!isPresent(service.path)) return errs;
  const urlPath = asString(service.path);
  if (urlPath === '/' || urlPath === '') return errs;
  if (urlPath === '//') return [...errs, fieldInvalid(`${path}.path`, urlPath, 'segment[0] may not be empty')];
  if (!urlPath.startsWith('/')) errs.push(fieldInvalid(`${path}.path`, urlPath, "must start with a '/'"));
  let check = urlPath.slice(1);
  if (check.endsWith('/')) check = check.slice(0, -1);
  check.split('/').forEach((step, i) => {
    if (step === '') errs.push(fieldInvalid(`${path}.path`, urlPath, `segment[${i}] may not be empty`));
    else for (const failure of isDNS1123Subdomain(step)) errs.push(fieldInvalid(`${path}.path`, urlPath, `segment[${i}]: ${failure}`));
  });
  return errs;
}

export function validateMatchConditions(conditions: unknown, path: string): FieldError[] {
  const list = objectList(conditions);
  const errs: FieldError[] = list.length > 64 ? [fieldTooMany(path, list.length, 64)] : [];
  const names = new Set<string>();
  list.forEach((mc, i) => {
    const p = `${path}[${i}]`;
    if (asString(mc.expression).trim() === '') errs.push(fieldRequired(`${p}.expression`));
    const name = asString(mc.name);
    if (name === '') errs.push(fieldRequired(`${p}.name`));
    else errs.push(...isQualifiedName(name).map((msg) => fieldInvalid(`${p}.name`, name, msg)));
    if (name !== '') {
      if (names.has(name)) errs.push(fieldDuplicate(`${p}.name`, name));
      names.add(name);
    }
  });
  return errs;
}

function validateWebhook(hook: Obj, kind: WebhookKind, opts: Options, path: string): FieldError[] {
  const errs = isFullyQualifiedName(`${path}.name`, asString(hook.name));
  objectList(hook.rules).forEach((rule, i) => errs.push(...validateRuleWithOperations(rule, `${path}.rules[${i}]`)));
  if (isPresent(hook.failurePolicy) && !['Fail', 'Ignore'].includes(asString(hook.failurePolicy)))
    errs.push(fieldNotSupported(`${path}.failurePolicy`, asString(hook.failurePolicy), ['Fail', 'Ignore']));
  if (isPresent(hook.matchPolicy) && !['Equivalent', 'Exact'].includes(asString(hook.matchPolicy)))
    errs.push(fieldNotSupported(`${path}.matchPolicy`, asString(hook.matchPolicy), ['Equivalent', 'Exact']));
  const allowedSideEffects = opts.requireNoSideEffects ? noSideEffectClasses : allSideEffectClasses;
  if (!isPresent(hook.sideEffects)) errs.push(fieldRequired(`${path}.sideEffects`, `must specify one of ${allowedSideEffects.join(', ')}`));
  else if (!allowedSideEffects.includes(asString(hook.sideEffects)))
    errs.push(fieldNotSupported(`${path}.sideEffects`, asString(hook.sideEffects), allowedSideEffects));
  const timeout = asNumber(hook.timeoutSeconds);
  if (timeout !== undefined && (timeout > 30 || timeout < 1)) errs.push(fieldInvalid(`${path}.timeoutSeconds`, timeout, 'the timeout value must be between 1 and 30 seconds'));
  const selectorOpts = { allowInvalidLabelValueInSelector: opts.allowInvalidLabelValueInSelector };
  errs.push(...validateLabelSelector(hook.namespaceSelector, `${path}.namespaceSelector`, selectorOpts));
  errs.push(...validateLabelSelector(hook.objectSelector, `${path}.objectSelector`, selectorOpts));
  if (kind === 'mutating' && isPresent(hook.reinvocationPolicy) && !['IfNeeded', 'Never'].includes(asString(hook.reinvocationPolicy)))
    errs.push(fieldNotSupported(`${path}.reinvocationPolicy`, asString(hook.reinvocationPolicy), ['IfNeeded', 'Never']));
  const cc = asObject(hook.clientConfig);
  if (isPresent(cc.url) === isPresent(cc.service)) errs.push(fieldRequired(`${path}.clientConfig`, 'exactly one of url or service is required'));
  else if (isPresent(cc.url)) errs.push(...validateWebhookURL(asString(cc.url), `${path}.clientConfig.url`));
  else errs.push(...validateWebhookService(asObject(cc.service), `${path}.clientConfig.service`));
  errs.push(...validateMatchConditions(hook.matchConditions, `${path}.matchConditions`));
  return errs;
}

function validateAdmissionReviewVersions(versions: string[], requireRecognized: boolean, path: string): FieldError[] {
  if (versions.length === 0) return [fieldRequired(path, `must specify one of ${acceptedReviewVersions.join(', ')}`)];
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  versions.forEach((v, i) => {
    if (seen.has(v)) {
      errs.push(fieldInvalid(`${path}[${i}]`, v, 'duplicate version'));
      return;
    }
    seen.add(v);
    errs.push(...isDNS1035Label(v).map((msg) => fieldInvalid(`${path}[${i}]`, v, msg)));
  });
  if (requireRecognized && !versions.some((v) => acceptedReviewVersions.includes(v)))
    errs.push(fieldInvalid(path, listLiteral(versions), `must include at least one of ${acceptedReviewVersions.join(', ')}`));
  return errs;
}

function validateConfiguration(config: Obj, kind: WebhookKind, opts: Options): FieldError[] {
  const errs = validateObjectMetaCreate(config.metadata, { namespaced: false });
  const names = new Set<string>();
  objectList(config.webhooks).forEach((hook, i) => {
    const p = `webhooks[${i}]`;
    errs.push(...validateWebhook(hook, kind, opts, p));
    errs.push(...validateAdmissionReviewVersions(asArray(hook.admissionReviewVersions).map(asString), opts.requireRecognizedAdmissionReviewVersion, `${p}.admissionReviewVersions`));
    const name = asString(hook.name);
    if (opts.requireUniqueWebhookNames && name !== '') {
      if (names.has(name)) errs.push(fieldDuplicate(`${p}.name`, name));
      names.add(name);
    }
  });
  return errs;
}

const createOptions: Options = {
  requireNoSideEffects: true,
  requireRecognizedAdmissionReviewVersion: true,
  requireUniqueWebhookNames: true,
  allowInvalidLabelValueInSelector: false,
};

export const validateWebhookConfiguration = (config: Obj, kind: WebhookKind): FieldError[] => validateConfiguration(config, kind, createOptions);

/** On update, rules the old object already broke are tolerated, so stored objects stay editable. */
export function validateWebhookConfigurationUpdate(config: Obj, old: Obj, kind: WebhookKind): FieldError[] {
  const oldHooks = objectList(old.webhooks);
  const oldNames = oldHooks.map((h) => asString(h.name));
  return validateConfiguration(config, kind, {
    requireNoSideEffects: oldHooks.every((h) => noSideEffectClasses.includes(asString(h.sideEffects))),
    requireRecognizedAdmissionReviewVersion: oldHooks.every((h) => {
      const versions = asArray(h.admissionReviewVersions).map(asString);
      return versions.length === 0 || versions.some((v) => acceptedReviewVersions.includes(v));
    }),
    requireUniqueWebhookNames: new Set(oldNames).size === oldNames.length,
    allowInvalidLabelValueInSelector: oldHooks.some(
      (h) => validateLabelSelector(h.namespaceSelector, '').length > 0 || validateLabelSelector(h.objectSelector, '').length > 0,
    ),
  });
}
