import { createPrivateKey } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  ConfigError,
  createServer,
  generateSigningKeys,
  loadConfig,
  type PortcullisConfig,
  type PrivateJwks,
} from '../../lib/index.js';
import { errorOf } from '../helpers/errors.js';

/**
 * `keys.signing` takes a private JWKS as an object, as inline JSON or as the path of a JSON file: whichever form a
 * wrong key set comes in, the message says what is wrong with it, and never quotes key material.
 */
const issuer = 'http://localhost:4351';
const NOT_A_JWKS = 'is not a private JWKS ({"keys":[...]} with private keys of kty RSA, EC or OKP)';
const PUBLIC =
  'keys[0] has no private part ("d"), so this is a public key set, which cannot sign: give the private one (`npx portcullis keys` makes one)';
const SINGLE = 'it is a single JWK: put it in a key set, {"keys":[<the JWK>]}';
const OCT =
  'keys[0] has kty "oct", not RSA, EC or OKP (a symmetric "oct" key cannot sign tokens that clients verify with the published keys)';

let jwks: PrivateJwks;
let publicJwks: PrivateJwks;
beforeAll(async () => {
  jwks = await generateSigningKeys(['ES256', 'RS256']);
  publicJwks = { keys: jwks.keys.map(({ d: _d, p: _p, q: _q, dp: _dp, dq: _dq, qi: _qi, ...rest }) => rest) };
});
const privateMembers = () =>
  jwks.keys.flatMap((k) =>
    ['d', 'p', 'q', 'dp', 'dq', 'qi'].map((m) => k[m]).filter((v): v is string => typeof v === 'string'),
  );
const rsaKey = () => jwks.keys.find((k) => k.kty === 'RSA')!;
const ecKey = () => jwks.keys.find((k) => k.kty === 'EC')!;
const withoutMembers = (key: Record<string, unknown>, members: string[]) =>
  Object.fromEntries(Object.entries(key).filter(([m]) => !members.includes(m)));
/** The error code this Node line's createPrivateKey gives for `jwk` (it differs between Node 22 and 24). */
const nodeCode = (jwk: object): string => {
  try {
    createPrivateKey({ key: jwk as never, format: 'jwk' });
  } catch (err) {
    return String((err as { code?: string }).code);
  }
  throw new Error('the key was expected to be refused by createPrivateKey');
};
const unusable = (i: number, kty: string, code: string) =>
  `keys[${i}] (kty ${kty}) is not a usable private key (${code}): an RSA key needs n, e, d, p, q, dp, dq and qi, an EC or OKP key crv, x and d of that curve (\`npx portcullis keys\` makes a key set)`;
const file = (content: unknown) => {
  const path = join(mkdtempSync(join(tmpdir(), 'portcullis-signing-')), 'jwks.json');
  writeFileSync(path, JSON.stringify(content));
  return path;
};

test.each<[string, () => unknown, (value: unknown) => string]>([
  ['a public JWKS object', () => publicJwks, () => `the object given ${NOT_A_JWKS}: ${PUBLIC}`],
  ['a single private JWK object', () => jwks.keys[0], () => `the object given ${NOT_A_JWKS}: ${SINGLE}`],
  [
    'a symmetric key set object',
    () => ({ keys: [{ kty: 'oct', k: 'abc' }] }),
    () => `the object given ${NOT_A_JWKS}: ${OCT}`,
  ],
  [
    'a key set object with an empty keys array',
    () => ({ keys: [] }),
    () => `the object given ${NOT_A_JWKS}: it needs a non-empty "keys" array`,
  ],
  [
    'a key set object whose second key has no kty',
    () => ({ keys: [jwks.keys[0], { d: 'x' }] }),
    () =>
      `the object given ${NOT_A_JWKS}: keys[1] has no kty, not RSA, EC or OKP (a symmetric "oct" key cannot sign tokens that clients verify with the published keys)`,
  ],
  ['a public JWKS file', () => file(publicJwks), (path) => `the file ${String(path)} ${NOT_A_JWKS}: ${PUBLIC}`],
  ['a single JWK file', () => file(jwks.keys[0]), (path) => `the file ${String(path)} ${NOT_A_JWKS}: ${SINGLE}`],
  [
    'a symmetric key set as inline JSON',
    () => JSON.stringify({ keys: [{ kty: 'oct', k: 'abc' }] }),
    () => `the inline key set ${NOT_A_JWKS}: ${OCT}`,
  ],
  // The right shape, but Node's createPrivateKey refuses the key (oidc-provider threw a plain Error, or nothing).
  [
    'an RSA key without its CRT members, as an object',
    () => ({ keys: [withoutMembers(rsaKey(), ['p', 'q', 'dp', 'dq', 'qi'])] }),
    (v) => `the object given ${NOT_A_JWKS}: ${unusable(0, 'RSA', nodeCode((v as PrivateJwks).keys[0]!))}`,
  ],
  [
    'an RSA key without its CRT members, inline',
    () => JSON.stringify({ keys: [withoutMembers(rsaKey(), ['p', 'q', 'dp', 'dq', 'qi'])] }),
    (v) =>
      `the inline key set ${NOT_A_JWKS}: ${unusable(0, 'RSA', nodeCode((JSON.parse(v as string) as PrivateJwks).keys[0]!))}`,
  ],
  [
    "an EC key whose x is another key's, second in a file",
    () => file({ keys: [rsaKey(), { ...ecKey(), x: ecKey().y }] }),
    (path) => `the file ${String(path)} ${NOT_A_JWKS}: ${unusable(1, 'EC', 'ERR_CRYPTO_INVALID_JWK')}`,
  ],
  [
    'an EC key on an unknown curve',
    () => ({ keys: [{ ...ecKey(), crv: 'P-999' }] }),
    (v) => `the object given ${NOT_A_JWKS}: ${unusable(0, 'EC', nodeCode((v as PrivateJwks).keys[0]!))}`,
  ],
])('keys.signing: %s is refused saying what is wrong', (_name, make, message) => {
  const value = make();
  const err = errorOf(() => loadConfig({ issuer, keys: { signing: value as PrivateJwks } }, {}));
  expect(err).toBeInstanceOf(ConfigError);
  expect(err).toMatchObject({
    code: 'ERR_CONFIG_INVALID',
    path: 'keys.signing',
    message: `Invalid configuration at "keys.signing": ${message(value)}`,
  });
  for (const secret of privateMembers()) expect(err.message).not.toContain(secret);
});

test('createServer refuses a public JWKS object the same way; a private one, as object, inline JSON or file, loads', async () => {
  await expect(createServer({ issuer, keys: { signing: publicJwks } })).rejects.toMatchObject({
    path: 'keys.signing',
    message: expect.stringContaining(PUBLIC),
  });
  for (const signing of [jwks, JSON.stringify(jwks), file(jwks)]) {
    expect(loadConfig({ issuer, keys: { signing } } as PortcullisConfig, {}).keys.signing).toEqual(jwks);
  }
});
