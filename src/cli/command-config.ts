import type { ConfigInput } from '../config/schema.js';
import { loadConfig, type LoadedConfig } from '../config/load.js';
import type { CliIo, OptionValues } from './command.js';
import { resolveFromCwd, resolveRoot } from './resolve-root.js';

/** A command's root and its resolved config. */
export interface CommandConfig extends LoadedConfig {
  /** Real path of `--root` (default: the working directory). */
  root: string;
}

/**
 * The one way a command gets its config: `--root` resolved (unless the command resolved it
 * already and passes `root`), `--config` resolved against the working directory, then
 * defaults < config file < the command's environment (AIWG_*) < `flags`.
 */
export async function loadCommandConfig(values: OptionValues, io: CliIo, options: { root?: string; flags?: ConfigInput } = {}): Promise<CommandConfig> {
  const root = options.root ?? (await resolveRoot(values.root, io.cwd));
  const configFile = typeof values.config === 'string' ? resolveFromCwd(values.config, io.cwd) : undefined;
  const loaded = await loadConfig({ root, env: io.env, configFile, cwd: io.cwd, ...(options.flags ? { flags: options.flags } : {}) });
  return { root, ...loaded };
}
