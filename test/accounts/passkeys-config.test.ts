import { errorOf } from '../helpers/errors.js';
import { ConfigError, loadConfig, type PortcullisConfig } from '../../lib/index.js';
import { relyingPartyFor } from '../../lib/features/passkeys/relying-party.js';

// A host store with the seven required methods and the second-factor pair that mfa (on by default) needs.
const store = {
  findById() {},
  findByEmail() {},
  verifyPassword() {},
  create() {},
  setPassword() {},
  setEmail() {},
  markEmailVerified() {},
  getSecondFactor() {},
  setSecondFactor() {},
};
const passkeyMethods = { listPasskeys() {}, savePasskey() {}, deletePasskey() {}, findAccountByPasskey() {} };
const load = (input: Partial<PortcullisConfig>) =>
  loadConfig({ issuer: 'http://localhost:3000', ...input } as PortcullisConfig, {});

describe('passkeys options', () => {
  test('on by default for a domain issuer with the shipped stores or a store with the passkey methods', () => {
    expect(load({}).passkeys).toEqual({ enabled: true, rpName: 'Portcullis', secondFactor: true, challengeTtl: 300 });
    expect(load({ issuer: 'https://id.example.com' }).passkeys.enabled).toBe(true);
    expect(load({ accountStore: { ...store, ...passkeyMethods } as never }).passkeys.enabled).toBe(true);
  });

  test('off by default where they cannot work: an IP issuer, plain http off localhost, a host store without the methods', () => {
    expect(load({ issuer: 'http://127.0.0.1:3000' }).passkeys.enabled).toBe(false);
    expect(load({ issuer: 'http://id.example.com' }).passkeys.enabled).toBe(false);
    expect(load({ accountStore: store as never }).passkeys.enabled).toBe(false);
  });

  test('turned on explicitly where they cannot work: refused naming the option', () => {
    let err = errorOf(() =>
      load({
        accountStore: { ...store, ...passkeyMethods, deletePasskey: undefined } as never,
        passkeys: { enabled: true },
      }),
    );
    expect(err).toBeInstanceOf(ConfigError);
    expect(err.path).toBe('accountStore.deletePasskey');
    expect(err.message).toMatch(/must be a function when passkeys.enabled is on/);
    err = errorOf(() => load({ issuer: 'http://127.0.0.1:3000', passkeys: { enabled: true } }));
    expect(err.path).toBe('passkeys.enabled');
    expect(err.message).toMatch(/domain name/);
    err = errorOf(() => load({ passkeys: { challengeTtl: 0 } }));
    expect(err.path).toBe('passkeys.challengeTtl');
  });

  test('relying party: RP ID = host name, origin = issuer origin', () => {
    expect(relyingPartyFor('https://id.example.com:8443/auth', 'X')).toEqual({
      id: 'id.example.com',
      origin: 'https://id.example.com:8443',
      name: 'X',
      usable: true,
    });
    expect(relyingPartyFor('http://app.localhost:3000', 'X').usable).toBe(true);
    expect(relyingPartyFor('https://[::1]:3000', 'X').usable).toBe(false);
  });
});
