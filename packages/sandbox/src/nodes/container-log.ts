// A container's log as the kubelet serves it (GET /containerLogs, kuberuntime's ReadLogs over the CRI
// log file): the lines the process wrote so far, each stamped when its newline was written; an
// unterminated last line only once the process has ended (containerd writes it at EOF). Options as
// ReadLogs applies them: tailLines counts lines from the end, since drops older lines, timestamps
// prefix each line with RFC3339NanoFixed, limitBytes cuts the output; follow keeps writing new lines
// until the container stops or the client goes away.

import type { ContainerLogOptions, ContainerLogStream } from '../apiserver/kubelet-connections.ts';
import type { StreamSink } from '../apiserver/request.ts';
import type { ContainerInstance, Moment } from './pod-runtime.ts';

export interface LogLine {
  /** Wall-clock milliseconds (fractional) when the line was written. */
  at: number;
  text: string;
}

/** The lines an instance has written by monotonic time `nowMono`. */
export function loggedLines(instance: ContainerInstance, nowMono: number): LogLine[] {
  const endMono = instance.finished ? instance.finished.mono : nowMono;
  const lines: LogLine[] = [];
  let pending = '';
  for (const write of instance.output) {
    if (instance.startedMono + write.atMs > endMono) break;
    const pieces = write.text.split('\n');
    const at = instance.startedAt + write.atMs;
    for (let i = 0; i < pieces.length - 1; i++) {
      lines.push({ at, text: `${pending}${pieces[i]}\n` });
      pending = '';
    }
    pending += pieces[pieces.length - 1];
  }
  if (instance.finished && pending) lines.push({ at: instance.finished.at, text: pending });
  return lines;
}

/** Go's `2006-01-02T15:04:05.000000000Z07:00` in UTC. */
export function formatFixedNano(ms: number): string {
  const whole = Math.floor(ms);
  const nanos = Math.floor((ms - whole) * 1e6) + (whole % 1000) * 1e6;
  return `${new Date(whole - (whole % 1000)).toISOString().slice(0, 19)}.${String(nanos).padStart(9, '0')}Z`;
}

/** ReadLogs' writer: drops lines before `since`, prefixes timestamps, stops at the byte limit. */
class LogWriter {
  readonly #options: ContainerLogOptions;
  readonly #sink: StreamSink;
  #remain: number;
  #newLine = true;

  constructor(options: ContainerLogOptions, sink: StreamSink) {
    this.#options = options;
    this.#sink = sink;
    this.#remain = options.limitBytes ?? Infinity;
  }

  /** Writes one line; false when nothing more may be written (limit reached, client gone). */
  write(line: LogLine): boolean {
    const prefixed = this.#newLine;
    this.#newLine = line.text.endsWith('\n');
    if (this.#options.sinceMs !== undefined && line.at < this.#options.sinceMs) return true;
    let text = this.#options.timestamps && prefixed ? `${formatFixedNano(line.at)} ${line.text}` : line.text;
    const bytes = Buffer.from(text);
    if (bytes.length > this.#remain) text = bytes.subarray(0, this.#remain).toString();
    this.#remain -= Math.min(bytes.length, this.#remain);
    return this.#sink.write(text) && this.#remain > 0;
  }
}

export interface LogSource {
  instance: ContainerInstance;
  now(): Moment;
  /** Calls back after every change the kubelet makes to the pod's containers; returns an unsubscribe. */
  onChange(listener: () => void): () => void;
  /** False once the kubelet forgot the pod (it was removed): its containers are gone. */
  alive(): boolean;
}

/** The stream of one container instance's log with the request's options. */
export function containerLogStream(source: LogSource, options: ContainerLogOptions): ContainerLogStream {
  return {
    start(sink: StreamSink): () => void {
      const { instance } = source;
      const writer = new LogWriter(options, sink);
      let stopped = false;
      let timer: NodeJS.Timeout | undefined;
      let unsubscribe = (): void => undefined;
      const stop = (): void => {
        if (stopped) return;
        stopped = true;
        clearTimeout(timer);
        unsubscribe();
        sink.end();
      };
      const initial = loggedLines(instance, source.now().mono);
      // A tail without follow reads exactly that many lines; with follow it only sets where to start.
      let written = options.tailLines === undefined ? 0 : Math.max(0, initial.length - options.tailLines);
      const catchUp = (): void => {
        if (stopped) return;
        const lines = loggedLines(instance, source.now().mono);
        for (; written < lines.length; written++) {
          if (!writer.write(lines[written] as LogLine)) return stop();
        }
        if (!options.follow || instance.finished || !source.alive()) return stop();
        clearTimeout(timer);
        const next = instance.output.find((w) => instance.startedMono + w.atMs > source.now().mono);
        if (next) timer = setTimeout(catchUp, Math.max(0, instance.startedMono + next.atMs - source.now().mono));
      };
      if (options.follow) unsubscribe = source.onChange(catchUp);
      catchUp();
      return stop;
    },
  };
}
