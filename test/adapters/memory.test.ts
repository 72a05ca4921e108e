import { MemoryStorage } from '../../adapters/memory.js';
import { StorageUnavailableError } from '../../lib/core/errors.js';
import { adapterConformance } from './conformance.js';

adapterConformance('memory', async () => new MemoryStorage());

describe('memory storage specifics', () => {
  test('it never evicts live entries: 5000 codes all stay findable', async () => {
    const storage = new MemoryStorage();
    const a = storage.adapter('AuthorizationCode');
    for (let i = 0; i < 5000; i++) await a.upsert(`c${i}`, { grantId: `g${i}` }, 60);
    for (let i = 0; i < 5000; i += 499) expect(await a.find(`c${i}`)).toBeDefined();
    expect(storage.size).toBe(5000);
    await storage.close();
  });

  test('with maxEntries reached, a new write fails with a 503 StorageUnavailableError (ERR_STORAGE_FULL) instead of evicting', async () => {
    const storage = new MemoryStorage({ maxEntries: 2 });
    const a = storage.adapter('Session');
    await a.upsert('s1', {}, 60);
    await a.upsert('s2', {}, 60);
    await a.upsert('s1', { updated: true }, 60); // updating an existing entry is fine
    const full = await a.upsert('s3', {}, 60).then(() => undefined, (err: unknown) => err);
    expect(full).toBeInstanceOf(StorageUnavailableError);
    expect(full).toMatchObject({ status: 503, expose: true, code: 'ERR_STORAGE_FULL', message: expect.stringContaining('storage is full') });
    expect(await a.find('s1')).toEqual({ updated: true });
    expect(await a.find('s2')).toBeDefined();
    await storage.close();
  });

  test('sweep drops expired entries', async () => {
    const storage = new MemoryStorage();
    await storage.adapter('AccessToken').upsert('x', { grantId: 'g' }, 1);
    storage.sweep(Date.now() + 2000);
    expect(storage.size).toBe(0);
    await storage.close();
  });
});
