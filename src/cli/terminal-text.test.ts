import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { test } from 'node:test';
import { terminalSafe, terminalSafeStream } from './terminal-text.ts';

test('control characters are shown escaped; text, tabs, newlines and other scripts are left alone', () => {
  assert.equal(terminalSafe('\u001b]2;title\u0007\u001b[2J'), '\\u001b]2;title\\u0007\\u001b[2J');
  assert.equal(terminalSafe('hidden\rshown'), 'hidden\\rshown');
  assert.equal(terminalSafe('\u009b31m \u007f \u0000'), '\\u009b31m \\u007f \\u0000');
  assert.equal(terminalSafe('abc\u202edef\u2066'), 'abc\\u202edef\\u2066');
  assert.equal(terminalSafe('web-0\tPreCheck\nnaïve 日本 ✓'), 'web-0\tPreCheck\nnaïve 日本 ✓');
});

test('a filtered stream: strings and bytes (a character split across writes included), end with a chunk, the rest its own', () => {
  const target = new PassThrough();
  let out = '';
  target.setEncoding('utf8');
  target.on('data', (chunk: string) => (out += chunk));
  const safe = terminalSafeStream(target);
  safe.write('a\u001b[2J ');
  const bytes = Buffer.from('é\u001b');
  safe.write(bytes.subarray(0, 1));
  safe.write(bytes.subarray(1));
  assert.equal(safe.writable, true, 'other members are the stream’s');
  safe.end('\r\n');
  assert.equal(out, 'a\\u001b[2J é\\u001b\\r\n');
});
