// A Server-Sent Events client for tests: reads a stream over HTTP and keeps every event it got.

import http from 'node:http';

export interface SseEvent {
  event: string;
  data: string;
}

export interface SseStream {
  readonly events: readonly SseEvent[];
  close(): void;
}

/** Opens `url`; resolves once the response's headers arrived (rejects on anything but a 200). */
export function openStream(url: string): Promise<SseStream> {
  return new Promise((resolve, reject) => {
    const events: SseEvent[] = [];
    const request = http.get(url, (response) => {
      if (response.statusCode !== 200) {
        response.resume();
        reject(new Error(`GET ${url}: HTTP ${response.statusCode}`));
        return;
      }
      let buffered = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        buffered += chunk;
        for (let end = buffered.indexOf('\n\n'); end >= 0; end = buffered.indexOf('\n\n')) {
          const block = buffered.slice(0, end);
          buffered = buffered.slice(end + 2);
          const fields = new Map(block.split('\n').filter((line) => line && !line.startsWith(':')).map((line) => [line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 1).trimStart()]));
          if (fields.has('data')) events.push({ event: fields.get('event') ?? 'message', data: fields.get('data') ?? '' });
        }
      });
      response.on('error', () => {});
      resolve({ events, close: () => request.destroy() });
    });
    request.on('error', reject);
  });
}
