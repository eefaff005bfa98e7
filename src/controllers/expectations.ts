// Resource-version expectations: after writing an object, skip reconciles of it until the cache has caught
// up with that write (upstream's ResourceVersionExpectation), so a stale cache never causes a second,
// conflicting write. Resource versions are compared as integers (etcd's are); otherwise only equality counts.

import { olderResourceVersion } from '../kube/informer.ts';

export class ResourceVersionExpectations {
  readonly #expected = new Map<string, string>();

  expect(key: string, resourceVersion: string | undefined): void {
    if (resourceVersion) this.#expected.set(key, resourceVersion);
  }

  forget(key: string): void {
    this.#expected.delete(key);
  }

  /** The cached version is at least the one we wrote (then the expectation is dropped). */
  satisfied(key: string, cached: string | undefined): boolean {
    const expected = this.#expected.get(key);
    if (expected === undefined || cached === undefined) return true;
    const behind = olderResourceVersion(cached, expected);
    if (!behind) this.#expected.delete(key);
    return !behind;
  }
}
