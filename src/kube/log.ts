// Structured JSON logs (pino), one child logger per component.

import { pino, type Logger } from 'pino';

export type { Logger } from 'pino';

export interface LogOptions {
  level?: string;
  /** Where to write; defaults to stderr so stdout stays for command output. */
  destination?: NodeJS.WritableStream;
}

export function createLogger(options: LogOptions = {}): Logger {
  return pino({ level: options.level ?? 'info', base: undefined, timestamp: pino.stdTimeFunctions.isoTime }, options.destination ?? process.stderr);
}

/** A logger that drops everything: for tests and library use without logging. */
export const silentLogger = (): Logger => pino({ level: 'silent' });
