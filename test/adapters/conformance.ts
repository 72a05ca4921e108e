// @ts-expect-error oidc-provider's development adapter has no type declarations; it is the reference here.
import { createMemoryAdapter } from 'oidc-provider/lib/adapters/memory_adapter.js';
import { GRANT_LINKED_MODELS, type Storage } from '../../lib/core/storage.js';

/**
 * The storage conformance suite: every adapter must pass it unchanged. `make` returns a fresh, empty storage.
 */
export function adapterConformance(name: string, make: () => Promise<Storage>): void {
  describe(`${name} storage: oidc-provider adapter contract`, () => {
    let storage: Storage;
    beforeEach(async () => { storage = await make(); });
    afterEach(() => storage.close());

    test('upsert then find returns a copy of the payload; unknown ids are undefined', async () => {
      const a = storage.adapter('AccessToken');
      const payload = { jti: 'at1', accountId: 'alice', grantId: 'g1', scope: 'openid' };
      await a.upsert('at1', payload, 60);
      const found = await a.find('at1');
      expect(found).toEqual(payload);
      found!.scope = 'changed';
      expect((await a.find('at1'))!.scope).toBe('openid');
      expect(await a.find('nope')).toBeUndefined();
    });

    test('what is stored is what JSON keeps: no later mutation of the upserted object, dates as strings, undefined left out', async () => {
      const a = storage.adapter('Grant');
      const payload = { jti: 'g1', accountId: 'alice', openid: { scope: 'openid' }, resources: { 'https://api.example': 'read' } as Record<string, string>, at: new Date(0), gone: undefined };
      await a.upsert('g1', payload, 60);
      payload.openid.scope = 'openid email';
      payload.resources['https://other.example'] = 'write';
      const found = await a.find('g1');
      expect(found).toStrictEqual({ jti: 'g1', accountId: 'alice', openid: { scope: 'openid' }, resources: { 'https://api.example': 'read' }, at: '1970-01-01T00:00:00.000Z' });
      (found!.openid as { scope: string }).scope = 'changed';
      expect(((await a.find('g1'))!.openid as { scope: string }).scope).toBe('openid');
    });

    test('models are separate namespaces', async () => {
      await storage.adapter('AccessToken').upsert('same', { kind: 'at' }, 60);
      await storage.adapter('RefreshToken').upsert('same', { kind: 'rt' }, 60);
      expect((await storage.adapter('AccessToken').find('same'))!.kind).toBe('at');
      expect((await storage.adapter('RefreshToken').find('same'))!.kind).toBe('rt');
    });

    test('upsert replaces the payload and its indexes', async () => {
      const a = storage.adapter('Session');
      await a.upsert('s1', { uid: 'u-old' }, 60);
      await a.upsert('s1', { uid: 'u-new' }, 60);
      expect(await a.findByUid('u-old')).toBeUndefined();
      expect((await a.findByUid('u-new'))!.uid).toBe('u-new');
    });

    test('findByUid and findByUserCode', async () => {
      await storage.adapter('Session').upsert('s2', { uid: 'uid-2', accountId: 'alice' }, 60);
      await storage.adapter('DeviceCode').upsert('d1', { userCode: 'ABCD-EFGH' }, 60);
      expect((await storage.adapter('Session').findByUid('uid-2'))!.accountId).toBe('alice');
      expect((await storage.adapter('DeviceCode').findByUserCode('ABCD-EFGH'))).toEqual({ userCode: 'ABCD-EFGH' });
      expect(await storage.adapter('Session').findByUid('missing')).toBeUndefined();
    });

    test('entries expire after expiresIn seconds', async () => {
      const a = storage.adapter('AuthorizationCode');
      await a.upsert('c1', { uid: 'cu1', grantId: 'g-exp' }, 1);
      expect(await a.find('c1')).toBeDefined();
      await new Promise((r) => setTimeout(r, 1100));
      expect(await a.find('c1')).toBeUndefined();
      expect(await a.findByUid('cu1')).toBeUndefined();
    });

    // expiresIn as oidc-provider passes it: `exp - now` reaches 0 or less at the end of a lifetime (an Interaction
    // resumed, a DeviceCode confirmed, a ReplayDetection), and a client's assertion `exp` can be any number.
    test.each<[string, number | undefined, boolean]>([
      ['undefined: kept, no expiry', undefined, true],
      ['0: already expired, removed', 0, false],
      ['-5: already expired, removed', -5, false],
      ['0.2: kept, rounded up', 0.2, true],
      ['1e12 (about 31,700 years): kept', 1e12, true],
      ['1e17 (beyond what Redis EXPIRE takes): kept', 1e17, true],
      ['1e300: kept', 1e300, true],
      ['Infinity: kept', Infinity, true],
    ])('upsert with expiresIn %s; the earlier entry and its indexes are replaced', async (_name, expiresIn, kept) => {
      const a = storage.adapter('DeviceCode');
      await a.upsert('ttl', { userCode: 'OLD-CODE', grantId: 'g-ttl' }, 60);
      await a.upsert('ttl', { userCode: 'NEW-CODE', grantId: 'g-ttl' }, expiresIn);
      const expected = kept ? { userCode: 'NEW-CODE', grantId: 'g-ttl' } : undefined;
      expect([await a.find('ttl'), await a.findByUserCode('NEW-CODE'), await a.findByUserCode('OLD-CODE')]).toEqual([expected, expected, undefined]);
      await a.revokeByGrantId('g-ttl');
      expect(await a.find('ttl')).toBeUndefined();
    });

    test('destroy removes the entry and its indexes', async () => {
      const a = storage.adapter('Interaction');
      await a.upsert('i1', { uid: 'iu1' }, 60);
      await a.destroy('i1');
      expect(await a.find('i1')).toBeUndefined();
      expect(await a.findByUid('iu1')).toBeUndefined();
    });

    // oidc-provider writes strings here, but a payload is data: a null or an object in an index member broke the
    // Redis scripts (cjson's null is a userdata: "attempt to concatenate field 'uid'") and answered 500.
    describe.each<[string, string, 'uid' | 'userCode' | 'grantId']>([
      ['uid', 'Session', 'uid'], ['userCode', 'DeviceCode', 'userCode'], ['grantId', 'AccessToken', 'grantId'],
    ])('only string values of %s are indexed', (_name, model, member) => {
      const lookup = (value: string) => (member === 'uid' ? storage.adapter(model).findByUid(value)
        : member === 'userCode' ? storage.adapter(model).findByUserCode(value) : undefined);
      test.each<[string, unknown, string[]]>([
        ['null', null, ['null']],
        ['an object', { a: 1 }, ['[object Object]', '{"a":1}', 'a']],
        ['a number', 5, ['5']],
        ['an empty string', '', ['']],
      ])('%s: stored as data, not indexed; replaced and destroyed without error', async (_value, value, spellings) => {
        const a = storage.adapter(model);
        await a.upsert('n1', { [member]: value }, 60);
        expect(await a.find('n1')).toEqual({ [member]: value });
        for (const s of spellings) expect(await lookup(s)).toBeUndefined();
        if (member === 'grantId') {
          for (const s of spellings) await a.revokeByGrantId(s);
          expect(await a.find('n1')).toEqual({ [member]: value });
        }
        await a.upsert('n1', { [member]: 'x' }, 60);
        expect(await a.find('n1')).toEqual({ [member]: 'x' });
        if (member !== 'grantId') expect(await lookup('x')).toEqual({ [member]: 'x' });
        await a.upsert('n1', { [member]: value }, 60);
        expect(await a.find('n1')).toEqual({ [member]: value });
        expect(await lookup('x')).toBeUndefined();
        await a.destroy('n1');
        expect(await a.find('n1')).toBeUndefined();
        await a.upsert('n2', { [member]: value }, 60);
        await a.revokeByGrantId('x');
        await a.destroy('n2');
        expect(await a.find('n2')).toBeUndefined();
      });
    });

    test('consume marks the entry consumed once; a second consume throws', async () => {
      const a = storage.adapter('AuthorizationCode');
      await a.upsert('c2', { grantId: 'g2' }, 60);
      await a.consume('c2');
      const consumed = (await a.find('c2'))!.consumed;
      expect(typeof consumed).toBe('number');
      await expect(a.consume('c2')).rejects.toMatchObject({ error: 'invalid_grant' });
      await expect(a.consume('missing')).rejects.toMatchObject({ error: 'invalid_grant' });
    });

    test('concurrent consumes of one code: exactly one wins', async () => {
      const a = storage.adapter('AuthorizationCode');
      await a.upsert('c3', { grantId: 'g3' }, 60);
      const results = await Promise.allSettled(Array.from({ length: 8 }, () => a.consume('c3')));
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
      expect(results.filter((r) => r.status === 'rejected')).toHaveLength(7);
    });

    test('revokeByGrantId removes exactly the models oidc-provider\'s own adapter removes, and nothing else', async () => {
      // Every model that can carry a grantId, as oidc-provider stores them (Interaction has the client's current
      // grantId while a user switches accounts: revoking it broke prompt=login).
      const models = ['AccessToken', 'AuthorizationCode', 'RefreshToken', 'DeviceCode', 'BackchannelAuthenticationRequest',
        'PreAuthorizedCode', 'ClientCredentials', 'Interaction', 'Session', 'Grant', 'PushedAuthorizationRequest', 'ReplayDetection'];
      const reference = createMemoryAdapter();
      for (const [i, model] of models.entries()) {
        for (const adapter of [storage.adapter(model), reference(model)]) {
          await adapter.upsert(`t${i}`, { jti: `t${i}`, uid: `u${i}`, grantId: 'victim' }, 60);
          await adapter.upsert(`k${i}`, { jti: `k${i}`, grantId: 'keeper' }, 60);
        }
      }
      await storage.adapter('AccessToken').revokeByGrantId('victim');
      await reference('AccessToken').revokeByGrantId('victim');
      const survivors = async (find: (model: string) => { find(id: string): Promise<unknown> }) => {
        const left: string[] = [];
        for (const [i, model] of models.entries()) if (await find(model).find(`t${i}`)) left.push(model);
        return left;
      };
      const expected = await survivors(reference);
      expect(expected).toEqual(['ClientCredentials', 'Interaction', 'Session', 'Grant', 'PushedAuthorizationRequest', 'ReplayDetection']);
      expect(await survivors(storage.adapter)).toEqual(expected);
      expect((await storage.adapter('Interaction').findByUid(`u${models.indexOf('Interaction')}`))?.grantId).toBe('victim');
      for (const [i, model] of models.entries()) expect(await storage.adapter(model).find(`k${i}`)).toBeDefined();
      // The grant-linked models are the exported list, in step with oidc-provider's.
      expect([...GRANT_LINKED_MODELS].sort()).toEqual(models.filter((m) => !expected.includes(m)).sort());
    });

    test('ping resolves while the storage is up', async () => {
      await expect(storage.ping()).resolves.toBeUndefined();
    });
  });
}
