/**
 * The stored form of a password (`adapters/password.ts` makes and checks it): scrypt (RFC 7914) as
 * `scrypt$N$r$p$salt$key`, salt 16 bytes and key 32 bytes, both base64url without padding. Written here, in the
 * core, because configuration (`accounts[].passwordHash`) and storage both read it.
 */

/**
 * The lengths of a password in characters (Unicode code points, as JSON Schema's `minLength` counts them) that a seed
 * account's `password` and `npx portcullis hash-password` take.
 */
export const SEED_PASSWORD_LENGTH = Object.freeze({ min: 8, max: 256 });

/** scrypt's cost parameters: `N` (CPU/memory cost, a power of two), `r` (block size) and `p` (parallelism). */
export interface ScryptCost {
  N: number;
  r: number;
  p: number;
}

/**
 * The cost of every hash Portcullis makes: N=2^15, r=8, p=1 (32 MiB, about 70 ms on one core of a small server).
 * OWASP's Password Storage Cheat Sheet lists N=2^17 for r=8, p=1; 2^15 keeps a 2-core host responsive under
 * sign-in load. It is also the least cost `NODE_ENV=production` accepts in a configured `accounts[].passwordHash`.
 */
export const SCRYPT_COST: Readonly<ScryptCost> = Object.freeze({ N: 2 ** 15, r: 8, p: 1 });

/** scrypt's working memory is 128·N·r bytes; a stored hash may ask for at most 128 MiB (N=2^17 with r=8). */
const MAX_MEMORY_BYTES = 128 * 1024 * 1024;

/**
 * The shape of a stored password hash (JSON Schema `pattern`, ECMAScript syntax): `scrypt$N$r$p$salt$key`. The cost
 * bounds are checked by {@link scryptCost}.
 */
export const PASSWORD_HASH_PATTERN =
  '^scrypt\\$[1-9][0-9]{0,8}\\$[1-9][0-9]?\\$[1-9][0-9]?\\$[A-Za-z0-9_-]{22}\\$[A-Za-z0-9_-]{43}$';
const HASH = new RegExp(PASSWORD_HASH_PATTERN);

/**
 * The cost parameters of a stored hash, or `undefined` when it is not one Portcullis can check: not of
 * {@link PASSWORD_HASH_PATTERN}, `N` not a power of two of at least 2, `p` over 16, or working memory over 128 MiB
 * (which would fail, or stall the server, at every sign-in). Never throws.
 */
export function scryptCost(stored: string): ScryptCost | undefined {
  if (!HASH.test(stored)) return undefined;
  const [, n, r, p] = stored.split('$');
  const cost = { N: Number(n), r: Number(r), p: Number(p) };
  const powerOfTwo = cost.N >= 2 && (cost.N & (cost.N - 1)) === 0;
  return powerOfTwo && cost.p <= 16 && 128 * cost.N * cost.r <= MAX_MEMORY_BYTES ? cost : undefined;
}

/** Whether `cost` spends at least what {@link SCRYPT_COST} does (each parameter at least as large). */
export function meetsScryptCost(cost: ScryptCost): boolean {
  return cost.N >= SCRYPT_COST.N && cost.r >= SCRYPT_COST.r && cost.p >= SCRYPT_COST.p;
}
