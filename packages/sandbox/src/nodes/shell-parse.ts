// The syntax of a container's `sh -c SCRIPT`, as a POSIX shell reads it: quoting (single quotes,
// double quotes with their four escapes, backslashes), comments, parameter expansions, redirections,
// and lists of commands joined by `;`, newlines, `&&` and `||`. What the simulated containers cannot
// run (pipes, background jobs, subshells, compound commands, command substitution, here-documents)
// parses to an unsupported command, which the interpreter treats as a process that never ends.

export type WordPart =
  | { kind: 'text'; text: string; quoted: boolean }
  /** `$NAME`, `${NAME}`, `${NAME:-word}`…, `${#NAME}`; `$?`, `$1`… are names too. */
  | { kind: 'param'; name: string; op: ParamOp; arg: WordPart[]; quoted: boolean };

export type ParamOp = '' | ':-' | '-' | ':+' | '+' | 'length';

export type Word = WordPart[];

export interface Redirect {
  /** The file descriptor redirected (1 unless the operator names another). */
  fd: number;
  op: '>' | '>>' | '>|' | '<' | '<>' | '>&' | '<&' | '&>';
  target: Word;
}

export type Command = { kind: 'simple'; words: Word[]; redirects: Redirect[] } | { kind: 'unsupported' };

/** One AND-OR list: commands joined by `&&` and `||` (`op` joins a command to the one before it). */
export type AndOrList = { op: '&&' | '||' | undefined; command: Command }[];

export type Script = { kind: 'script'; lists: AndOrList[] } | { kind: 'syntax-error' };

const reservedWords = new Set(['if', 'then', 'else', 'elif', 'fi', 'do', 'done', 'case', 'esac', 'while', 'until', 'for', '{', '}', '!', 'in', 'function', '[[', ']]']);
const specialParams = new Set(['?', '$', '#', '@', '*', '!', '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9']);
const isNameStart = (c: string | undefined): boolean => c !== undefined && /[A-Za-z_]/.test(c);
const isNameChar = (c: string | undefined): boolean => c !== undefined && /[A-Za-z0-9_]/.test(c);

type Token = { kind: 'word'; word: Word; unsupported: boolean } | { kind: 'op'; op: string } | { kind: 'io'; fd: number; op: Redirect['op'] };

class SyntaxError extends Error {}

/** Splits a script into words and operators, as the shell's token recognition does. */
function tokenize(script: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  let parts: WordPart[] | undefined;
  let unsupported = false;
  const text = (s: string, quoted: boolean): void => {
    parts ??= [];
    const last = parts[parts.length - 1];
    if (last?.kind === 'text' && last.quoted === quoted) last.text += s;
    else parts.push({ kind: 'text', text: s, quoted });
  };
  const endWord = (): void => {
    if (parts) tokens.push({ kind: 'word', word: parts, unsupported });
    parts = undefined;
    unsupported = false;
  };

  /** `$…` at `i` (which points at the `$`); returns the part, or marks the word unsupported. */
  const dollar = (quoted: boolean): void => {
    const next = script[i + 1];
    if (next === '(') {
      // Command substitution or arithmetic: skip to the matching parenthesis.
      let depth = 0;
      for (i++; i < script.length; i++) {
        if (script[i] === '(') depth++;
        else if (script[i] === ')' && --depth === 0) break;
      }
      if (i >= script.length) throw new SyntaxError();
      i++;
      parts ??= [];
      unsupported = true;
      return;
    }
    if (next === '{') {
      const close = script.indexOf('}', i + 2);
      if (close < 0) throw new SyntaxError();
      const body = script.slice(i + 2, close);
      i = close + 1;
      parts ??= [];
      const param = bracedParam(body, quoted);
      if (param) parts.push(param);
      else unsupported = true;
      return;
    }
    if (isNameStart(next)) {
      let end = i + 1;
      while (isNameChar(script[end])) end++;
      (parts ??= []).push({ kind: 'param', name: script.slice(i + 1, end), op: '', arg: [], quoted });
      i = end;
      return;
    }
    if (next !== undefined && specialParams.has(next)) {
      (parts ??= []).push({ kind: 'param', name: next, op: '', arg: [], quoted });
      i += 2;
      return;
    }
    text('$', quoted);
    i++;
  };

  /** A command substitution in backquotes, at `i`. */
  const backtick = (): void => {
    const close = script.indexOf('`', i + 1);
    if (close < 0) throw new SyntaxError();
    i = close + 1;
    parts ??= [];
    unsupported = true;
  };

  while (i < script.length) {
    const c = script[i] as string;
    if (c === '\\') {
      if (script[i + 1] === '\n') i += 2;
      else {
        if (i + 1 < script.length) text(script[i + 1] as string, true);
        i += 2;
      }
      continue;
    }
    if (c === "'") {
      const close = script.indexOf("'", i + 1);
      if (close < 0) throw new SyntaxError();
      text(script.slice(i + 1, close), true);
      i = close + 1;
      continue;
    }
    if (c === '"') {
      parts ??= [];
      text('', true);
      for (i++; ; ) {
        if (i >= script.length) throw new SyntaxError();
        const d = script[i] as string;
        if (d === '"') {
          i++;
          break;
        }
        if (d === '\\' && '$`"\\\n'.includes(script[i + 1] ?? '')) {
          if (script[i + 1] !== '\n') text(script[i + 1] as string, true);
          i += 2;
        } else if (d === '$') dollar(true);
        else if (d === '`') backtick();
        else {
          text(d, true);
          i++;
        }
      }
      continue;
    }
    if (c === '$') {
      dollar(false);
      continue;
    }
    if (c === '`') {
      backtick();
      continue;
    }
    if (c === '#' && !parts) {
      while (i < script.length && script[i] !== '\n') i++;
      continue;
    }
    if (c === ' ' || c === '\t') {
      endWord();
      i++;
      continue;
    }
    if (c === '<' || c === '>') {
      // Digits right before the operator name the file descriptor.
      let fd = c === '<' ? 0 : 1;
      if (parts?.length === 1 && parts[0]?.kind === 'text' && !parts[0].quoted && /^\d+$/.test(parts[0].text)) {
        fd = Number(parts[0].text);
        parts = undefined;
      } else endWord();
      const two = script.slice(i, i + 2);
      if (two === '<<') {
        // A here-document: what follows is its text, and the command reading it is unsupported anyway.
        tokens.push({ kind: 'op', op: '<<' });
        return tokens;
      }
      const op = (['>>', '>|', '<>', '>&', '<&'].includes(two) ? two : c) as Redirect['op'];
      tokens.push({ kind: 'io', fd, op });
      i += op.length;
      continue;
    }
    if (!';&|()\n'.includes(c)) {
      text(c, false);
      i++;
      continue;
    }
    endWord();
    const two = script.slice(i, i + 2);
    if (two === '&&' || two === '||' || two === ';;' || two === '&>') {
      if (two === '&>') tokens.push({ kind: 'io', fd: 1, op: '&>' });
      else tokens.push({ kind: 'op', op: two });
      i += 2;
    } else {
      tokens.push({ kind: 'op', op: c });
      i++;
    }
  }
  endWord();
  return tokens;
}

/** The inside of `${…}`: a name and an optional `:-`, `-`, `:+`, `+` word, or `#name`. */
function bracedParam(body: string, quoted: boolean): WordPart | undefined {
  const length = /^#([A-Za-z_][A-Za-z0-9_]*|[0-9?$#])$/.exec(body);
  if (length) return { kind: 'param', name: length[1] as string, op: 'length', arg: [], quoted };
  const match = /^([A-Za-z_][A-Za-z0-9_]*|[0-9?$#@*])(?:(:-|-|:\+|\+)(.*))?$/s.exec(body);
  if (!match) return undefined;
  const op = (match[2] ?? '') as ParamOp;
  let arg: WordPart[] = [];
  if (match[3]) {
    const tokens = tokenize(match[3]);
    const words = tokens.filter((t): t is Extract<Token, { kind: 'word' }> => t.kind === 'word');
    if (tokens.length !== words.length || words.some((w) => w.unsupported)) return undefined;
    // Words of the argument are joined by one space, as they would be after field splitting.
    arg = words.flatMap((w, n) => (n ? [{ kind: 'text' as const, text: ' ', quoted }, ...w.word] : w.word));
  }
  return { kind: 'param', name: match[1] as string, op, arg, quoted };
}

/** A word exactly as written when it is plain unquoted text (reserved words are recognized so). */
const plainText = (word: Word): string | undefined =>
  word.length === 1 && word[0]?.kind === 'text' && !word[0].quoted ? word[0].text : undefined;

/** Parses a whole script; a script the shell could not parse runs nothing (`syntax-error`). */
export function parseScript(script: string): Script {
  let tokens: Token[];
  try {
    tokens = tokenize(script);
  } catch (err) {
    if (err instanceof SyntaxError) return { kind: 'syntax-error' };
    throw err;
  }
  const lists: AndOrList[] = [];
  let list: AndOrList = [];
  let pendingOp: '&&' | '||' | undefined;
  let command: { words: Word[]; redirects: Redirect[]; unsupported: boolean } | undefined;
  const finishCommand = (): boolean => {
    if (!command) return false;
    const first = command.words[0] ? plainText(command.words[0]) : undefined;
    const unsupported = command.unsupported || (first !== undefined && reservedWords.has(first));
    list.push({ op: pendingOp, command: unsupported ? { kind: 'unsupported' } : { kind: 'simple', words: command.words, redirects: command.redirects } });
    pendingOp = undefined;
    command = undefined;
    return true;
  };
  for (let t = 0; t < tokens.length; t++) {
    const token = tokens[t] as Token;
    if (token.kind === 'word') {
      command ??= { words: [], redirects: [], unsupported: false };
      command.words.push(token.word);
      if (token.unsupported) command.unsupported = true;
      continue;
    }
    if (token.kind === 'io') {
      const target = tokens[t + 1];
      if (target?.kind !== 'word') return { kind: 'syntax-error' };
      command ??= { words: [], redirects: [], unsupported: false };
      command.redirects.push({ fd: token.fd, op: token.op, target: target.word });
      if (target.unsupported) command.unsupported = true;
      t++;
      continue;
    }
    switch (token.op) {
      case '&&':
      case '||':
        if (!finishCommand()) return { kind: 'syntax-error' };
        pendingOp = token.op;
        break;
      case '\n':
        // A newline after `&&`/`||` continues the list; elsewhere it ends it.
        if (pendingOp && !command) break;
        if (finishCommand() || list.length) {
          lists.push(list);
          list = [];
        }
        break;
      case ';':
        if (!finishCommand()) return { kind: 'syntax-error' };
        lists.push(list);
        list = [];
        break;
      case '|':
      case '&':
        // A pipeline or a background job: the shell runs processes the sandbox does not have.
        if (!command && token.op === '|') return { kind: 'syntax-error' };
        command ??= { words: [], redirects: [], unsupported: false };
        command.unsupported = true;
        if (token.op === '&') {
          finishCommand();
          lists.push(list);
          list = [];
        }
        break;
      default:
        // `(`, `)`, `;;`, `<<`: subshells, groups, case clauses and here-documents.
        command ??= { words: [], redirects: [], unsupported: false };
        command.unsupported = true;
    }
  }
  if (pendingOp && !command) return { kind: 'syntax-error' };
  finishCommand();
  if (list.length) lists.push(list);
  return { kind: 'script', lists };
}
