import { test } from 'node:test';
import assert from 'node:assert/strict';
import { echo, printf } from './shell-builtins.ts';
import { parseScript } from './shell-parse.ts';

test('echo: spaces between arguments, a newline unless -n, escapes only with -e', () => {
  assert.deepEqual(echo(['a', 'b']), { text: 'a b\n', status: 0 });
  assert.deepEqual(echo(['-n', 'a']), { text: 'a', status: 0 });
  assert.deepEqual(echo(['a\\tb']), { text: 'a\\tb\n', status: 0 });
  assert.deepEqual(echo(['-e', 'a\\tb\\0101']), { text: 'a\tbA\n', status: 0 });
  assert.deepEqual(echo(['-e', 'cut\\chere']), { text: 'cut', status: 0 }, '\\c ends the output, newline included');
  assert.deepEqual(echo(['-x']), { text: '-x\n', status: 0 });
  assert.deepEqual(echo([]), { text: '\n', status: 0 });
});

test('printf: conversions, flags, widths, the format reused for the remaining arguments', () => {
  assert.equal(printf(['%s|%5s|%-5s|%.2s\\n', 'a', 'b', 'c', 'long']).text, 'a|    b|c    |lo\n');
  assert.equal(printf(['%d %i %+d % d %05d %x %X %o %#x %c %%\\n', '42', '-7', '3', '3', '-42', '255', '255', '8', '255', 'xyz']).text, '42 -7 +3  3 -0042 ff FF 10 0xff x %\n');
  assert.equal(printf(['%.3f %e %g\\n', '3.14159', '1234.5', '0.0001']).text, '3.142 1.234500e+03 0.0001\n');
  assert.equal(printf(['%s-', 'a', 'b', 'c']).text, 'a-b-c-');
  assert.equal(printf(['%*d|\\n', '4', '7']).text, '   7|\n');
  assert.equal(printf(['%b', 'x\\ny']).text, 'x\ny');
  assert.equal(printf(["%d %d\\n", "'A", '0x10']).text, '65 16\n');
  assert.deepEqual(printf(['%d\\n', 'ten']), { text: '0\n', status: 1 }, 'an invalid number prints 0 and fails');
  assert.equal(printf(['no args\\n']).text, 'no args\n');
});

test('scripts parse as sh reads them: quotes, escapes, comments, operators; what cannot run is unsupported', () => {
  const script = parseScript(`echo "a;b" 'c d' e\\ f # comment\nX=1 && echo $X || :`);
  assert.equal(script.kind, 'script');
  if (script.kind !== 'script') return;
  assert.equal(script.lists.length, 2);
  assert.deepEqual(script.lists[1]?.map((c) => c.op), [undefined, '&&', '||']);
  for (const unsupported of ['cat file | grep x', 'sleep 1 &', '(echo a)', 'if true; then echo a; fi', 'cat <<EOF\nx\nEOF', 'echo `date`']) {
    const parsed = parseScript(unsupported);
    assert.ok(parsed.kind === 'script' && parsed.lists[0]?.[0]?.command.kind === 'unsupported', unsupported);
  }
  for (const broken of ['echo "open', "echo 'open", '&& echo', '; echo']) assert.equal(parseScript(broken).kind, 'syntax-error', broken);
});
