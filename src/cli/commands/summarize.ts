import type { Command } from '../command.js';
import { ensureOwnDirs } from '../../cache/own-dirs.js';
import { LEVELS, type Level } from '../../config/schema.js';
import { UsageError } from '../../errors.js';
import { createStderrReporter } from '../../util/reporter.js';
import { loadCommandConfig } from '../command-config.js';
import { summarizeFile } from '../../summarize/summarize-file.js';

/** `aiwg summarize <file>`: one level of one file, with its token count. */
export const summarizeCommand: Command = {
  name: 'summarize',
  usage: 'aiwg summarize <file> [--level full|detailed|summary|stub] [--cache|--no-cache] [--root DIR] [--json]',
  allowPositionals: true,
  options: {
    level: { type: 'string', short: 'l' },
    cache: { type: 'boolean' },
    'no-cache': { type: 'boolean' },
    root: { type: 'string' },
    config: { type: 'string' },
    json: { type: 'boolean' },
  },
  help: {
    '--level L': 'full, detailed, summary or stub (default: summary)',
    '--cache': 'read and write the summary cache (default, unless summarization.caching.enabled is false)',
    '--no-cache': 'compute without reading or writing any cache',
    '--root DIR': 'repository root (default: the current directory); <file> is relative to it',
    '--config FILE': 'config file (default: <root>/.aiwg/rag/config.yaml)',
    '--json': 'print {path, level, tokens, content, cached} as one JSON object',
  },
  async run({ values, positionals }, io) {
    if (positionals.length !== 1) throw new UsageError('give exactly one file: aiwg summarize src/auth/login.ts --level detailed');
    const level = (typeof values.level === 'string' ? values.level : 'summary') as Level;
    if (!LEVELS.includes(level)) throw new UsageError(`--level ${level}: use one of ${LEVELS.join(', ')}`);
    if (values.cache === true && values['no-cache'] === true) throw new UsageError('--cache and --no-cache contradict each other: pass one');
    const { root, config } = await loadCommandConfig(values, io);
    const useCache = values['no-cache'] === true ? false : values.cache === true || config.summarization.caching.enabled;
    if (useCache) await ensureOwnDirs(root, config);
    const result = await summarizeFile({ root, file: positionals[0] as string, config, level, useCache }, { env: io.env });
    const reporter = createStderrReporter({ write: io.stderr, isTTY: io.isTTY });
    for (const warning of result.warnings) reporter.warn(warning);
    if (values.json === true) {
      const { path, tokens, content, cached } = result;
      io.stdout(`${JSON.stringify({ path, level, tokens, content, cached })}\n`);
    } else {
      io.stdout(`${result.path} [${level}] ${result.tokens} tokens (${config.tokenizer}), ${result.cached ? 'from cache' : 'computed'}\n\n${result.content}\n`);
    }
    return 0;
  },
};
