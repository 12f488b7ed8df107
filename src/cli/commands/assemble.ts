import type { Command } from '../command.js';
import { loadConfig } from '../../config/load.js';
import { createTokenizer } from '../../tokenize/tokenizer.js';
import { createStderrReporter } from '../../util/reporter.js';
import { budgetFlags, parseFormat } from '../budget-flags.js';
import { resolveFromCwd, resolveRoot } from '../resolve-root.js';
import { createRootReader } from '../../manifest/paths.js';
import { assembleWorkingSet } from '../../manifest/working-set/assemble.js';
import { createLevelsPort } from '../../manifest/working-set/levels-port.js';
import { displayManifestPath, loadWorkingSet, resolveWorkingSetEventsPath, resolveWorkingSetPath } from '../../manifest/working-set/manifest-file.js';
import { assemblyEvent, formatAssemblyReport } from '../../manifest/working-set/report.js';
import { createJsonlAppender } from '../../manifest/fs-io.js';

/** `aiwg assemble`: the context a working-set manifest declares (spec 001), within its budget. */
export const assembleCommand: Command = {
  name: 'assemble',
  summary: 'Assemble the context a working-set manifest declares (spec 001), within its budget',
  usage: 'aiwg assemble [--working-set FILE] [--root DIR] [--format xml|markdown|json] [--json] [--tokenizer T] [--no-levels] [--no-log]',
  options: {
    'working-set': { type: 'string' },
    root: { type: 'string' },
    config: { type: 'string' },
    format: { type: 'string' },
    json: { type: 'boolean' },
    tokenizer: { type: 'string' },
    'no-levels': { type: 'boolean' },
    'no-log': { type: 'boolean' },
  },
  help: {
    '--working-set FILE': 'the manifest (default: <root>/working-set.yml, else <root>/.aiwg/working-set.yml)',
    '--root DIR': 'repository root; manifest paths are relative to it (default: the current directory)',
    '--config FILE': 'config file (default: <root>/.aiwg/rag/config.yaml)',
    '--format F': 'format of the context: xml (default, spec 001 role tags), markdown or json',
    '--json': 'print one JSON object {context, report} on stdout instead of context + stderr report',
    '--tokenizer T': 'token counter for the budget: o200k (default), cl100k or chars4',
    '--no-levels': 'do not fall back to summary levels for files that do not fit whole; truncate them',
    '--no-log': 'do not append the "assembled" line to .aiwg/rag/working-set-events.jsonl',
  },
  async run({ values }, io) {
    const root = await resolveRoot(values.root, io.cwd);
    const configFile = typeof values.config === 'string' ? resolveFromCwd(values.config, io.cwd) : undefined;
    const { config } = await loadConfig({ root, env: io.env, flags: budgetFlags(values), configFile, cwd: io.cwd });
    const format = parseFormat(values.format);
    const file = await resolveWorkingSetPath(root, typeof values['working-set'] === 'string' ? values['working-set'] : undefined, io.cwd);
    const manifest = await loadWorkingSet(file);
    const tokenizer = await createTokenizer(config.tokenizer);
    const reporter = createStderrReporter({ write: io.stderr, isTTY: io.isTTY });
    const runContext = { config, tokenizer, reporter, nowMs: Date.now(), warnings: [] };
    const useLevels = values['no-levels'] !== true && config.summarization.enabled;

    const manifestPath = displayManifestPath(root, file);
    const result = await assembleWorkingSet(
      manifest,
      { root, manifestPath, tokenizer, format },
      { readFile: createRootReader(root, { redactSecrets: !config.collect.include_secrets }), ...(useLevels ? { levels: createLevelsPort({ root, config, ctx: runContext }) } : {}) },
    );

    if (values['no-log'] !== true) {
      await createJsonlAppender(resolveWorkingSetEventsPath(root), { root })(assemblyEvent(result.report, manifestPath, runContext.nowMs));
    }
    if (values.json === true) {
      io.stdout(`${JSON.stringify({ context: result.context, report: result.report }, null, 2)}\n`);
    } else {
      io.stdout(result.context);
      io.stderr(formatAssemblyReport(result.report));
    }
    return 0;
  },
};
