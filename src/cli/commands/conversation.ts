import type { Command, OptionValues } from '../command.js';
import { UsageError } from '../../errors.js';
import { CONVERSATION_FORMATS, type ConversationFormatName } from '../../conversation/formats/index.js';
import { runConversationBuild, type ConversationRun } from '../../conversation/run.js';
import { readOutput } from '../../conversation/store.js';
import { DEFAULT_MAX_MESSAGES } from '../../conversation/window.js';
import { TOKENIZER_IDS } from '../../tokenize/tokenizer.js';
import { formatCount, plural } from '../../util/format.js';
import { intFlag } from '../budget-flags.js';
import { loadCommandConfig } from '../command-config.js';
import { resolveFromCwd, resolveRoot } from '../resolve-root.js';

const SUBCOMMANDS = ['build', 'show-output'] as const;

/** `aiwg conversation`: spec 002's prompt builder, and the store of cut tool outputs. */
export const conversationCommand: Command = {
  name: 'conversation',
  usage: [
    'aiwg conversation build --session FILE [--max-tokens N] [--format openai|anthropic|text] [--json]',
    '       aiwg conversation show-output <pointer>',
  ].join('\n'),
  allowPositionals: true,
  options: {
    session: { type: 'string' },
    'max-tokens': { type: 'string' },
    'max-messages': { type: 'string' },
    format: { type: 'string' },
    tokenizer: { type: 'string' },
    root: { type: 'string' },
    config: { type: 'string' },
    json: { type: 'boolean' },
    'no-store': { type: 'boolean' },
  },
  help: {
    '--session FILE': 'the session: JSON with system, messages (OpenAI shape), plan, retrieved',
    '--max-tokens N': 'budget of the whole payload, counted by the tokenizer (default: max_tokens - reserve_for_output)',
    '--max-messages N': `bound on the recent window's message count (default ${DEFAULT_MAX_MESSAGES})`,
    '--format F': `${Object.keys(CONVERSATION_FORMATS).join(', ')} (default openai)`,
    '--tokenizer T': `token counter: ${TOKENIZER_IDS.join(', ')} (default from config, o200k)`,
    '--root DIR': 'repository root; the session file must be inside it (default: the current directory)',
    '--config FILE': 'config file (default: <root>/.aiwg/rag/config.yaml)',
    '--json': 'print the payload with the build report, the session record and the stored pointers',
    '--no-store': 'do not write stored outputs nor the session record',
  },
  async run({ values, positionals }, io) {
    const [sub, ...rest] = positionals;
    if (!(SUBCOMMANDS as readonly (string | undefined)[]).includes(sub)) {
      throw new UsageError(`expected a subcommand (${SUBCOMMANDS.join(', ')}), got ${sub === undefined ? 'none' : `"${sub}"`}`);
    }
    const root = await resolveRoot(values.root, io.cwd);
    if (sub === 'show-output') {
      if (rest.length !== 1) throw new UsageError('give one pointer: aiwg conversation show-output sha256:0123456789abcdef');
      io.stdout(await readOutput(root, rest[0]!));
      return 0;
    }
    if (rest.length > 0) throw new UsageError(`build takes no positional arguments, got ${rest.join(' ')}: pass the session with --session FILE`);
    if (typeof values.session !== 'string') throw new UsageError('--session FILE is required: aiwg conversation build --session session.json');
    const tokenizer = values.tokenizer;
    if (tokenizer !== undefined && !(TOKENIZER_IDS as readonly string[]).includes(String(tokenizer))) {
      throw new UsageError(`--tokenizer "${String(tokenizer)}" is not valid: use one of ${TOKENIZER_IDS.join(', ')}`);
    }
    const flags = tokenizer !== undefined ? { tokenizer: tokenizer as (typeof TOKENIZER_IDS)[number] } : {};
    const { config } = await loadCommandConfig(values, io, { root, flags });
    const maxTokens = positiveFlag(values, 'max-tokens');
    const maxMessages = positiveFlag(values, 'max-messages');
    const run = await runConversationBuild({
      root,
      session: resolveFromCwd(values.session, io.cwd),
      sessionLabel: values.session,
      config,
      format: formatFlag(values.format),
      ...(maxTokens !== undefined ? { maxTokens } : {}),
      ...(maxMessages !== undefined ? { maxMessages } : {}),
      persist: values['no-store'] !== true,
      env: io.env,
      warn: (message) => io.stderr(`warning: ${message}\n`),
    });
    for (const warning of run.report.warnings) io.stderr(`warning: ${warning}\n`);
    if (values.json === true) {
      io.stdout(`${JSON.stringify({ payload: run.payload, tokens: run.tokens, report: run.report, record: run.record, stored_outputs: run.outputs.map((o) => o.pointer) }, null, 2)}\n`);
    } else {
      io.stdout(typeof run.payload === 'string' ? run.payload : `${JSON.stringify(run.payload, null, 2)}\n`);
      io.stderr(describeRun(run));
    }
    return 0;
  },
};

/** One stderr line: what the build kept, so stdout stays the payload alone. */
function describeRun(run: ConversationRun): string {
  const { report } = run;
  const m = report.messages;
  const parts = [
    `${formatCount(report.budget.used)} of ${formatCount(report.budget.max_tokens)} tokens (${report.tokenizer})`,
    `${m.in_window} of ${m.in_session} messages in the window`,
    report.summary ? `${m.summarised} summarised (${formatCount(report.summary.tokens)} tokens${report.summary.resumed ? ', resumed from the session record' : ''})` : 'no summary needed',
    `${plural(report.tool_outputs.stored, 'tool output')} stored out of band`,
  ];
  return `conversation ${run.session.id}: ${parts.join('; ')}\n`;
}

function formatFlag(value: unknown): ConversationFormatName {
  if (value === undefined) return 'openai';
  if (Object.hasOwn(CONVERSATION_FORMATS, String(value))) return value as ConversationFormatName;
  throw new UsageError(`--format "${String(value)}" is not valid: use one of ${Object.keys(CONVERSATION_FORMATS).join(', ')}`);
}

function positiveFlag(values: OptionValues, name: string): number | undefined {
  const n = intFlag(values, name);
  if (n !== undefined && n < 1) throw new UsageError(`--${name} must be at least 1, got ${n}`);
  return n;
}
