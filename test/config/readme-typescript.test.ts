/**
 * Every TypeScript example of the README and of docs/ compiles as written (issue 28: examples used names they never defined,
 * `hostSession()`, `typeDefs`, `privateJwks`, and some were fragments with `...,` in them). Each ```ts block becomes
 * a module of its own (`export {}` appended, so blocks do not share names) and one strict `tsc --noEmit` checks them
 * all, with `portcullis`, `portcullis/rp`, `portcullis/redis` and `portcullis/graphql` resolved to this checkout's
 * sources as the package's `exports` map them. What an example leaves to the reader's own application (a database
 * layer, its schema, its session middleware) it imports from `./your-app.js`, which the test supplies as a stub with
 * those names. A ```typescript block is an excerpt or a summary of the sources (docs/architecture.md quotes
 * createServer and sums up the feature contract), not an example to copy, and is not compiled here.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { relyingParty, signIn } from '../helpers/flow.js';
import { documentationFiles, ROOT } from '../helpers/readme-command.js';
import { graphql, startServer } from '../helpers/server.js';

/** Each ```ts block of the README and docs/, with the file and line its code starts on. */
const blocks = documentationFiles().flatMap(([file, text]) =>
  [...text.matchAll(/^```ts\n([\s\S]*?)\n```$/gm)].map((m) => ({
    code: m[1]!,
    file,
    line: text.slice(0, m.index).split('\n').length + 1,
  })),
);
const dir = join(ROOT, `.readme-typescript-${process.pid}`);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The reader's own application, as the examples import from it (data layer, schema, session middleware): only its shape matters. */
const YOUR_DATABASE = `
import type { Middleware } from 'koa';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Account, AccountStore, PortcullisConfig, Storage, StoredSecondFactor } from 'portcullis';
export interface UserRow { id: string; email: string; emailKey: string; hash: string; verified: boolean; claims: Record<string, unknown>;
  mfa: StoredSecondFactor | null; mfaVersion: number }
export declare const db: {
  users: {
    byId(id: string): Promise<UserRow | undefined>;
    byEmailKey(key: string): Promise<UserRow | undefined>;
    insert(row: Omit<UserRow, 'id' | 'mfa' | 'mfaVersion'>): Promise<UserRow>;
    update(id: string, change: Partial<Omit<UserRow, 'claims'>> & { updatedAt?: number }): Promise<void>;
  };
  query(sql: string, values: unknown[]): Promise<{ rowCount: number }>;
};
export declare function toAccount(row: UserRow | undefined): Account | undefined;
export declare function now(): number;
export declare const DUMMY_HASH: string;
export declare const myStorage: Storage;
export declare function hostSession(): Middleware;
export declare const typeDefs: string;
export declare const resolvers: NonNullable<PortcullisConfig['graphql']>['resolvers'];
export declare const clients: PortcullisConfig['clients'];
export declare const accounts: PortcullisConfig['accounts'];
export declare function hostRoutes(req: IncomingMessage, res: ServerResponse): void;
export interface TestDatabase { query(sql: string, values: unknown[]): Promise<unknown>; drop(): Promise<void> }
export declare function openTestDatabase(): Promise<TestDatabase>;
export declare const MyAccountStore: { fromSeed(db: TestDatabase, seed: readonly unknown[]): Promise<AccountStore> };
export declare class MyStorage implements Storage {
  constructor(options: { keyPrefix: string });
  adapter: Storage['adapter']; ping: Storage['ping']; close: Storage['close'];
  accountStore: Storage['accountStore']; limiterBackend: Storage['limiterBackend'];
}
`;

test('the README and docs/ have TypeScript examples', () => {
  expect(blocks.length).toBeGreaterThanOrEqual(12);
  expect(blocks.filter((b) => b.file === 'README.md').length).toBeGreaterThanOrEqual(1);
});

test('every TypeScript example of the README and docs/ compiles with tsc --strict', () => {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'your-app.ts'), YOUR_DATABASE);
  blocks.forEach((b, i) => writeFileSync(join(dir, `block-${i}.ts`), `${b.code}\nexport {};\n`));
  writeFileSync(
    join(dir, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        target: 'ES2022',
        lib: ['ES2023'],
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        strict: true,
        noEmit: true,
        skipLibCheck: true,
        types: ['node'],
        baseUrl: '.',
        paths: {
          portcullis: ['../lib/index.ts'],
          'portcullis/rp': ['../lib/rp/index.ts'],
          'portcullis/redis': ['../lib/redis.ts'],
          'portcullis/graphql': ['../lib/graphql/index.ts'],
        },
      },
      include: ['*.ts'],
    }),
  );
  const tsc = spawnSync(
    process.execPath,
    [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', join(dir, 'tsconfig.json')],
    { encoding: 'utf8' },
  );
  // Errors in the examples, each with the file and line it is on (errors inside lib/ would be the library's own).
  const errors = [...tsc.stdout.matchAll(/^\.readme-typescript-\d+\/block-(\d+)\.ts\((\d+),\d+\): (.*)$/gm)].map(
    (m) => `${blocks[Number(m[1])]!.file}:${blocks[Number(m[1])]!.line + Number(m[2]) - 1}: ${m[3]}`,
  );
  expect(errors).toEqual([]);
  expect([tsc.status, tsc.stdout]).toEqual([0, '']);
}, 120_000);

test('the resolver example runs: `me` answers with the caller, and the private-field check has nothing to say', async () => {
  const block = blocks.find((b) => b.code.includes('Query: { me:'))!.code;
  // The example as a module of this checkout: `portcullis` is lib/index.ts, as in the type check above.
  mkdirSync(dir, { recursive: true });
  const file = join(dir, 'resolvers-example.ts');
  writeFileSync(
    file,
    `${block.replaceAll("from 'portcullis'", "from '../lib/index.js'")}\nexport { typeDefs, resolvers };\n`,
  );
  const example = (await import(file)) as { typeDefs: string; resolvers: Record<string, unknown> };
  const lines: string[] = [];
  const logger = pino(
    { level: 'warn' },
    new Writable({
      write(chunk, _enc, done) {
        lines.push(String(chunk));
        done();
      },
    }),
  );
  const srv = await startServer({
    graphql: { path: '/graphql', typeDefs: example.typeDefs, resolvers: example.resolvers as never },
    logger,
  });
  try {
    const { tokens } = await signIn(srv.issuer, await relyingParty(srv.issuer), {
      params: { scope: 'openid catalog:admin' },
      email: 'admin@example.com',
      password: 'admin-demo-password',
    });
    const res = await graphql(srv.graphqlUrl, '{ me { sub admin } }', { token: tokens.access_token });
    expect(res.body).toEqual({ data: { me: { sub: tokens.claims()!.sub, admin: true } } });
    expect((await graphql(srv.graphqlUrl, '{ me { admin } }')).body).toEqual({ data: { me: null } });
    expect(lines.join('')).not.toMatch(/private|requiresScopes/i);
  } finally {
    await srv.close();
  }
}, 60_000);
