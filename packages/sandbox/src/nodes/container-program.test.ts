import { test } from 'node:test';
import assert from 'node:assert/strict';
import { containerProgram } from './container-program.ts';
import { normalizeImage, imageID } from './images.ts';
import { crashRequests } from './test-controls.ts';

const program = (command: string[], args: string[] = [], init = false) => containerProgram({ name: 'c', image: 'x', command, args }, 1, init);

test('the container convention: sleep, shell scripts, and everything else', () => {
  assert.deepEqual(program(['sleep', '5']), { runsForMs: 5000, exitCode: 0, ignoresTerm: true, output: [] });
  assert.deepEqual(program(['/bin/sleep'], ['1.5']), { runsForMs: 1500, exitCode: 0, ignoresTerm: true, output: [] });
  assert.deepEqual(program(['sleep', '2m']), { runsForMs: 120_000, exitCode: 0, ignoresTerm: true, output: [] });
  assert.deepEqual(program(['sh', '-c', 'exit 3']), { runsForMs: 0, exitCode: 3, ignoresTerm: true, output: [] });
  assert.deepEqual(program(['/bin/bash', '-ec', 'echo hi; sleep 1 && exit 7']), { runsForMs: 1000, exitCode: 7, ignoresTerm: true, output: [{ atMs: 0, text: 'hi\n' }] });
  assert.deepEqual(program(['sh', '-c', 'false || exit 4']), { runsForMs: 0, exitCode: 4, ignoresTerm: true, output: [] });
  assert.deepEqual(program(['sh', '-c', 'false && exit 4']), { runsForMs: 0, exitCode: 1, ignoresTerm: true, output: [] });
  assert.deepEqual(program(['sh', '-c', 'true\nsleep 2']), { runsForMs: 2000, exitCode: 0, ignoresTerm: true, output: [] });
  assert.deepEqual(program(['sh', '-c', 'exit 300']), { runsForMs: 0, exitCode: 44, ignoresTerm: true, output: [] });
  assert.deepEqual(program(['sleep', 'infinity']), { runsForMs: undefined, exitCode: 0, ignoresTerm: true, output: [] });
  assert.deepEqual(program(['sh', '-c', 'nginx -g "daemon off;"']), { runsForMs: undefined, exitCode: 0, ignoresTerm: true, output: [] });
  assert.deepEqual(program([]), { runsForMs: undefined, exitCode: 0, ignoresTerm: false, output: [] });
  assert.deepEqual(program(['nginx']), { runsForMs: undefined, exitCode: 0, ignoresTerm: false, output: [] });
  assert.deepEqual(program([], [], true), { runsForMs: 0, exitCode: 0, ignoresTerm: false, output: [] }, 'an init container finishes');
  assert.equal(containerProgram({ name: 'c', command: ['sleep', '10'] }, 0.01, false).runsForMs, 100);
});

test('what scripts print, and when: quoting as sh reads it, the environment, redirections', () => {
  const output = (script: string, env: { name: string; value: string }[] = []) =>
    containerProgram({ name: 'c', command: ['sh', '-c', script], env }, 1, false, 'web-0').output;
  assert.deepEqual(output('echo hi; echo -n "a; b"  c; sleep 2; echo done'), [
    { atMs: 0, text: 'hi\n' },
    { atMs: 0, text: 'a; b c' },
    { atMs: 2000, text: 'done\n' },
  ]);
  assert.deepEqual(output(`echo 'x  y' z\\ w "$HOSTNAME" $GREETING "\${UNSET:-fallback}"`, [{ name: 'GREETING', value: 'hello   world' }]), [
    { atMs: 0, text: 'x  y z w web-0 hello world fallback\n' },
  ]);
  assert.deepEqual(output('printf "%s=%03d|%-3s|%x\\n" a 7 b 255 c 8'), [{ atMs: 0, text: 'a=007|b  |ff\nc=008|   |0\n' }]);
  assert.deepEqual(output('echo -e "a\\tb"; echo dropped > /dev/null; echo kept >&2; false; echo $?'), [
    { atMs: 0, text: 'a\tb\n' },
    { atMs: 0, text: 'kept\n' },
    { atMs: 0, text: '1\n' },
  ]);
  // What runs before a command the sandbox cannot run is printed; the container then runs on.
  const blocked = containerProgram({ name: 'c', command: ['sh', '-c', 'echo starting; exec nginx'] }, 1, false);
  assert.deepEqual(blocked, { runsForMs: undefined, exitCode: 0, ignoresTerm: true, output: [{ atMs: 0, text: 'starting\n' }] });
  // The kubelet expands $(VAR) in command and args; sh never sees it.
  assert.deepEqual(containerProgram({ name: 'c', command: ['sh', '-c'], args: ["echo $(MSG) '$$(KEPT)'"], env: [{ name: 'MSG', value: 'hi' }] }, 1, false).output, [
    { atMs: 0, text: 'hi $(KEPT)\n' },
  ]);
  assert.equal(containerProgram({ name: 'c', command: ['sh', '-c', 'echo $(date)'] }, 1, false).runsForMs, undefined, 'command substitution runs a process');
  assert.deepEqual(program(['sh', '-c', 'echo "unterminated']), { runsForMs: 0, exitCode: 2, ignoresTerm: true, output: [] }, 'a syntax error runs nothing');
  assert.deepEqual(program(['sh', '-c', 'set -e; false; echo never']), { runsForMs: 0, exitCode: 1, ignoresTerm: true, output: [] });
  assert.deepEqual(program(['sh', '-c', 'false && echo skipped; echo $?']).output, [{ atMs: 0, text: '1\n' }]);
  assert.equal(containerProgram({ name: 'c', command: ['sh', '-c', 'sleep 10; echo late'] }, 0.01, false).output[0]?.atMs, 100);
});

test('image references as containerd reports them', () => {
  assert.equal(normalizeImage('nginx'), 'docker.io/library/nginx:latest');
  assert.equal(normalizeImage('nginx:1.27'), 'docker.io/library/nginx:1.27');
  assert.equal(normalizeImage('bitnami/redis:7'), 'docker.io/bitnami/redis:7');
  assert.equal(normalizeImage('registry.k8s.io/pause:3.10'), 'registry.k8s.io/pause:3.10');
  assert.equal(normalizeImage('localhost:5000/app'), 'localhost:5000/app:latest');
  assert.equal(normalizeImage('nginx@sha256:abc'), 'docker.io/library/nginx@sha256:abc');
  assert.match(imageID('docker.io/library/nginx:1.27'), /^docker\.io\/library\/nginx@sha256:[0-9a-f]{64}$/);
  assert.notEqual(imageID('docker.io/library/nginx:1.27'), imageID('docker.io/library/nginx:1.28'));
});

test('the crash control: names, counts and *', () => {
  const pod = (value: string) => ({ metadata: { annotations: { 'sandbox.podops.io/crash': value } } });
  assert.deepEqual([...crashRequests(pod('c'), ['c', 'd'])], [['c', 1]]);
  assert.deepEqual([...crashRequests(pod('c=3, d'), ['c', 'd'])], [['c', 3], ['d', 1]]);
  assert.deepEqual([...crashRequests(pod('*=2'), ['c', 'd'])], [['c', 2], ['d', 2]]);
  assert.deepEqual([...crashRequests(pod('c=x'), ['c'])], []);
});
