import { readFileSync } from 'node:fs';
import { extname, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { PortcullisConfig } from '../../config/types.js';
import { ConfigError, jsonSyntaxErrorWithoutInput } from '../core/errors.js';

/**
 * Reads a configuration file for `portcullis start` / `doctor`: `.json` (parsed; errors name the position, never
 * the content, which may hold secrets) or `.js`/`.mjs` (an ES module whose default export is the configuration
 * object, or a function returning it or a promise of it).
 *
 * @throws {ConfigError} `ERR_CONFIG_INVALID` at path `--config` when the file cannot be read or parsed, or its
 *   default export is not an object.
 */
export async function readConfigFile(path: string): Promise<PortcullisConfig> {
  const absolute = resolve(path);
  let value: unknown;
  if (['.js', '.mjs'].includes(extname(absolute))) {
    try {
      const mod = (await import(pathToFileURL(absolute).href)) as { default?: unknown };
      value = typeof mod.default === 'function' ? await (mod.default as () => unknown)() : mod.default;
    } catch (err) {
      // The class or code only, never the message (it may quote a secret); a module may throw a non-Error.
      const what =
        err instanceof Error
          ? ((err as NodeJS.ErrnoException).code ?? err.name)
          : `it ` +
            `threw ${err == null ? String(err) : `${/^[aeiou]/.test(typeof err) ? 'an' : 'a'} ${typeof err}`}, ` +
            `not an Error`;
      throw new ConfigError('--config', `cannot load ${path}: ${what}`, 'ERR_CONFIG_INVALID', { cause: err });
    }
  } else {
    let text: string;
    try {
      text = readFileSync(absolute, 'utf8');
    } catch (err) {
      throw new ConfigError('--config', `cannot read ${path}: ${(err as NodeJS.ErrnoException).code ?? 'unreadable'}`);
    }
    try {
      value = JSON.parse(text);
    } catch (err) {
      throw new ConfigError('--config', `cannot read JSON from ${path}: ${jsonSyntaxErrorWithoutInput(err)}`);
    }
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new ConfigError(
      '--config',
      `${path} must ${extname(absolute) === '.json' ? 'hold a JSON object' : 'export default a configuration object'}`,
    );
  }
  return value as PortcullisConfig;
}
