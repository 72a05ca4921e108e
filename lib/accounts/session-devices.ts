import type { Context, Next } from 'koa';
import type { Adapter, AdapterFactory } from '../core/storage.js';
import type { Logger } from '../core/logger.js';

/** What the account page shows of the browser behind a session: recorded when the session signs in. */
export interface SessionDevice {
  /** The `User-Agent` header at sign-in, cut to 512 characters (empty when none was sent). */
  userAgent: string;
  /** The client IP at sign-in (`ctx.ip`, which honours the `proxy` option). */
  ip: string;
  /** When the browser signed in (or signed in again), epoch seconds. */
  at: number;
}

/** Longest `User-Agent` kept; longer headers are cut (the parser only needs the product tokens). */
const MAX_USER_AGENT = 512;

/**
 * The device records of provider sessions, in the storage model `SessionDevice` (id = Session id, the `_session`
 * cookie value; payload a {@link SessionDevice}; expiry = the session's). oidc-provider's Session has no room
 * for them, so they are kept beside it, by any adapter of the storage contract (memory, Redis, a host's own).
 */
export class SessionDevices {
  readonly #adapter: Adapter;

  constructor(
    adapter: AdapterFactory,
    private readonly logger: Logger,
  ) {
    this.#adapter = adapter('SessionDevice');
  }

  /** Stores the device of session `sessionId` for `expiresIn` seconds (at least 1). */
  async record(sessionId: string, device: SessionDevice, expiresIn: number): Promise<void> {
    await this.#adapter.upsert(
      sessionId,
      { ...device, userAgent: device.userAgent.slice(0, MAX_USER_AGENT) },
      Math.max(1, Math.ceil(expiresIn)),
    );
  }

  /** The device of session `sessionId`, or `undefined` when none was recorded (or it expired). */
  async find(sessionId: string): Promise<SessionDevice | undefined> {
    const found = await this.#adapter.find(sessionId);
    if (!found || typeof found.ip !== 'string' || typeof found.at !== 'number') return undefined;
    return { userAgent: typeof found.userAgent === 'string' ? found.userAgent : '', ip: found.ip, at: found.at };
  }

  /** Forgets the device of an ended session. */
  async forget(sessionId: string): Promise<void> {
    await this.#adapter.destroy(sessionId);
  }

  /**
   * oidc-provider middleware for its resume route (`afterSignIn` in the route table, lib/http/routes.ts): after a
   * sign-in completes (the `resume` route applies a login result and saves the signed-in session under its final
   * id), records the browser's User-Agent and IP for that
   * session. A failed write is logged and does not fail the sign-in.
   */
  middleware() {
    return async (ctx: Context, next: Next): Promise<void> => {
      await next();
      const oidc = (
        ctx as Context & {
          oidc?: {
            route?: string;
            session?: { accountId?: string; jti?: string; id?: string; exp?: number; loginTs?: number };
          };
        }
      ).oidc;
      // A resume with a login result (oidc-provider merges it into the consent step's result too: the session is
      // saved under a new id at each, and the device goes with the id the browser ends up with).
      const signedInNow = (oidc as { result?: { login?: unknown } } | undefined)?.result?.login !== undefined;
      const session = oidc?.route === 'resume' && signedInNow ? oidc.session : undefined;
      const id = session?.jti ?? session?.id;
      if (!session?.accountId || !id) return;
      const now = Math.floor(Date.now() / 1000);
      const device = { userAgent: ctx.get('user-agent'), ip: ctx.ip, at: session.loginTs ?? now };
      await this.record(id, device, (session.exp ?? now + 14 * 24 * 3600) - now).catch((err: unknown) =>
        this.logger.error({ err }, 'session device record: write failed'),
      );
    };
  }
}

const BROWSERS: ReadonlyArray<[RegExp, string]> = [
  [/\bEdg(?:e|A|iOS)?\//, 'Edge'],
  [/\bOPR\/|\bOpera\b/, 'Opera'],
  [/\bSamsungBrowser\//, 'Samsung Internet'],
  [/\bVivaldi\//, 'Vivaldi'],
  [/\b(?:Firefox|FxiOS)\//, 'Firefox'],
  [/\b(?:Chrome|CriOS|Chromium|HeadlessChrome)\//, 'Chrome'],
  [/\bVersion\/[\d.]+.*\bSafari\//, 'Safari'],
  [/\bcurl\//, 'curl'],
];

const SYSTEMS: ReadonlyArray<[RegExp, string]> = [
  [/\bWindows\b/, 'Windows'],
  [/\bAndroid\b/, 'Android'],
  [/\b(?:iPhone|iPad|iPod)\b/, 'iOS'],
  [/\bCrOS\b/, 'ChromeOS'],
  [/\bMac OS X\b|\bMacintosh\b/, 'macOS'],
  [/\bLinux\b/, 'Linux'],
];

/**
 * A short description of a `User-Agent` header: the browser family and the operating system, e.g.
 * `{ browser: 'Chrome', os: 'Linux' }`; a part not recognised is `undefined`. A deliberately small parser (a
 * few ordered product-token patterns, first match wins) rather than a dependency: `ua-parser-js` is AGPL from
 * version 2, and the account page needs only a hint that lets a user recognise their own devices, never a
 * security decision (the header is whatever the client sends).
 */
export function describeUserAgent(userAgent: string): { browser?: string; os?: string } {
  const ua = userAgent.slice(0, MAX_USER_AGENT);
  return { browser: BROWSERS.find(([re]) => re.test(ua))?.[1], os: SYSTEMS.find(([re]) => re.test(ua))?.[1] };
}
