// The connections of podops' own servers (admission webhooks, metrics, probes). Anyone who reaches a port
// can open connections and leave them idle, and the API server keeps keep-alive connections open as well:
// idle connections are capped (the one idle the longest makes room, so a new client is never refused
// because of old idle ones), a connection must send its first request within a deadline, and a stop answers
// the requests in flight, then closes every connection within a bound.

import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import { Server as TlsServer } from 'node:tls';

export interface ConnectionLimits {
  /** Idle connections kept open at most; past it the longest idle is closed. Default 64. */
  maxIdle?: number;
  /** A connection that sends no request within this is closed. Default 10 s. */
  firstRequestTimeoutMs?: number;
  /** Connections of any state at most (Node refuses more). Default 1024. */
  maxConnections?: number;
}

export class ServerConnections {
  /** Idle sockets in the order they became idle. */
  readonly #idle = new Set<Socket>();
  /** Requests in flight per socket (HTTP/1.1 pipelining can queue several). */
  readonly #busy = new Map<Socket, number>();
  /** Connections that have not sent a complete request head yet, with the timer that closes them. */
  readonly #awaitingFirstRequest = new Map<Socket, NodeJS.Timeout>();
  readonly #maxIdle: number;
  #closing = false;

  constructor(server: Server, limits: ConnectionLimits = {}) {
    this.#maxIdle = limits.maxIdle ?? 64;
    const firstRequestTimeoutMs = limits.firstRequestTimeoutMs ?? 10_000;
    server.maxConnections = limits.maxConnections ?? 1024;
    // Requests arrive on the TLS socket, not on the TCP socket under it.
    const established = server instanceof TlsServer ? 'secureConnection' : 'connection';
    server.on(established, (socket: Socket) => {
      if (this.#closing) {
        socket.destroy();
        return;
      }
      const firstRequest = setTimeout(() => socket.destroy(), firstRequestTimeoutMs);
      firstRequest.unref();
      this.#awaitingFirstRequest.set(socket, firstRequest);
      socket.once('close', () => {
        clearTimeout(firstRequest);
        this.#awaitingFirstRequest.delete(socket);
        this.#idle.delete(socket);
        this.#busy.delete(socket);
      });
      this.#becameIdle(socket);
    });
    server.on('request', (req, res) => {
      const socket = req.socket;
      clearTimeout(this.#awaitingFirstRequest.get(socket));
      this.#awaitingFirstRequest.delete(socket);
      this.#idle.delete(socket);
      this.#busy.set(socket, (this.#busy.get(socket) ?? 0) + 1);
      if (this.#closing) res.shouldKeepAlive = false;
      res.once('close', () => {
        const left = (this.#busy.get(socket) ?? 1) - 1;
        if (left > 0) return this.#busy.set(socket, left);
        this.#busy.delete(socket);
        if (!socket.destroyed) this.#becameIdle(socket);
      });
    });
  }

  get idle(): number {
    return this.#idle.size;
  }

  /**
   * Stops the server: no new connections, idle ones closed now, busy ones once their answer is sent;
   * whatever is still open after `graceMs` is cut.
   */
  async close(server: Server, graceMs: number): Promise<void> {
    this.#closing = true;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    for (const socket of this.#idle) socket.destroy();
    const deadline = setTimeout(() => {
      for (const socket of this.#busy.keys()) socket.destroy();
    }, graceMs);
    await closed;
    clearTimeout(deadline);
  }

  #becameIdle(socket: Socket): void {
    if (this.#closing) {
      socket.destroy();
      return;
    }
    this.#idle.delete(socket);
    this.#idle.add(socket);
    while (this.#idle.size > this.#maxIdle) {
      const oldest = this.#idle.values().next().value as Socket;
      this.#idle.delete(oldest);
      oldest.destroy();
    }
  }
}

/** The path of a request target, or undefined when it cannot be parsed (answer 400, never throw). */
export function requestPath(target: string | undefined): string | undefined {
  if (target === undefined || target === '') return undefined;
  if (target.startsWith('/')) {
    const query = target.indexOf('?');
    return query < 0 ? target : target.slice(0, query);
  }
  // absolute-form (`GET http://host/path`), which HTTP/1.1 servers must accept
  try {
    return new URL(target).pathname;
  } catch {
    return undefined;
  }
}

/** The query of a request target, parsed leniently. */
export function requestQuery(target: string | undefined): URLSearchParams {
  const query = target?.indexOf('?') ?? -1;
  return new URLSearchParams(query < 0 ? '' : target?.slice(query + 1));
}
