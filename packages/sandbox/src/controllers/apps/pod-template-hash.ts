// controller.ComputeHash: the pod-template-hash of a Deployment's template. FNV-32a over go-spew's
// rendering of the v1.PodTemplateSpec (hashutil.DeepHashObject), then the collision count as 8 bytes
// (a little-endian uint32 and four zero bytes), printed in decimal and passed through
// rand.SafeEncodeString, so the names match a real cluster's (`web-697bdf56bb`).

import { GoSpew } from './go-spew.ts';
import { podTemplateGoTypes } from './pod-template-go-types.ts';

const safeAlphabet = 'bcdfghjklmnpqrstvwxz2456789';
const spew = new GoSpew(podTemplateGoTypes);
const encoder = new TextEncoder();

/** rand.SafeEncodeString */
export function safeEncodeString(text: string): string {
  let out = '';
  for (let i = 0; i < text.length; i++) out += safeAlphabet[text.charCodeAt(i) % safeAlphabet.length];
  return out;
}

/** FNV-32a over bytes, continuing from `hash`. */
export function fnv32a(bytes: Uint8Array, hash = 0x811c9dc5): number {
  let h = hash;
  for (const byte of bytes) {
    h ^= byte;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

/** The go-spew rendering the hash is computed over. */
export const renderPodTemplate = (template: unknown): string => spew.render('v1.PodTemplateSpec', template);

export function podTemplateHash(template: unknown, collisionCount: number | undefined): string {
  let hash = fnv32a(encoder.encode(renderPodTemplate(template)));
  if (collisionCount !== undefined) {
    const bytes = new Uint8Array(8);
    new DataView(bytes.buffer).setUint32(0, collisionCount >>> 0, true);
    hash = fnv32a(bytes, hash);
  }
  return safeEncodeString(String(hash));
}
