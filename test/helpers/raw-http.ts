import { request } from 'node:http';

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
export function rawRequest(base: string, target: string, init: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<RawResponse> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const req = request({ host: url.hostname, port: url.port, method: init.method ?? 'GET', path: target, headers: init.headers, setHost: !init.headers || !Object.keys(init.headers).some((h) => h.toLowerCase() === 'host') }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json: () => JSON.parse(text) });
      });
    });
    req.on('error', reject);
    if (init.body) req.write(init.body);
    req.end();
  });
}
