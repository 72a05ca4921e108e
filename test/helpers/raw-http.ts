import { request } from 'node:http';
import { connect } from 'node:net';

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  json<T = Record<string, unknown>>(): T;
}

/**
 * One HTTP/1.1 request with full control of `Host`, `X-Forwarded-*` and the request-target (which `fetch`
 * normalises or forbids). `target` may be a path or an absolute-form URL.
 */
export function rawRequest(
  base: string,
  target: string,
  init: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<RawResponse> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        method: init.method ?? 'GET',
        path: target,
        headers: init.headers,
        setHost: !init.headers || !Object.keys(init.headers).some((h) => h.toLowerCase() === 'host'),
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json: () => JSON.parse(text) });
        });
      },
    );
    req.on('error', reject);
    if (init.body) req.write(init.body);
    req.end();
  });
}

/**
 * One request written as raw lines over a socket, for what Node's client cannot send: a header line twice, an empty
 * `Host`, no `Host` (HTTP/1.0). `Content-Length` and `Connection: close` are added. The answer's status, its header
 * block as text and its body.
 *
 * @param requestLine method and request-target, e.g. `GET /token`; `version` is appended.
 */
export function rawLines(
  base: string,
  requestLine: string,
  fields: readonly string[],
  body = '',
  version = 'HTTP/1.1',
): Promise<{ status: number; head: string; body: string }> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => {
      socket.end(
        [
          `${requestLine} ${version}`,
          ...fields,
          `Content-Length: ${Buffer.byteLength(body)}`,
          'Connection: close',
          '',
          body,
        ].join('\r\n'),
      );
    });
    const chunks: Buffer[] = [];
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', reject);
    socket.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const head = text.slice(0, text.indexOf('\r\n\r\n'));
      resolve({ status: Number(/^HTTP\/1\.[01] (\d{3})/.exec(head)?.[1]), head, body: text.slice(head.length + 4) });
    });
  });
}
