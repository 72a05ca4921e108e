// @ts-expect-error oidc-provider's development adapter has no type declarations; it is the reference here.
import { createMemoryAdapter } from 'oidc-provider/lib/adapters/memory_adapter.js';
import { GRANT_LINKED_MODELS, type Adapter, type Storage } from '../core/storage.js';
import { assert, equal } from './assert.js';
import { grouped, onFreshFixture, type ConformanceCase, type FixtureCase } from './cases.js';

type StorageCase = FixtureCase<Storage>;

const basics: StorageCase[] = [
  {
    name: 'upsert then find returns a copy of the payload; unknown ids are undefined',
    async run(storage) {
      const a = storage.adapter('AccessToken');
      const payload = { jti: 'at1', accountId: 'alice', grantId: 'g1', scope: 'openid' };
      await a.upsert('at1', payload, 60);
      const found = await a.find('at1');
      equal(found, payload);
      found!.scope = 'changed';
      assert.equal((await a.find('at1'))!.scope, 'openid', 'a change to what find returned changed the stored entry');
      assert.equal(await a.find('nope'), undefined);
    },
  },
  {
    name:
      'what is stored is what JSON keeps: no later mutation of the upserted object, dates as strings, ' +
      'undefined left out',
    async run(storage) {
      const a = storage.adapter('Grant');
      const resources: Record<string, string> = { 'https://api.example': 'read' };
      const openid = { scope: 'openid' };
      const payload = { jti: 'g1', accountId: 'alice', openid, resources, at: new Date(0), gone: undefined };
      await a.upsert('g1', payload, 60);
      payload.openid.scope = 'openid email';
      payload.resources['https://other.example'] = 'write';
      const found = await a.find('g1');
      assert.ok(found && !Object.hasOwn(found, 'gone'), 'a member whose value was undefined was kept');
      equal(found, {
        jti: 'g1',
        accountId: 'alice',
        openid: { scope: 'openid' },
        resources: { 'https://api.example': 'read' },
        at: '1970-01-01T00:00:00.000Z',
      });
      (found!.openid as { scope: string }).scope = 'changed';
      assert.equal(((await a.find('g1'))!.openid as { scope: string }).scope, 'openid');
    },
  },
  {
    name: 'models are separate namespaces',
    async run(storage) {
      await storage.adapter('AccessToken').upsert('same', { kind: 'at' }, 60);
      await storage.adapter('RefreshToken').upsert('same', { kind: 'rt' }, 60);
      assert.equal((await storage.adapter('AccessToken').find('same'))!.kind, 'at');
      assert.equal((await storage.adapter('RefreshToken').find('same'))!.kind, 'rt');
    },
  },
  {
    name: 'upsert replaces the payload and its indexes',
    async run(storage) {
      const a = storage.adapter('Session');
      await a.upsert('s1', { uid: 'u-old' }, 60);
      await a.upsert('s1', { uid: 'u-new' }, 60);
      assert.equal(await a.findByUid('u-old'), undefined);
      assert.equal((await a.findByUid('u-new'))!.uid, 'u-new');
    },
  },
  {
    name: 'findByUid and findByUserCode',
    async run(storage) {
      await storage.adapter('Session').upsert('s2', { uid: 'uid-2', accountId: 'alice' }, 60);
      await storage.adapter('DeviceCode').upsert('d1', { userCode: 'ABCD-EFGH' }, 60);
      assert.equal((await storage.adapter('Session').findByUid('uid-2'))!.accountId, 'alice');
      equal(await storage.adapter('DeviceCode').findByUserCode('ABCD-EFGH'), { userCode: 'ABCD-EFGH' });
      assert.equal(await storage.adapter('Session').findByUid('missing'), undefined);
    },
  },
  {
    name: 'entries expire after expiresIn seconds',
    async run(storage) {
      const a = storage.adapter('AuthorizationCode');
      await a.upsert('c1', { uid: 'cu1', grantId: 'g-exp' }, 1);
      assert.notEqual(await a.find('c1'), undefined);
      await new Promise((r) => setTimeout(r, 1100));
      assert.equal(await a.find('c1'), undefined);
      assert.equal(await a.findByUid('cu1'), undefined);
    },
  },
];

// expiresIn as oidc-provider passes it: `exp - now` reaches 0 or less at the end of a lifetime (an Interaction
// resumed, a DeviceCode confirmed, a ReplayDetection), and a client's assertion `exp` can be any number.
const lifetimes: Array<[string, number | undefined, boolean]> = [
  ['undefined: kept, no expiry', undefined, true],
  ['0: already expired, removed', 0, false],
  ['-5: already expired, removed', -5, false],
  ['0.2: kept, rounded up', 0.2, true],
  ['1e12 (about 31,700 years): kept', 1e12, true],
  ['1e17 (beyond what Redis EXPIRE takes): kept', 1e17, true],
  ['1e300: kept', 1e300, true],
  ['Infinity: kept', Infinity, true],
];
const expiresInCases = lifetimes.map(
  ([label, expiresIn, kept]): StorageCase => ({
    name: `upsert with expiresIn ${label}; the earlier entry and its indexes are replaced`,
    async run(storage) {
      const a = storage.adapter('DeviceCode');
      await a.upsert('ttl', { userCode: 'OLD-CODE', grantId: 'g-ttl' }, 60);
      await a.upsert('ttl', { userCode: 'NEW-CODE', grantId: 'g-ttl' }, expiresIn);
      const expected = kept ? { userCode: 'NEW-CODE', grantId: 'g-ttl' } : undefined;
      const found = [await a.find('ttl'), await a.findByUserCode('NEW-CODE'), await a.findByUserCode('OLD-CODE')];
      equal(found, [expected, expected, undefined]);
      await a.revokeByGrantId('g-ttl');
      assert.equal(await a.find('ttl'), undefined);
    },
  }),
);

const destroyCase: StorageCase = {
  name: 'destroy removes the entry and its indexes',
  async run(storage) {
    const a = storage.adapter('Interaction');
    await a.upsert('i1', { uid: 'iu1' }, 60);
    await a.destroy('i1');
    assert.equal(await a.find('i1'), undefined);
    assert.equal(await a.findByUid('iu1'), undefined);
  },
};

type IndexMember = 'uid' | 'userCode' | 'grantId';

/**
 * Upserts, replaces and destroys entries whose index `member` is `value`, a non-string; `spellings` must find
 * nothing.
 */
async function nonStringIndex(a: Adapter, member: IndexMember, value: unknown, spellings: string[]): Promise<void> {
  const lookup = (v: string) =>
    member === 'uid' ? a.findByUid(v) : member === 'userCode' ? a.findByUserCode(v) : undefined;
  await a.upsert('n1', { [member]: value }, 60);
  equal(await a.find('n1'), { [member]: value });
  for (const s of spellings) assert.equal(await lookup(s), undefined, `looked up by ${JSON.stringify(s)}`);
  if (member === 'grantId') {
    for (const s of spellings) await a.revokeByGrantId(s);
    equal(await a.find('n1'), { [member]: value }, 'revoked by a spelling of a non-string grantId');
  }
  await a.upsert('n1', { [member]: 'x' }, 60);
  equal(await a.find('n1'), { [member]: 'x' });
  if (member !== 'grantId') equal(await lookup('x'), { [member]: 'x' });
  await a.upsert('n1', { [member]: value }, 60);
  equal(await a.find('n1'), { [member]: value });
  assert.equal(await lookup('x'), undefined);
  await a.destroy('n1');
  assert.equal(await a.find('n1'), undefined);
  await a.upsert('n2', { [member]: value }, 60);
  await a.revokeByGrantId('x');
  await a.destroy('n2');
  assert.equal(await a.find('n2'), undefined);
}

// oidc-provider writes strings here, but a payload is data: a null or an object in an index member broke the
// Redis scripts (cjson's null is a userdata: "attempt to concatenate field 'uid'") and answered 500.
const indexMembers: Array<[IndexMember, string]> = [
  ['uid', 'Session'],
  ['userCode', 'DeviceCode'],
  ['grantId', 'AccessToken'],
];
const nonStrings: Array<[string, unknown, string[]]> = [
  ['null', null, ['null']],
  ['an object', { a: 1 }, ['[object Object]', '{"a":1}', 'a']],
  ['a number', 5, ['5']],
  ['an empty string', '', ['']],
];
const indexCases = indexMembers.flatMap(([member, model]) =>
  grouped<Storage>(
    `only string values of ${member} are indexed`,
    nonStrings.map(([label, value, spellings]) => ({
      name: `${label}: stored as data, not indexed; replaced and destroyed without error`,
      run: (storage) => nonStringIndex(storage.adapter(model), member, value, spellings),
    })),
  ),
);

const consumeCases: StorageCase[] = [
  {
    name: 'consume marks the entry consumed once; a second consume throws',
    async run(storage) {
      const a = storage.adapter('AuthorizationCode');
      await a.upsert('c2', { grantId: 'g2' }, 60);
      await a.consume('c2');
      assert.equal(typeof (await a.find('c2'))!.consumed, 'number', 'consumed is epoch seconds');
      await assert.rejects(a.consume('c2'), { error: 'invalid_grant' });
      await assert.rejects(a.consume('missing'), { error: 'invalid_grant' });
    },
  },
  {
    name: 'concurrent consumes of one code: exactly one wins',
    async run(storage) {
      const a = storage.adapter('AuthorizationCode');
      await a.upsert('c3', { grantId: 'g3' }, 60);
      const results = await Promise.allSettled(Array.from({ length: 8 }, () => a.consume('c3')));
      assert.equal(results.filter((r) => r.status === 'fulfilled').length, 1);
      assert.equal(results.filter((r) => r.status === 'rejected').length, 7);
    },
  },
];

/** Every model that can carry a grantId, as oidc-provider stores them. */
const GRANT_CARRIERS = [
  'AccessToken',
  'AuthorizationCode',
  'RefreshToken',
  'DeviceCode',
  'BackchannelAuthenticationRequest',
  'PreAuthorizedCode',
  'ClientCredentials',
  'Interaction',
  'Session',
  'Grant',
  'PushedAuthorizationRequest',
  'ReplayDetection',
];

/** The models of {@link GRANT_CARRIERS} whose entry `t<i>` `find` still finds. */
async function survivors(find: (model: string) => Pick<Adapter, 'find'>): Promise<string[]> {
  const left: string[] = [];
  for (const [i, model] of GRANT_CARRIERS.entries()) if (await find(model).find(`t${i}`)) left.push(model);
  return left;
}

// An Interaction has the client's current grantId while a user switches accounts: revoking it broke prompt=login.
const revokeCase: StorageCase = {
  name: "revokeByGrantId removes exactly the models oidc-provider's own adapter removes, and nothing else",
  async run(storage) {
    const reference = createMemoryAdapter() as (model: string) => Adapter;
    for (const [i, model] of GRANT_CARRIERS.entries()) {
      for (const adapter of [storage.adapter(model), reference(model)]) {
        await adapter.upsert(`t${i}`, { jti: `t${i}`, uid: `u${i}`, grantId: 'victim' }, 60);
        await adapter.upsert(`k${i}`, { jti: `k${i}`, grantId: 'keeper' }, 60);
      }
    }
    await storage.adapter('AccessToken').revokeByGrantId('victim');
    await reference('AccessToken').revokeByGrantId('victim');
    const expected = await survivors(reference);
    equal(expected, [
      'ClientCredentials',
      'Interaction',
      'Session',
      'Grant',
      'PushedAuthorizationRequest',
      'ReplayDetection',
    ]);
    equal(await survivors(storage.adapter), expected);
    const interaction = await storage.adapter('Interaction').findByUid(`u${GRANT_CARRIERS.indexOf('Interaction')}`);
    assert.equal(interaction?.grantId, 'victim');
    for (const [i, model] of GRANT_CARRIERS.entries()) {
      assert.notEqual(await storage.adapter(model).find(`k${i}`), undefined, `${model} of another grant`);
    }
    // The grant-linked models are the exported list, in step with oidc-provider's.
    equal([...GRANT_LINKED_MODELS].sort(), GRANT_CARRIERS.filter((m) => !expected.includes(m)).sort());
  },
};

const pingCase: StorageCase = {
  name: 'ping resolves while the storage is up',
  async run(storage) {
    assert.equal(await storage.ping(), undefined);
  },
};

/**
 * The storage conformance suite: what oidc-provider's adapter contract and Portcullis' own models ask of a
 * {@link Storage} (see its TSDoc): copies and JSON data, namespaces per model, the `uid` / `userCode` / `grantId`
 * indexes (strings only), expiry in seconds (0 or less removes; up to `Infinity` keeps), the atomic `consume`,
 * `revokeByGrantId` in step with oidc-provider's own adapter, and `ping`. Every storage must pass it unchanged;
 * the memory, Redis and Redis Cluster storages run it in Portcullis' own tests.
 *
 * Each case opens its own storage with `make` (which must return a fresh, empty one, or one whose entries no other
 * case sees: a unique key prefix, say) and calls its `close()` at the end. One case waits 1.1 s for an entry to
 * expire; the others take a few round trips.
 * @param make returns a new storage (it may be async).
 * @returns the cases, in order: register each with your test runner, e.g. `for (const c of cases) test(c.name, c.run)`.
 * @example
 * ```ts
 * import { test } from 'node:test'; // or jest's / vitest's `test`
 * import { storageConformance } from 'portcullis/testing';
 * for (const c of storageConformance(() => new MyStorage())) test(c.name, c.run);
 * ```
 */
export function storageConformance(make: () => Storage | Promise<Storage>): ConformanceCase[] {
  const cases = [...basics, ...expiresInCases, destroyCase, ...indexCases, ...consumeCases, revokeCase, pingCase];
  return onFreshFixture(
    cases,
    async () => make(),
    (storage) => storage.close(),
  );
}
