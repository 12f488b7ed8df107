import { posix } from 'node:path';
import { parseYamlData } from '../../util/yaml-data.js';
import { z } from 'zod';
import { TRUNCATE_STRATEGIES, type TruncateStrategy } from '../../tokenize/truncate.js';
import { manifestPathProblem, normalizeManifestPath } from '../paths.js';
import { issuesToConfigError } from '../zod-issues.js';

/**
 * The working-set manifest of spec 001 ("Context Assembly Protocol", section 2), as a strict
 * zod schema. schemas/working-set.schema.json is generated from it (`z.toJSONSchema`) and
 * test/manifest/working-set-schema.test.ts fails when the two drift.
 *
 * Defaults that depend on other fields (budget.effective, truncate_strategy by role and
 * extension) cannot live in the schema; `resolveWorkingSet` fills them, and only it.
 */
export const WORKING_SET_PROTOCOL = 'CONTEXT-ASSEMBLY/0.1';

export const WORKING_SET_ROLES = ['system', 'developer', 'user', 'context'] as const;
export type WorkingSetRole = (typeof WORKING_SET_ROLES)[number];

export type { TruncateStrategy };

/** Roles that carry instructions: a repository file gets them only when the manifest trusts them. */
export const INSTRUCTION_ROLES = ['system', 'developer'] as const;
export type InstructionRole = (typeof INSTRUCTION_ROLES)[number];

const tokens = z.number().int().nonnegative();

export const WorkingSetFileSchema = z.strictObject({
  /** File path relative to the root, POSIX separators; `..` and absolute paths are refused. */
  path: z.string().min(1).describe('File path relative to the root'),
  /** 0.0-1.0, higher = more important; ties are broken by path. */
  priority: z.number().min(0).max(1).describe('0.0-1.0, higher = more important'),
  /** How to inject the file: system/developer need `trusted_roles`. */
  role: z.enum(WORKING_SET_ROLES).default('context').describe('How to inject: system/developer/user/context'),
  /** How to cut when the file does not fit; default by role and extension (docs/working-sets.md). */
  truncate_strategy: z.enum(TRUNCATE_STRATEGIES).optional().describe('How to cut: never/start/middle/end'),
  /** Hard limit on lines, applied (with the strategy) before the budget. */
  max_lines: z.number().int().positive().optional().describe('Hard limit on lines'),
  /** Extension: why the file is in the working set (written by `aiwg working-set add --why`). */
  why: z.string().optional().describe('Why the file is in the working set'),
});

/** Spec 001 section 8: conversation history typically takes 2,000-5,000 tokens; the low end. */
export const CONVERSATION_DEFAULT_TOKENS = 2000;
/** Below the task (developer files) and above plain context files of the default 0.5. */
export const CONVERSATION_DEFAULT_PRIORITY = 0.6;

export const WorkingSetSchema = z
  .strictObject({
    protocol: z.literal(WORKING_SET_PROTOCOL).describe('Protocol version of the manifest'),
    budget: z.strictObject({
      max_tokens: z.number().int().positive().describe('Total context window of the model'),
      reserved_for_response: tokens.default(0).describe('Tokens kept free for the answer'),
      /** Default max_tokens - reserved_for_response; may be set lower, never higher. */
      effective: tokens.optional().describe('Tokens the assembled context may use (default max_tokens - reserved_for_response)'),
    }),
    /**
     * Extension (security): roles among system/developer that repository files may take.
     * File content is data; without this a file asking for `role: system` is rendered as context.
     */
    trusted_roles: z.array(z.enum(INSTRUCTION_ROLES)).default([]).describe('Instruction roles files may take'),
    files: z.array(WorkingSetFileSchema).default([]),
    /**
     * Extension (spec 001 section 8's "conversation history" slot): a session file whose
     * conversation (rolling summary + recent window, built by `aiwg conversation build`) is
     * placed in the context within its own share of the budget.
     */
    conversation: z
      .strictObject({
        session: z.string().min(1).describe('Session JSON file relative to the root (aiwg conversation build --session)'),
        max_tokens: z.number().int().positive().default(CONVERSATION_DEFAULT_TOKENS).describe('Share of the budget for the conversation'),
        priority: z.number().min(0).max(1).default(CONVERSATION_DEFAULT_PRIORITY).describe('0.0-1.0, ranked among the files'),
      })
      .optional()
      .describe('Conversation history slot'),
    metadata: z
      .strictObject({
        last_updated: z.iso.datetime({ offset: true }).optional(),
        assembled_by: z.enum(['model', 'orchestrator', 'user']).optional(),
      })
      .optional(),
  })
  .superRefine((value, ctx) => {
    const { max_tokens, reserved_for_response, effective } = value.budget;
    const limit = max_tokens - reserved_for_response;
    if (limit <= 0) {
      ctx.addIssue({
        code: 'custom',
        path: ['budget', 'reserved_for_response'],
        message: `reserved_for_response ${reserved_for_response} leaves nothing of max_tokens ${max_tokens}: lower reserved_for_response or raise max_tokens`,
      });
    } else if (effective !== undefined && effective > limit) {
      ctx.addIssue({
        code: 'custom',
        path: ['budget', 'effective'],
        message: `effective ${effective} is larger than max_tokens - reserved_for_response = ${max_tokens} - ${reserved_for_response} = ${limit}: set effective to ${limit} or less (or remove it to use ${limit})`,
      });
    }
    const seen = new Map<string, number>();
    value.files.forEach((file, index) => {
      const problem = manifestPathProblem(file.path);
      if (problem) {
        ctx.addIssue({ code: 'custom', path: ['files', index, 'path'], message: problem });
        return;
      }
      const key = normalizeManifestPath(file.path);
      const earlier = seen.get(key);
      if (earlier !== undefined) {
        ctx.addIssue({
          code: 'custom',
          path: ['files', index, 'path'],
          message: `"${file.path}" is already listed at files.${earlier}: keep one entry (use the priority you want)`,
        });
      } else seen.set(key, index);
    });
    if (value.conversation) {
      const problem = manifestPathProblem(value.conversation.session);
      if (problem) ctx.addIssue({ code: 'custom', path: ['conversation', 'session'], message: problem });
      else if (seen.has(normalizeManifestPath(value.conversation.session))) {
        ctx.addIssue({ code: 'custom', path: ['conversation', 'session'], message: `"${value.conversation.session}" is also listed in files: the raw session file and its built conversation would both be placed; remove it from files` });
      }
    }
  });

export type WorkingSetInput = z.input<typeof WorkingSetSchema>;
type ParsedWorkingSet = z.output<typeof WorkingSetSchema>;

/** A file entry with every default resolved. */
export interface WorkingSetFile {
  path: string;
  priority: number;
  role: WorkingSetRole;
  truncate_strategy: TruncateStrategy;
  /** True when the manifest gave the strategy (false: the role/extension default applied). */
  strategyExplicit: boolean;
  max_lines?: number;
  why?: string;
}

/** A validated manifest with every default resolved. */
export interface WorkingSet {
  protocol: typeof WORKING_SET_PROTOCOL;
  budget: { max_tokens: number; reserved_for_response: number; effective: number };
  trusted_roles: InstructionRole[];
  files: WorkingSetFile[];
  /** The conversation-history slot; `session` normalized like a file path. */
  conversation?: { session: string; max_tokens: number; priority: number };
  metadata?: ParsedWorkingSet['metadata'];
}

/** Validate a parsed manifest value; `file` names it in errors. */
export function validateWorkingSet(value: unknown, file: string): WorkingSet {
  const parsed = WorkingSetSchema.safeParse(value, { reportInput: true });
  if (!parsed.success) throw issuesToConfigError(file, parsed.error.issues);
  return resolveWorkingSet(parsed.data);
}

/** Parse and validate the YAML text of a manifest. */
export function parseWorkingSet(text: string, file: string): WorkingSet {
  return validateWorkingSet(parseYamlData(text, file, { uniqueKeys: false }) ?? {}, file);
}

function resolveWorkingSet(parsed: ParsedWorkingSet): WorkingSet {
  const { max_tokens, reserved_for_response, effective } = parsed.budget;
  return {
    protocol: parsed.protocol,
    budget: { max_tokens, reserved_for_response, effective: effective ?? max_tokens - reserved_for_response },
    trusted_roles: [...new Set(parsed.trusted_roles)].sort(),
    files: parsed.files.map((file) => {
      const path = normalizeManifestPath(file.path);
      const resolved: WorkingSetFile = {
        path,
        priority: file.priority,
        role: file.role,
        truncate_strategy: file.truncate_strategy ?? defaultTruncateStrategy(file.role, path),
        strategyExplicit: file.truncate_strategy !== undefined,
      };
      if (file.max_lines !== undefined) resolved.max_lines = file.max_lines;
      if (file.why !== undefined) resolved.why = file.why;
      return resolved;
    }),
    ...(parsed.conversation ? { conversation: { ...parsed.conversation, session: normalizeManifestPath(parsed.conversation.session) } } : {}),
    ...(parsed.metadata ? { metadata: parsed.metadata } : {}),
  };
}

const DOCUMENT_EXTENSIONS = new Set(['.md', '.mdx', '.markdown', '.rst', '.adoc', '.txt']);
const LOG_EXTENSIONS = new Set(['.log', '.out', '.jsonl']);
const LOG_NAME = /(^|[-_.])logs?([-_.]|$)/i;

/**
 * Default truncation when the manifest gives none (spec 001 section 4 advice, made a rule):
 * system -> never (a constitution is whole or absent); developer and user -> end (read
 * top-down); logs (`.log`, `.out`, `.jsonl`, or "log" in the file name) -> start (recent
 * lines matter); documents (`.md`, `.rst`, `.txt`, ...) -> end; code and everything else ->
 * middle (keeps imports and the end of the file).
 */
export function defaultTruncateStrategy(role: WorkingSetRole, path: string): TruncateStrategy {
  if (role === 'system') return 'never';
  if (role === 'developer' || role === 'user') return 'end';
  const ext = posix.extname(path).toLowerCase();
  const base = posix.basename(path, ext);
  if (LOG_EXTENSIONS.has(ext) || LOG_NAME.test(base)) return 'start';
  if (DOCUMENT_EXTENSIONS.has(ext)) return 'end';
  return 'middle';
}

/** The JSON Schema published as schemas/working-set.schema.json. */
export function workingSetJsonSchema(): Record<string, unknown> {
  const { $schema, ...rest } = z.toJSONSchema(WorkingSetSchema, { io: 'input', unrepresentable: 'any' });
  return {
    $schema,
    title: `aiwg working-set manifest (${WORKING_SET_PROTOCOL})`,
    description:
      'Spec 001 working set: files an agent declares for its context, with priority, role, truncation strategy and line limit, fitted by `aiwg assemble` into budget.effective (default max_tokens - reserved_for_response). Paths are relative to the root.',
    ...rest,
  };
}
