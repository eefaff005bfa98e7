// Controller references and the ControllerRefManager's claim: a controller owns the objects whose
// controller reference names its uid; it adopts matching orphans (a strategic merge patch adding its
// reference, guarded by the object's uid) and releases owned objects that stopped matching. An owner
// being deleted adopts nothing and releases nothing.

import type { LocalClient, ResourceRef } from '../../apiserver/local-client.ts';
import { StatusError } from '../../errors.ts';
import { objectKey, type KubeObject, type OwnerReference } from '../../meta/object.ts';
import type { ControllerContext } from '../in-process-controller.ts';
import { selects } from './workload-fields.ts';

/** The kind of a controller: its resource (for reads) and the apiVersion and kind its references carry. */
export interface OwnerKind extends ResourceRef {
  kind: string;
}

export const apiVersionOf = (ref: ResourceRef): string => (ref.group ? `${ref.group}/${ref.version}` : ref.version);

export function controllerRefOf(object: KubeObject): OwnerReference | undefined {
  return object.metadata.ownerReferences?.find((ref) => ref.controller === true);
}

export function newControllerRef(owner: KubeObject, kind: OwnerKind): OwnerReference {
  return {
    apiVersion: apiVersionOf(kind),
    kind: kind.kind,
    name: owner.metadata.name ?? '',
    uid: owner.metadata.uid ?? '',
    controller: true,
    blockOwnerDeletion: true,
  };
}

/** resolveControllerRef: the owner a controller reference names, if it exists with that uid. */
export function resolveControllerRef(ctx: ControllerContext, storage: string, kind: string, namespace: string | undefined, ref: OwnerReference | undefined): KubeObject | undefined {
  if (!ref || ref.kind !== kind) return undefined;
  const owner = ctx.store.get(storage, objectKey(namespace, ref.name))?.object;
  return owner?.metadata.uid === ref.uid ? owner : undefined;
}

/** The owners in the namespace whose (non-empty) selector selects the object: who may adopt an orphan. */
export function ownersSelecting(ctx: ControllerContext, storage: string, object: KubeObject): KubeObject[] {
  return ctx.store
    .list(storage, `${object.metadata.namespace}/`)
    .map((e) => e.object)
    .filter((owner) => selects(owner, object.metadata.labels));
}

const isStatus = (err: unknown, ...codes: number[]): boolean => err instanceof StatusError && codes.includes(err.status.code);

export interface ClaimOptions {
  client: LocalClient;
  /** The resource of the claimed objects (pods, controllerrevisions). */
  resource: ResourceRef;
  owner: KubeObject;
  ownerKind: OwnerKind;
  /** The owner's selector plus any extra filter (a StatefulSet claims only its own pod names). */
  matches(object: KubeObject): boolean;
  /** Finalizers added on adoption and removed on release (the Job's tracking finalizer). */
  finalizers?: string[];
}

/**
 * RecheckDeletionTimestamp: before the first adoption, a fresh read of the owner confirms that it is
 * the same object and is not being deleted.
 */
function adoptionCheck(options: ClaimOptions): () => Promise<void> {
  let checked: Promise<void> | undefined;
  const { owner, ownerKind } = options;
  return () => {
    checked ??= (async () => {
      const fresh = await options.client.get(ownerKind, owner.metadata.name ?? '', { namespace: owner.metadata.namespace });
      const name = `${owner.metadata.namespace}/${owner.metadata.name}`;
      if (fresh.metadata.uid !== owner.metadata.uid) throw new Error(`original ${options.ownerKind.kind} ${name} is gone: got uid ${fresh.metadata.uid}, wanted ${owner.metadata.uid}`);
      if (fresh.metadata.deletionTimestamp) throw new Error(`${name} has just been deleted at ${fresh.metadata.deletionTimestamp}`);
    })();
    return checked;
  };
}

/** ClaimObjects: the objects this owner controls after adopting and releasing as needed. */
export async function claimObjects(objects: readonly KubeObject[], options: ClaimOptions): Promise<KubeObject[]> {
  const { client, resource, owner } = options;
  const ownerUid = owner.metadata.uid ?? '';
  const ownerDeleting = !!owner.metadata.deletionTimestamp;
  const canAdopt = adoptionCheck(options);
  const claimed: KubeObject[] = [];
  const errors: unknown[] = [];
  for (const object of objects) {
    const ref = controllerRefOf(object);
    const namespace = object.metadata.namespace;
    const name = object.metadata.name ?? '';
    if (ref) {
      if (ref.uid !== ownerUid) continue;
      if (options.matches(object)) {
        claimed.push(object);
        continue;
      }
      if (ownerDeleting) continue;
      const release: Record<string, unknown> = { ownerReferences: [{ $patch: 'delete', uid: ownerUid }], uid: object.metadata.uid };
      if (options.finalizers?.length) release['$deleteFromPrimitiveList/finalizers'] = options.finalizers;
      // Gone or recreated (the uid guard fails as Invalid): nothing to release.
      await client.patch(resource, name, 'strategic', { metadata: release }, { namespace }).catch((err: unknown) => {
        if (!isStatus(err, 404, 422)) errors.push(err);
      });
      continue;
    }
    if (ownerDeleting || !options.matches(object) || object.metadata.deletionTimestamp) continue;
    if (owner.metadata.namespace && owner.metadata.namespace !== namespace) continue;
    try {
      await canAdopt();
      const adopt: Record<string, unknown> = { ownerReferences: [newControllerRef(owner, options.ownerKind)], uid: object.metadata.uid };
      if (options.finalizers?.length) adopt.finalizers = options.finalizers;
      await client.patch(resource, name, 'strategic', { metadata: adopt }, { namespace });
      claimed.push(object);
    } catch (err) {
      if (!isStatus(err, 404)) errors.push(err);
    }
  }
  if (errors.length) throw errors.length === 1 ? errors[0] : new AggregateError(errors, errors.map(String).join(', '));
  return claimed;
}
