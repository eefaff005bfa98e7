// Label selector strings (`?labelSelector=`) as apimachinery's labels.Parse reads them: the same
// lexer and recursive-descent parser, so malformed selectors fail with the real messages, which the
// server returns as 400 BadRequest bodies.

import { goQuote } from '../crd/go-format.ts';
import { badRequestStatus, StatusError } from '../errors.ts';
import { isQualifiedName, isValidLabelValue } from '../validation/names.ts';

/** selection.Operator values. */
export type LabelOperator = 'in' | 'notin' | '=' | '==' | '!=' | 'exists' | '!' | 'gt' | 'lt';

export interface LabelRequirement {
  key: string;
  operator: LabelOperator;
  /** Sorted and without duplicates, as the parser's string set yields them. */
  values: string[];
}

/** A parsed selector: every requirement must hold. `matchesNothing` is labels.Nothing() (a nil LabelSelector). */
export interface LabelSelector {
  requirements: LabelRequirement[];
  matchesNothing: boolean;
}

export const everything = (): LabelSelector => ({ requirements: [], matchesNothing: false });
export const nothing = (): LabelSelector => ({ requirements: [], matchesNothing: true });
export const isEverything = (s: LabelSelector): boolean => !s.matchesNothing && s.requirements.length === 0;

const binaryOperators = ['in', 'notin', '=', '==', '!=', 'gt', 'lt'];

/** A selector that cannot be parsed; `message` is the text the server puts in its 400 body. */
export class LabelSelectorError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'LabelSelectorError';
  }
}

const int64Pattern = /^[+-]?[0-9]+$/;
const isInt64 = (s: string): boolean => int64Pattern.test(s) && BigInt(s) <= 9223372036854775807n && BigInt(s) >= -9223372036854775808n;

/**
 * labels.NewRequirement: validates the key and values and reports like field.ErrorList does (one
 * error alone, several in brackets). Field paths have no root, hence `key`, `values[0][app]`.
 */
export function newRequirement(key: string, operator: LabelOperator, values: string[]): LabelRequirement {
  const errs: string[] = [];
  const keyErrs = isQualifiedName(key);
  if (keyErrs.length > 0) errs.push(`key: Invalid value: ${goQuote(key)}: ${keyErrs.join('; ')}`);
  const list = (v: string[]): string => `[]string{${v.map(goQuote).join(', ')}}`;
  switch (operator) {
    case 'in':
    case 'notin':
      if (values.length === 0) errs.push(`values: Invalid value: ${list(values)}: for 'in', 'notin' operators, values set can't be empty`);
      break;
    case '=':
    case '==':
    case '!=':
      if (values.length !== 1) errs.push(`values: Invalid value: ${list(values)}: exact-match compatibility requires one single value`);
      break;
    case 'exists':
    case '!':
      if (values.length !== 0) errs.push(`values: Invalid value: ${list(values)}: values set must be empty for exists and does not exist`);
      break;
    case 'gt':
    case 'lt':
      if (values.length !== 1) errs.push(`values: Invalid value: ${list(values)}: for 'Gt', 'Lt' operators, exactly one value is required`);
      values.forEach((v, i) => {
        if (!isInt64(v)) errs.push(`values[${i}]: Invalid value: ${goQuote(v)}: for 'Gt', 'Lt' operators, the value must be an integer`);
      });
      break;
  }
  values.forEach((v, i) => {
    const valueErrs = isValidLabelValue(v);
    if (valueErrs.length > 0) errs.push(`values[${i}][${key}]: Invalid value: ${goQuote(v)}: ${valueErrs.join('; ')}`);
  });
  const unique = [...new Set(errs)];
  if (unique.length === 1) throw new LabelSelectorError(unique[0] ?? '');
  if (unique.length > 1) throw new LabelSelectorError(`[${unique.join(', ')}]`);
  return { key, operator, values };
}

type Token =
  | 'error'
  | 'eos'
  | 'closedPar'
  | 'comma'
  | 'doesNotExist'
  | 'doubleEquals'
  | 'equals'
  | 'greaterThan'
  | 'identifier'
  | 'in'
  | 'lessThan'
  | 'notEquals'
  | 'notIn'
  | 'openPar';

const stringToToken: Record<string, Token> = {
  ')': 'closedPar',
  ',': 'comma',
  '!': 'doesNotExist',
  '==': 'doubleEquals',
  '=': 'equals',
  '>': 'greaterThan',
  in: 'in',
  '<': 'lessThan',
  '!=': 'notEquals',
  notin: 'notIn',
  '(': 'openPar',
};

interface Scanned {
  tok: Token;
  literal: string;
}

const isWhitespace = (ch: string): boolean => ch === ' ' || ch === '\t' || ch === '\r' || ch === '\n';
const isSpecialSymbol = (ch: string): boolean => ch.length === 1 && '=!(),><'.includes(ch);

/** The lexer reads bytes; the end of input reads as NUL, as in the Go code. */
function scan(input: string): Scanned[] {
  const bytes = Buffer.from(input, 'utf8');
  let pos = 0;
  const read = (): string => (pos < bytes.length ? String.fromCharCode(bytes[pos++] ?? 0) : '\0');
  const unread = (): void => {
    pos--;
  };
  const items: Scanned[] = [];
  for (;;) {
    let ch = read();
    while (isWhitespace(ch)) ch = read();
    let item: Scanned;
    if (ch === '\0') {
      item = { tok: 'eos', literal: '' };
    } else if (isSpecialSymbol(ch)) {
      unread();
      let buffer = '';
      let last: Scanned | undefined;
      for (;;) {
        const c = read();
        if (c === '\0') break;
        if (!isSpecialSymbol(c)) {
          unread();
          break;
        }
        buffer += c;
        const tok = stringToToken[buffer];
        if (tok) last = { tok, literal: buffer };
        else if (last) {
          unread();
          break;
        }
      }
      item = last ?? { tok: 'error', literal: `error expected: keyword found '${buffer}'` };
    } else {
      unread();
      const start = pos;
      for (;;) {
        const c = read();
        if (c === '\0') break;
        if (isSpecialSymbol(c) || isWhitespace(c)) {
          unread();
          break;
        }
      }
      const word = bytes.subarray(start, pos).toString('utf8');
      item = { tok: stringToToken[word] ?? 'identifier', literal: word };
    }
    items.push(item);
    if (item.tok === 'eos') return items;
  }
}

class Parser {
  private readonly items: Scanned[];
  private position = 0;

  constructor(input: string) {
    this.items = scan(input);
  }

  /** In value context `in` and `notin` are plain identifiers (`x in (in)`). */
  private lookahead(values: boolean): Scanned {
    const item = this.items[this.position] ?? { tok: 'eos', literal: '' };
    return values && (item.tok === 'in' || item.tok === 'notIn') ? { tok: 'identifier', literal: item.literal } : item;
  }

  private consume(values: boolean): Scanned {
    const item = this.lookahead(values);
    this.position++;
    return item;
  }

  parse(): LabelRequirement[] {
    const requirements: LabelRequirement[] = [];
    for (;;) {
      const { tok, literal } = this.lookahead(true);
      if (tok === 'eos') return requirements;
      if (tok !== 'identifier' && tok !== 'doesNotExist') throw new LabelSelectorError(`found '${literal}', expected: !, identifier, or 'end of string'`);
      try {
        requirements.push(this.parseRequirement());
      } catch (e) {
        if (e instanceof LabelSelectorError) throw new LabelSelectorError(`unable to parse requirement: ${e.message}`);
        throw e;
      }
      const next = this.consume(true);
      if (next.tok === 'eos') return requirements;
      if (next.tok !== 'comma') throw new LabelSelectorError(`found '${next.literal}', expected: ',' or 'end of string'`);
      const after = this.lookahead(true);
      if (after.tok !== 'identifier' && after.tok !== 'doesNotExist') throw new LabelSelectorError(`found '${after.literal}', expected: identifier after ','`);
    }
  }

  private parseRequirement(): LabelRequirement {
    let { tok, literal } = this.consume(true);
    let operator: LabelOperator | undefined;
    if (tok === 'doesNotExist') {
      operator = '!';
      ({ tok, literal } = this.consume(true));
    }
    if (tok !== 'identifier') throw new LabelSelectorError(`found '${literal}', expected: identifier`);
    const keyErrs = isQualifiedName(literal);
    if (keyErrs.length > 0) throw new LabelSelectorError(`<nil>: Invalid value: ${goQuote(literal)}: ${keyErrs.join('; ')}`);
    const key = literal;
    const next = this.lookahead(true).tok;
    if (next === 'eos' || next === 'comma') return newRequirement(key, operator ?? 'exists', []);
    if (operator === '!') return newRequirement(key, '!', []);
    const op = this.parseOperator();
    const values = op === 'in' || op === 'notin' ? this.parseValues() : this.parseExactValue();
    return newRequirement(key, op, [...values].sort());
  }

  private parseOperator(): LabelOperator {
    const { tok, literal } = this.consume(false);
    const operators: Partial<Record<Token, LabelOperator>> = {
      in: 'in',
      equals: '=',
      doubleEquals: '==',
      greaterThan: 'gt',
      lessThan: 'lt',
      notIn: 'notin',
      notEquals: '!=',
    };
    const op = operators[tok];
    if (!op) throw new LabelSelectorError(`found '${literal}', expected: ${binaryOperators.join(', ')}`);
    return op;
  }

  private parseValues(): Set<string> {
    const open = this.consume(true);
    if (open.tok !== 'openPar') throw new LabelSelectorError(`found '${open.literal}' expected: '('`);
    const { tok, literal } = this.lookahead(true);
    if (tok === 'identifier' || tok === 'comma') {
      const values = this.parseIdentifiersList();
      if (this.consume(true).tok !== 'closedPar') throw new LabelSelectorError(`found '${literal}', expected: ')'`);
      return values;
    }
    if (tok === 'closedPar') {
      this.consume(true);
      return new Set(['']);
    }
    throw new LabelSelectorError(`found '${literal}', expected: ',', ')' or identifier`);
  }

  private parseIdentifiersList(): Set<string> {
    const values = new Set<string>();
    for (;;) {
      const { tok, literal } = this.consume(true);
      if (tok === 'identifier') {
        values.add(literal);
        const next = this.lookahead(true);
        if (next.tok === 'comma') continue;
        if (next.tok === 'closedPar') return values;
        throw new LabelSelectorError(`found '${next.literal}', expected: ',' or ')'`);
      }
      if (tok === 'comma') {
        if (values.size === 0) values.add('');
        const next = this.lookahead(true).tok;
        if (next === 'closedPar') {
          values.add('');
          return values;
        }
        if (next === 'comma') values.add('');
        continue;
      }
      throw new LabelSelectorError(`found '${literal}', expected: ',', or identifier`);
    }
  }

  private parseExactValue(): Set<string> {
    const ahead = this.lookahead(true).tok;
    if (ahead === 'eos' || ahead === 'comma') return new Set(['']);
    const { tok, literal } = this.consume(true);
    if (tok === 'identifier') return new Set([literal]);
    throw new LabelSelectorError(`found '${literal}', expected: identifier`);
  }
}

const byKey = (a: LabelRequirement, b: LabelRequirement): number => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0);

/** labels.Parse; throws LabelSelectorError with the real server's message. Requirements come sorted by key. */
export function parseLabelSelectorOrThrow(text: string): LabelSelector {
  return { requirements: new Parser(text).parse().sort(byKey), matchesNothing: false };
}

/** The `?labelSelector=` query parameter: a parse failure is a 400 BadRequest with the parser's message. */
export function parseLabelSelector(text: string): LabelSelector {
  try {
    return parseLabelSelectorOrThrow(text);
  } catch (e) {
    if (e instanceof LabelSelectorError) throw new StatusError(badRequestStatus(e.message));
    throw e;
  }
}

export function requirementMatches(r: LabelRequirement, labels: Readonly<Record<string, string>>): boolean {
  const has = Object.prototype.hasOwnProperty.call(labels, r.key);
  const value = has ? labels[r.key] : undefined;
  switch (r.operator) {
    case 'in':
    case '=':
    case '==':
      return value !== undefined && r.values.includes(value);
    case 'notin':
    case '!=':
      return value === undefined || !r.values.includes(value);
    case 'exists':
      return has;
    case '!':
      return !has;
    case 'gt':
    case 'lt': {
      const bound = r.values[0];
      if (value === undefined || r.values.length !== 1 || bound === undefined || !isInt64(value) || !isInt64(bound)) return false;
      return r.operator === 'gt' ? BigInt(value) > BigInt(bound) : BigInt(value) < BigInt(bound);
    }
  }
}

export function matchesLabels(selector: LabelSelector, labels: Readonly<Record<string, string>> | undefined): boolean {
  if (selector.matchesNothing) return false;
  return selector.requirements.every((r) => requirementMatches(r, labels ?? {}));
}

/** Selector.String(): `a=b,c in (x,y),!d`. */
export function formatLabelSelector(selector: LabelSelector): string {
  const symbol: Record<LabelOperator, string> = { '=': '=', '==': '==', '!=': '!=', in: ' in ', notin: ' notin ', gt: '>', lt: '<', exists: '', '!': '' };
  return selector.requirements
    .map((r) => {
      const prefix = r.operator === '!' ? '!' : '';
      if (r.operator === 'exists' || r.operator === '!') return `${prefix}${r.key}`;
      const values = [...r.values].sort().join(',');
      return r.operator === 'in' || r.operator === 'notin' ? `${r.key}${symbol[r.operator]}(${values})` : `${r.key}${symbol[r.operator]}${values}`;
    })
    .join(',');
}
