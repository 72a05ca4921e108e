import { Writable } from 'node:stream';
import { pino } from 'pino';
import { REDACTED_PATHS } from '../../lib/core/logger.js';
import { relyingParty, signIn } from '../helpers/flow.js';
import { startServer, type RunningServer } from '../helpers/server.js';

const lines: string[] = [];
const sink = new Writable({
  write(chunk, _enc, cb) {
    lines.push(...String(chunk).split('\n').filter(Boolean));
    cb();
  },
});
const logger = pino({ level: 'info', redact: { paths: REDACTED_PATHS, censor: '[redacted]' } }, sink);

let srv: RunningServer;
beforeAll(async () => {
  srv = await startServer({ logger });
});
afterAll(() => srv.close());

describe('health endpoints', () => {
  test('/healthz is 200 and /readyz reports the storage', async () => {
    const live = await fetch(`${srv.issuer}/healthz`);
    expect(live.status).toBe(200);
    expect(await live.json()).toEqual({ status: 'ok' });
    const ready = await fetch(`${srv.issuer}/readyz`);
    expect(ready.status).toBe(200);
    expect(ready.headers.get('cache-control')).toBe('no-store');
    expect(await ready.json()).toEqual({ status: 'ready', storage: 'ok' });
    expect((await fetch(`${srv.issuer}/readyz`, { method: 'POST' })).status).toBe(405);
  });
});

describe('structured logs', () => {
  test('one JSON line per request with a request id; no secrets, tokens, codes or passwords', async () => {
    lines.length = 0;
    const rp = await relyingParty(srv.issuer);
    const { tokens, seen } = await signIn(srv.issuer, rp, { params: { scope: 'openid offline_access' } });
    await fetch(`${srv.issuer}/userinfo`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
    await new Promise((r) => setTimeout(r, 50));

    const records = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    const requests = records.filter((r) => r.msg === 'request');
    expect(requests.length).toBeGreaterThanOrEqual(6);
    for (const r of requests) {
      expect(r.reqId).toEqual(expect.any(String));
      expect(r.path).toEqual(expect.stringMatching(/^\//));
      expect(r.status).toEqual(expect.any(Number));
    }
    expect(requests.map((r) => r.path)).toEqual(expect.arrayContaining(['/authorization', '/token', '/userinfo']));
    const all = lines.join('\n');
    const secrets = [
      tokens.access_token,
      tokens.refresh_token!,
      tokens.id_token!,
      seen.callback.searchParams.get('code')!,
      'alice-demo-password',
      'demo-web-secret',
    ];
    for (const secret of secrets) expect(all).not.toContain(secret);
  });

  test('X-Request-Id is echoed when well-formed and replaced otherwise', async () => {
    const ok = await fetch(`${srv.issuer}/healthz`, { headers: { 'x-request-id': 'lb-1234' } });
    expect(ok.headers.get('x-request-id')).toBe('lb-1234');
    const bad = await fetch(`${srv.issuer}/healthz`, { headers: { 'x-request-id': 'x'.repeat(300) } });
    expect(bad.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });
});
