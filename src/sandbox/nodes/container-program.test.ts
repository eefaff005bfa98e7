import { test } from 'node:test';
import assert from 'node:assert/strict';
import { containerProgram } from './container-program.ts';
import { normalizeImage, imageID } from './images.ts';
import { crashRequests } from './test-controls.ts';

const program = (command: string[], args: string[] = [], init = false) => containerProgram({ name: 'c', image: 'x', command, args }, 1, init);

test('the container convention: sleep, shell scripts, and everything else', () => {
  assert.deepEqual(program(['sleep', '5']), { runsForMs: 5000, exitCode: 0, ignoresTerm: true });
  assert.deepEqual(program(['/bin/sleep'], ['1.5']), { runsForMs: 1500, exitCode: 0, ignoresTerm: true });
  assert.deepEqual(program(['sleep', '2m']), { runsForMs: 120_000, exitCode: 0, ignoresTerm: true });
  assert.deepEqual(program(['sh', '-c', 'exit 3']), { runsForMs: 0, exitCode: 3, ignoresTerm: true });
  assert.deepEqual(program(['/bin/bash', '-ec', 'echo hi; sleep 1 && exit 7']), { runsForMs: 1000, exitCode: 7, ignoresTerm: true });
  assert.deepEqual(program(['sh', '-c', 'false || exit 4']), { runsForMs: 0, exitCode: 4, ignoresTerm: true });
  assert.deepEqual(program(['sh', '-c', 'false && exit 4']), { runsForMs: 0, exitCode: 1, ignoresTerm: true });
  assert.deepEqual(program(['sh', '-c', 'true\nsleep 2']), { runsForMs: 2000, exitCode: 0, ignoresTerm: true });
  assert.deepEqual(program(['sh', '-c', 'exit 300']), { runsForMs: 0, exitCode: 44, ignoresTerm: true });
  assert.deepEqual(program(['sleep', 'infinity']), { runsForMs: undefined, exitCode: 0, ignoresTerm: true });
  assert.deepEqual(program(['sh', '-c', 'nginx -g "daemon off;"']), { runsForMs: undefined, exitCode: 0, ignoresTerm: true });
  assert.deepEqual(program([]), { runsForMs: undefined, exitCode: 0, ignoresTerm: false });
  assert.deepEqual(program(['nginx']), { runsForMs: undefined, exitCode: 0, ignoresTerm: false });
  assert.deepEqual(program([], [], true), { runsForMs: 0, exitCode: 0, ignoresTerm: false }, 'an init container finishes');
  assert.equal(containerProgram({ name: 'c', command: ['sleep', '10'] }, 0.01, false).runsForMs, 100);
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
