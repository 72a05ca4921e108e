import { settingsFromEnvironment } from '../../lib/cli/environment.js';
import { mergeConfig } from '../../lib/config/merge.js';
import { createServer } from '../../lib/server.js';
import { ConfigError } from '../../lib/core/errors.js';

/**
 * A configuration file (`portcullis start --config`) with a "__proto__" member: JSON.parse keeps it as an own
 * member, and the merge of the file over the CLI's base used to assign it, which set the merged object's prototype
 * instead (at the top level the configuration was then refused as "(root): configuration must be an object", and
 * `"__proto__": null` or `{}` vanished without a word). It must reach the check like any other unknown option.
 */
const rows: Array<[string, string, string]> = [
  [
    'an object at the top level',
    '{"storage":{"type":"memory"},"__proto__":{"issuer":"http://evil.example"}}',
    '__proto__',
  ],
  ['null at the top level', '{"storage":{"type":"memory"},"__proto__":null}', '__proto__'],
  ['an array at the top level', '{"storage":{"type":"memory"},"__proto__":[]}', '__proto__'],
  ['an empty object at the top level', '{"storage":{"type":"memory"},"__proto__":{}}', '__proto__'],
  ['an object in storage', '{"storage":{"type":"memory","__proto__":{"type":"redis"}}}', 'storage.__proto__'],
  ['null in mfa', '{"storage":{"type":"memory"},"mfa":{"__proto__":null}}', 'mfa.__proto__'],
];

describe.each(rows)('a config file with "__proto__" as %s', (_name, json, path) => {
  test(`is refused with a ConfigError naming ${path}`, async () => {
    const { config } = settingsFromEnvironment({ PORT: '0' }, { file: JSON.parse(json) as Record<string, unknown> });
    const err = await createServer(config).then(
      async (s) => {
        await s.close();
        return undefined;
      },
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as Error).message).toContain(`"${path}": unknown option`);
  });
});

test('mergeConfig keeps a "__proto__" member as an own member and the prototype untouched', () => {
  const merged = mergeConfig<Record<string, unknown>>(
    { a: { b: 1 } },
    JSON.parse('{"__proto__":{"polluted":true},"a":{"__proto__":{"c":2}}}') as Record<string, unknown>,
  );
  expect(Object.getPrototypeOf(merged)).toBe(Object.prototype);
  expect(Object.getPrototypeOf(merged.a)).toBe(Object.prototype);
  expect(Object.keys(merged)).toEqual(['a', '__proto__']);
  expect(Object.keys(merged.a as object)).toEqual(['b', '__proto__']);
  expect(merged.polluted).toBeUndefined();
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
});
