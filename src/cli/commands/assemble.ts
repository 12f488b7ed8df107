import type { Command } from '../command.js';
import { RUN_ID_HELP, runIdFlag } from '../run-id-flag.js';
import { createStderrReporter } from '../../util/reporter.js';
import { budgetFlags, parseFormat } from '../budget-flags.js';
import { loadCommandConfig } from '../command-config.js';
import { resolveWorkingSetPath } from '../../manifest/working-set/manifest-file.js';
import { formatAssemblyReport } from '../../manifest/working-set/report.js';
import { assembleWorkingSetFile } from '../../manifest/working-set/assemble-file.js';

/** `aiwg assemble`: the context a working-set manifest declares (spec 001), within its budget. */
export const assembleCommand: Command = {
  name: 'assemble',
  usage: 'aiwg assemble [--working-set FILE] [--root DIR] [--format xml|markdown|json] [--json] [--tokenizer T] [--no-levels] [--no-log] [--run-id ID]',
  options: {
    'working-set': { type: 'string' },
    root: { type: 'string' },
    config: { type: 'string' },
    format: { type: 'string' },
    json: { type: 'boolean' },
    tokenizer: { type: 'string' },
    'no-levels': { type: 'boolean' },
    'no-log': { type: 'boolean' },
    'run-id': { type: 'string' },
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
    '--run-id ID': RUN_ID_HELP,
  },
  async run({ values }, io) {
    const runId = runIdFlag(values['run-id']);
    const { root, config } = await loadCommandConfig(values, io, { flags: budgetFlags(values) });
    const format = parseFormat(values.format);
    const file = await resolveWorkingSetPath(root, typeof values['working-set'] === 'string' ? values['working-set'] : undefined, io.cwd);
    const reporter = createStderrReporter({ write: io.stderr, isTTY: io.isTTY });
    const result = await assembleWorkingSetFile({ root, config, file, format, useLevels: values['no-levels'] !== true, log: values['no-log'] !== true, reporter, env: io.env, ...(runId !== undefined ? { runId } : {}) });
    if (values.json === true) {
      io.stdout(`${JSON.stringify({ context: result.context, report: result.report }, null, 2)}\n`);
    } else {
      io.stdout(result.context);
      io.stderr(formatAssemblyReport(result.report));
    }
    return 0;
  },
};
