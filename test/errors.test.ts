import {
  ConfigError,
  GraphqlErrorCode,
  InvalidDpopProofError,
  InvalidTokenError,
  OutboundFetchError,
  PortcullisError,
  StorageConnectError,
  StorageUnavailableError,
  type PortcullisErrorCode,
} from '../lib/index.js';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { TokenPairingError } from '../lib/rp/index.js';
import { UsageError } from '../lib/cli/io.js';
import { LIMIT_ERROR_CODES } from '../lib/graphql/rules/limit-error.js';

/** The one error model: every error class of ours is a PortcullisError with a switchable code. */
describe('error model', () => {
  const cause = new Error('underlying');
  const cases: Array<[PortcullisError, PortcullisErrorCode, number, boolean]> = [
    [new ConfigError('ttl.accessToken', 'must be positive'), 'ERR_CONFIG_INVALID', 500, false],
    [new StorageUnavailableError('ERR_STORAGE_FULL', 'storage is full', { cause }), 'ERR_STORAGE_FULL', 503, true],
    [new StorageConnectError('redis://***@h:6379', 'connection refused', cause), 'ERR_STORAGE_UNAVAILABLE', 503, false],
    [new OutboundFetchError('ERR_OUTBOUND_ADDRESS', 'points to localhost'), 'ERR_OUTBOUND_ADDRESS', 500, false],
    [
      new TokenPairingError('ERR_INTROSPECTION_FAILED', 'token introspection failed', { cause }),
      'ERR_INTROSPECTION_FAILED',
      500,
      false,
    ],
    [new InvalidTokenError('expired'), 'ERR_ACCESS_TOKEN_INVALID', 401, true],
    [new InvalidTokenError('bad proof', 'invalid_dpop_proof'), 'ERR_DPOP_PROOF_INVALID', 401, true],
    [new InvalidDpopProofError('bad proof'), 'ERR_DPOP_PROOF_INVALID', 401, true],
    [new UsageError('unknown argument --x'), 'ERR_USAGE', 400, true],
  ];

  test.each(cases.map(([err, ...rest]) => [`${err.name} ${err.code}`, err, ...rest] as const))(
    '%s carries code, status and expose',
    (_label, err, code, status, expose) => {
      expect(err).toBeInstanceOf(PortcullisError);
      expect(err).toBeInstanceOf(Error);
      expect(err.name).toBe(err.constructor.name);
      expect({ code: err.code, status: err.status, expose: err.expose }).toEqual({ code, status, expose });
    },
  );

  // json-copy's TypeErrors mirror JSON.stringify's own on purpose (storage behaves as JSON would).
  test('nothing in lib/ or adapters/ throws or defines an error outside the one base (PortcullisError)', () => {
    const root = fileURLToPath(new URL('../', import.meta.url));
    const files = (dir: string): string[] =>
      readdirSync(join(root, dir), { withFileTypes: true }).flatMap((e) =>
        e.isDirectory() ? files(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
      );
    const found = [...files('lib'), ...files('adapters')]
      .flatMap((file) =>
        readFileSync(join(root, file), 'utf8')
          .split('\n')
          .flatMap((line, i) =>
            /\bextends Error\b|\bnew Error\(/.test(line) ? [`${file}:${i + 1}: ${line.trim()}`] : [],
          ),
      )
      .filter((hit) => !hit.startsWith('lib/core/errors.ts:'));
    expect(found).toEqual([]);
  });

  test('single-code classes carry the code statically too, as jose does', () => {
    expect(StorageConnectError.code).toBe('ERR_STORAGE_UNAVAILABLE');
    expect(InvalidDpopProofError.code).toBe('ERR_DPOP_PROOF_INVALID');
  });

  test('wrapped errors keep their cause; storage outages say so in words and ask for Retry-After', () => {
    const outage = new StorageUnavailableError('ERR_STORAGE_UNAVAILABLE', 'storage is unavailable; try again later', {
      cause,
    });
    expect(outage.cause).toBe(cause);
    expect(outage.message).toBe('storage is unavailable; try again later');
    expect(outage.headers).toEqual({ 'Retry-After': '5' });
    expect(new StorageConnectError('redis://h', 'timed out', cause).cause).toBe(cause);
    expect(new TokenPairingError('ERR_INTROSPECTION_FAILED', 'failed', { cause }).cause).toBe(cause);
    expect('cause' in new ConfigError('x', 'y')).toBe(false);
  });

  test('every limit code is a GraphqlErrorCode, and the enum maps each name to itself', () => {
    for (const code of LIMIT_ERROR_CODES) expect(Object.values(GraphqlErrorCode)).toContain(code);
    for (const [name, value] of Object.entries(GraphqlErrorCode)) expect(value).toBe(name);
    expect(GraphqlErrorCode.FORBIDDEN).toBe('FORBIDDEN');
    expect(GraphqlErrorCode.RATE_LIMITED).toBe('RATE_LIMITED');
  });
});
