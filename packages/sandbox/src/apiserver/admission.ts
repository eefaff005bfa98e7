// The admission chain between decoding and storage, as kube-apiserver runs it: every mutating
// plugin in order (after defaulting, before the strategy validates), then, after validation, every
// validating plugin. Built-in plugins (namespace lifecycle) and the webhooks of part 2 plug in here.

import type { JsonObject, KubeObject } from '../meta/object.ts';
import type { GroupVersionKind, GroupVersionResource } from '../registry/types.ts';

export type ApiServerAdmissionOperation = 'CREATE' | 'UPDATE' | 'DELETE';

export interface UserInfo {
  username: string;
  uid?: string;
  groups: string[];
  extra?: Record<string, string[]>;
}

export interface AdmissionAttributes {
  readonly operation: ApiServerAdmissionOperation;
  readonly kind: GroupVersionKind;
  readonly resource: GroupVersionResource;
  readonly subresource: string | undefined;
  readonly namespace: string | undefined;
  readonly name: string;
  /** The object being written; mutating plugins edit it in place. Undefined for DELETE. */
  readonly object: KubeObject | undefined;
  /** The stored object for UPDATE and DELETE. Do not modify. */
  readonly oldObject: KubeObject | undefined;
  readonly dryRun: boolean;
  /** The operation's options (`CreateOptions`, `UpdateOptions`, `DeleteOptions` with the computed grace period). */
  readonly options: JsonObject;
  readonly userInfo: UserInfo;
}

export interface AdmissionPlugin {
  readonly name: string;
  /** Mutating phase. Throw a StatusError to deny; return warnings for `Warning` headers. */
  admit?(attributes: AdmissionAttributes): Promise<string[] | void> | string[] | void;
  /** Validating phase: must not modify the object. */
  validate?(attributes: AdmissionAttributes): Promise<string[] | void> | string[] | void;
}

export class AdmissionChain {
  readonly #plugins: AdmissionPlugin[] = [];

  /** Appends a plugin; plugins run in the order they were added. */
  add(plugin: AdmissionPlugin): () => void {
    this.#plugins.push(plugin);
    return () => {
      const i = this.#plugins.indexOf(plugin);
      if (i >= 0) this.#plugins.splice(i, 1);
    };
  }

  async admit(attributes: AdmissionAttributes): Promise<string[]> {
    const warnings: string[] = [];
    for (const plugin of this.#plugins) {
      if (plugin.admit) warnings.push(...((await plugin.admit(attributes)) ?? []));
    }
    return warnings;
  }

  async validate(attributes: AdmissionAttributes): Promise<string[]> {
    const warnings: string[] = [];
    for (const plugin of this.#plugins) {
      if (plugin.validate) warnings.push(...((await plugin.validate(attributes)) ?? []));
    }
    return warnings;
  }
}
