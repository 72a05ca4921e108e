/** What `bench/run.ts` and its server processes (`bench/server.ts`) share. */
import { createHash } from 'node:crypto';

/**
 * `apollo`: bare Apollo Server 5 on Koa with the catalog's schema and resolvers; `apollo-lean` and `apollo-armor`:
 * the issue's GraphQL peers with Portcullis' request log line (bench/graphql-peers.ts).
 */
export type ServerKind = 'portcullis' | 'oidc' | 'apollo' | 'apollo-lean' | 'apollo-armor';

export interface ServerSpec {
  kind: ServerKind;
  storage: 'memory' | 'redis';
  /** Redis key prefix (Redis storage only). */
  prefix: string;
  /** Short token lifetimes (memory scenario). */
  shortTtl?: boolean;
  /**
   * A bare peer (`oidc` or `apollo`) with Portcullis' request log line and issuer Host check in front, and nothing
   * else of Portcullis (the `floor` scenario): what those two features the issue requires cost on their own.
   */
  guards?: boolean;
}

/** Messages from the parent; each answer carries the same `id`. */
export type Request =
  | { id: number; op: 'mintCodes'; clientId: string; n: number }
  | { id: number; op: 'accessToken'; clientId: string }
  | { id: number; op: 'memory'; lastResort?: boolean }
  /** CPU time used by the server process so far (process.cpuUsage(), microseconds). */
  | { id: number; op: 'cpu' }
  | { id: number; op: 'bytesPerToken'; n: number }
  /** `--profile`: starts V8's CPU profiler (and the count of answered requests) for one timed run. */
  | { id: number; op: 'profileStart' }
  /** Stops it and writes `<path>.cpuprofile` and `<path>.json` (a {@link RunProfile}). */
  | { id: number; op: 'profileStop'; path: string; meta: Omit<RunProfile, 'requests' | 'seconds'> }
  | { id: number; op: 'exit' };

/** What `--profile` writes beside each run's `.cpuprofile` (read by `bench/profile-diff.ts`). */
export interface RunProfile {
  /** The scenario's title, as in RESULTS.md (e.g. `/userinfo opaque token memory c=10`). */
  scenario: string;
  /** The server's label (e.g. `Portcullis (memory)`, `bare oidc-provider (memory)`). */
  server: string;
  /** 1-based pair number of the run. */
  pair: number;
  /** HTTP requests the server received while the profiler ran. */
  requests: number;
  /** Seconds the profiler ran. */
  seconds: number;
}

/** V8 CPU profiler sampling interval of `--profile`, microseconds (`--cpu-prof`'s default is 1000). */
export const PROFILE_SAMPLING_US = 250;

/** Verifier of every pre-minted code (PKCE S256), and its challenge. */
export const CODE_VERIFIER = 'bench-code-verifier-0123456789-0123456789-0123456789';
export const CODE_CHALLENGE = createHash('sha256').update(CODE_VERIFIER).digest('base64url');
export const SCOPE = 'openid profile email';
export const SHORT_TTL_SECONDS = 15;
