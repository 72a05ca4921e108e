import { MemoryStorage } from '../../adapters/memory.js';
import { StorageUnavailableError } from '../../lib/core/errors.js';
import { storageConformance } from '../../lib/testing/index.js';

// The exported suite, registered as a host registers it (docs/guides/custom-storage.md).
describe('memory storage: oidc-provider adapter contract', () => {
  for (const c of storageConformance(() => new MemoryStorage())) test(c.name, c.run);
});

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
    const full = await a.upsert('s3', {}, 60).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(full).toBeInstanceOf(StorageUnavailableError);
    expect(full).toMatchObject({
      status: 503,
      expose: true,
      code: 'ERR_STORAGE_FULL',
      message: expect.stringContaining('storage is full'),
    });
    expect(await a.find('s1')).toEqual({ updated: true });
    expect(await a.find('s2')).toBeDefined();
    await storage.close();
  });

  test('the timer sweeps a large store a slice per event-loop turn, and keeps live entries', async () => {
    const storage = new MemoryStorage({ sweepIntervalMs: 10 });
    const codes = storage.adapter('AuthorizationCode');
    for (let i = 0; i < 5000; i++) await codes.upsert(`expired${i}`, { grantId: `g${i % 7}` }, 0.001);
    for (let i = 0; i < 3; i++) await codes.upsert(`live${i}`, { grantId: 'g0' }, 60);
    await new Promise((resolve) => setTimeout(resolve, 5)); // every `expired` entry is past its time
    const turn = () => new Promise((resolve) => setImmediate(resolve));
    while (storage.size === 5003) await turn(); // the timer's sweep has started
    const afterFirstTurn = storage.size;
    while (storage.size > 3) await turn();
    // One pass would have gone from 5003 to 3 between two turns; a slice looks at 2000 entries.
    expect(afterFirstTurn).toBeGreaterThan(3);
    expect(afterFirstTurn).toBeLessThan(5003);
    for (let i = 0; i < 3; i++) expect(await codes.find(`live${i}`)).toEqual({ grantId: 'g0' });
    expect(await codes.find('expired0')).toBeUndefined();
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
