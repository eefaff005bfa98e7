// Name generation as the real server does it for metadata.generateName.

import { randomInt } from 'node:crypto';

// The alphabet of utilrand.String: no vowels (no accidental words) and no confusable characters.
const alphabet = 'bcdfghjklmnpqrstvwxz2456789';
const maxGeneratedNameLength = 63;
const randomLength = 5;

export function randomSuffix(length = randomLength): string {
  let s = '';
  for (let i = 0; i < length; i++) s += alphabet[randomInt(alphabet.length)];
  return s;
}

/** `gen-` → `gen-wxkrx`; a prefix longer than 58 characters is cut so the name stays within 63. */
export function generateNameFrom(prefix: string): string {
  const base = prefix.length > maxGeneratedNameLength - randomLength ? prefix.slice(0, maxGeneratedNameLength - randomLength) : prefix;
  return base + randomSuffix();
}
