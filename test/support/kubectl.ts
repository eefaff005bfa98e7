// kubectl for the tests that drive podops through it, when it is installed: the tests that need it are skipped
// otherwise.

import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

export const kubectlPath = (process.env.PATH ?? '').split(delimiter).map((dir) => join(dir, 'kubectl')).find(isExecutable);

/** `skip` option for node:test when kubectl is missing (the reason is printed by the runner). */
export const skipWithoutKubectl: string | false = kubectlPath ? false : 'kubectl is not installed on this machine';
