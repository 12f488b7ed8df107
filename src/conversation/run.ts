import { realpath } from 'node:fs/promises';
import { basename, extname, relative, resolve } from 'node:path';
import type { Config } from '../config/schema.js';
import { InputError } from '../errors.js';
import { redactSecrets } from '../security/redact-secrets.js';
import { readInsideRoot } from '../security/read-guard.js';
import { createConfiguredLlm } from '../summarize/levels-stage.js';
import type { FetchPort } from '../summarize/summarizers/llm.js';
import { createTokenizer, type Tokenizer } from '../tokenize/tokenizer.js';
import { buildConversation, type BuiltConversation } from './build.js';
import type { ConversationFormatName } from './formats/index.js';
import { parseSession, redactSession, type Session } from './session.js';
import { readSessionRecord, storeOutputs, writeSessionRecord } from './store.js';
import { createExtractiveSummarizer, createLlmConversationSummarizer, type ConversationSummarizer } from './summary.js';

/** Session files are conversations, not repositories: anything bigger is a mistake. */
export const MAX_SESSION_BYTES = 16 * 1024 * 1024;

export interface ConversationRunOptions {
  root: string;
  /** The session file, absolute or relative to the root; it must be inside the root. */
  session: string;
  /** How errors name the session file (default: `session`), e.g. the path as the user typed it. */
  sessionLabel?: string;
  config: Config;
  format: ConversationFormatName;
  /** Payload budget; default budget_config.total_budget.max_tokens - reserve_for_output. */
  maxTokens?: number;
  maxMessages?: number;
  /** Write stored outputs and the session record (default true). */
  persist?: boolean;
  env?: Record<string, string | undefined>;
  fetch?: FetchPort;
  now?: () => number;
  /** Where the LLM summarizer's fallbacks are reported. */
  warn?: (message: string) => void;
}

export interface ConversationRun extends BuiltConversation {
  session: Session;
}

/**
 * `aiwg conversation build` as a library call: read the session file (inside the root, a
 * regular file, at most MAX_SESSION_BYTES), redact credentials (unless
 * collect.include_secrets), resume from the session record, build, then store the cut tool
 * outputs and the new record under `.aiwg/conversation/`.
 */
export async function runConversationBuild(options: ConversationRunOptions): Promise<ConversationRun> {
  const { root, config } = options;
  const parsed = await readSession(root, options.session, options.sessionLabel);
  const session = config.collect.include_secrets ? parsed : await redactSession(parsed, async (text) => (await redactSecrets(text)).text);
  const tokenizer: Tokenizer = await createTokenizer(config.tokenizer);
  const total = config.budget_config.total_budget;
  const maxTokens = options.maxTokens ?? Math.max(1, total.max_tokens - total.reserve_for_output);
  const persist = options.persist ?? true;
  const built = await buildConversation(session, {
    maxTokens,
    format: options.format,
    tokenizer,
    ...(options.maxMessages !== undefined ? { maxMessages: options.maxMessages } : {}),
    summarizer: configuredSummarizer(config, options),
    record: await readSessionRecord(root, session.id),
    nowIso: new Date((options.now ?? Date.now)()).toISOString(),
  });
  if (persist) {
    await storeOutputs(root, built.outputs);
    await writeSessionRecord(root, built.record);
  }
  return { ...built, session };
}

function configuredSummarizer(config: Config, options: ConversationRunOptions): ConversationSummarizer {
  const llm = createConfiguredLlm(config, { ...(options.env ? { env: options.env } : {}), ...(options.fetch ? { fetch: options.fetch } : {}) });
  if (!llm) return createExtractiveSummarizer();
  return createLlmConversationSummarizer(llm, (message) => options.warn?.(message));
}

/** Read and parse a session file; a path leading outside the root is refused. */
export async function readSession(root: string, file: string, label = file): Promise<Session> {
  const path = label;
  // The one read-path guard: inside the root after symlinks, a regular file, size checked before reading.
  const read = await readInsideRoot(root, resolve(root, file), { maxBytes: MAX_SESSION_BYTES });
  if (read.kind === 'refused') {
    const message: Record<typeof read.code, string> = {
      'not-found': `--session ${path}: cannot read the file (ENOENT); pass a session JSON file inside the root`,
      'outside-root': `--session ${path} is outside the root ${root}: copy it into the root or pass --root`,
      'not-regular': `--session ${path} is not a regular file (it ${read.reason}): pass a session JSON file`,
      'too-large': `--session ${path} ${read.reason}: split the session`,
      unreadable: `--session ${path}: ${read.reason}; pass a session JSON file inside the root`,
    };
    throw new InputError(message[read.code]);
  }
  const real = read.file.realPath;
  const realRoot = await realpath(root);
  const text = read.file.bytes.toString('utf8');
  const display = relative(realRoot, real).split('\\').join('/');
  return parseSession(text, display, { fallbackId: sessionIdFromName(basename(real, extname(real))) });
}

function sessionIdFromName(name: string): string {
  const id = name.replace(/[^A-Za-z0-9._-]/g, '-').replace(/^[^A-Za-z0-9]+/, '').slice(0, 100);
  return id === '' ? 'session' : id;
}
