// The decoded form of one API request and of its answer. The HTTP layer and the in-process client
// both speak these, so every request (from kubectl or from a sandbox controller) runs the same pipeline.

import type { Status } from '../errors.ts';
import type { KubeObject } from '../meta/object.ts';
import type { ResourceDefinition } from '../registry/types.ts';
import type { StoredEntry } from '../storage/store.ts';
import type { UserInfo } from './admission.ts';

export type Verb = 'get' | 'list' | 'watch' | 'create' | 'update' | 'patch' | 'delete' | 'deletecollection';

export const writeVerbs: ReadonlySet<Verb> = new Set(['create', 'update', 'patch', 'delete', 'deletecollection']);

export interface ApiRequest {
  verb: Verb;
  def: ResourceDefinition;
  subresource: string | undefined;
  namespace: string | undefined;
  name: string | undefined;
  query: URLSearchParams;
  /** The decoded body: an object for create/update/delete, the patch document for patch. */
  body: unknown;
  /** For patch: the media type naming the patch format. */
  patchType: string | undefined;
  user: UserInfo;
  userAgent: string | undefined;
  /** The keys of a JSON body as written, set by the HTTP layer for create and update. */
  bodyKeys?: BodyKeys;
  /** An HTTP upgrade request (`Connection: Upgrade`), as exec, attach and portforward need. */
  upgrade?: boolean;
}

/** What JSON.parse does not keep of a body: repeated keys, and the order of every key. */
export interface BodyKeys {
  /** Paths of keys an object repeated (strict decoding rejects them). */
  readonly duplicates: readonly string[];
  /** Every key's path in the order of the text, repeats included (computed when asked). */
  inOrder(): readonly { path: string; repeat: boolean }[];
}

/** A single object; `entry` lets the HTTP layer reuse the stored serialization. */
export interface ObjectResult {
  type: 'object';
  code: number;
  object: KubeObject;
  entry?: StoredEntry;
  warnings: string[];
}

export interface ListResult {
  type: 'list';
  code: number;
  kind: string;
  apiVersion: string;
  metadata: { resourceVersion: string; continue?: string; remainingItemCount?: number };
  items: { object: KubeObject; entry?: StoredEntry }[];
  warnings: string[];
}

export interface StatusResult {
  type: 'status';
  code: number;
  status: Status;
  warnings: string[];
}

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';

export interface WatchEvent {
  type: WatchEventType;
  object: KubeObject | Status;
  /** The `{"type":…,"object":…}\n` line as bytes, encoded once and shared by all watchers of the same view. */
  encoded?: () => Buffer;
}

export interface WatchSink {
  /** Delivers one event; returns false when the consumer is gone. */
  send(event: WatchEvent): boolean;
  /** Ends the stream (timeout, error event, server stop). */
  end(): void;
}

export interface WatchResult {
  type: 'watch';
  code: 200;
  /** Starts streaming into the sink; returns a function that stops the watch. */
  start(sink: WatchSink): () => void;
  warnings: string[];
}

/** Where a stream's bytes go; `write` returns false once the client has gone. */
export interface StreamSink {
  write(text: string): boolean;
  end(): void;
}

/** A body written as it comes (pods/log), chunked. */
export interface StreamResult {
  type: 'stream';
  contentType: string;
  /**
   * Starts writing into the sink; returns a function that stops (the client went away). Absent when
   * there is no stream at all: 204 No Content, as StreamObject answers a nil stream.
   */
  start?: (sink: StreamSink) => () => void;
  warnings: string[];
}

export type ApiResult = ObjectResult | ListResult | StatusResult | WatchResult | StreamResult;
