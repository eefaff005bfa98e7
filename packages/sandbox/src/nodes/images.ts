// Image references as containerd reports them in container statuses: `nginx:1.27` runs as
// `docker.io/library/nginx:1.27`, with an imageID `docker.io/library/nginx@sha256:…` (here a digest
// derived from the reference, so a new tag gets a new imageID).

import { createHash } from 'node:crypto';

/** docker.io's normalization: a default registry, `library/` for official images, `:latest` without a tag. */
export function normalizeImage(image: string): string {
  const [name = '', digest] = image.split('@');
  const slash = name.indexOf('/');
  const first = slash < 0 ? '' : name.slice(0, slash);
  const hasRegistry = first.includes('.') || first.includes(':') || first === 'localhost';
  let repository = hasRegistry ? name : `docker.io/${slash < 0 ? `library/${name}` : name}`;
  if (digest) return `${repository}@${digest}`;
  const lastSegment = repository.slice(repository.lastIndexOf('/') + 1);
  if (!lastSegment.includes(':')) repository += ':latest';
  return repository;
}

/** `repository@sha256:…` of a normalized reference. */
export function imageID(normalized: string): string {
  const at = normalized.indexOf('@');
  if (at >= 0) return normalized;
  const repository = normalized.slice(0, normalized.lastIndexOf(':'));
  return `${repository}@sha256:${createHash('sha256').update(normalized).digest('hex')}`;
}
