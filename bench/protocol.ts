/** What `bench/run.ts` and its server processes (`bench/server.ts`) share. */
import { createHash } from 'node:crypto';

export type ServerKind = 'portcullis' | 'oidc' | 'apollo';

export interface ServerSpec {
  kind: ServerKind;
  storage: 'memory' | 'redis';
  /** Redis key prefix (Redis storage only). */
  prefix: string;
  /** Short token lifetimes (memory scenario). */
  shortTtl?: boolean;
}

/** Messages from the parent; each answer carries the same `id`. */
export type Request =
  | { id: number; op: 'mintCodes'; clientId: string; n: number }
  | { id: number; op: 'accessToken'; clientId: string }
  | { id: number; op: 'memory'; lastResort?: boolean }
  /** CPU time used by the server process so far (process.cpuUsage(), microseconds). */
  | { id: number; op: 'cpu' }
  | { id: number; op: 'bytesPerToken'; n: number }
  | { id: number; op: 'exit' };

/** Verifier of every pre-minted code (PKCE S256), and its challenge. */
export const CODE_VERIFIER = 'bench-code-verifier-0123456789-0123456789-0123456789';
export const CODE_CHALLENGE = createHash('sha256').update(CODE_VERIFIER).digest('base64url');
export const SCOPE = 'openid profile email';
export const SHORT_TTL_SECONDS = 15;

