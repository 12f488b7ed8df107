import { isAbsolute, resolve } from 'node:path';
import { TOOL_OUTPUT_MAX_TOKENS } from '../../conversation/message-caps.js';
import { addToolOutput, removeToolOutput, type ToolOutputTarget } from '../../manifest/working-set/tool-output.js';
import { MAX_INPUT_FILE_BYTES, readInsideRoot } from '../../security/read-guard.js';
import { createTokenizer } from '../../tokenize/tokenizer.js';
import type { CliIo, Command, OptionValues } from '../command.js';
import { UsageError } from '../../errors.js';
import { credentialFileReason } from '../../collect/exclusion-rules.js';
import { resolveRecordsDir } from '../../cache/cache-dir.js';
import { resolveRoot } from '../resolve-root.js';
import { loadCommandConfig } from '../command-config.js';
import { createJsonlAppender } from '../../manifest/fs-io.js';
import { locateInRoot, normalizeManifestPath, toRootRelative } from '../../manifest/paths.js';
import {
  displayManifestPath,
  loadWorkingSet,
  resolveWorkingSetEventsPath,
  resolveWorkingSetPath,
  updateWorkingSetFile,
} from '../../manifest/working-set/manifest-file.js';
import { planRefresh, readRecordUsage } from '../../manifest/working-set/refresh.js';
import { WORKING_SET_ROLES, type WorkingSetRole } from '../../manifest/working-set/schema.js';
import { TRUNCATE_STRATEGIES, type TruncateStrategy } from '../../tokenize/truncate.js';
import type { WorkingSetActor, WorkingSetEvent, WorkingSetUpdate } from '../../manifest/working-set/update.js';

const SUBCOMMANDS = ['add', 'remove', 'priority', 'refresh', 'tool-output'] as const;
const ACTORS = ['model', 'orchestrator', 'user'] as const;
/** Priority of `add` without --priority: the middle of spec 001's 0.3 (nice to have) .. 1.0 (critical). */
const DEFAULT_ADD_PRIORITY = 0.5;

/** `aiwg working-set`: spec 001 section 6 updates, edited in place and logged with their `why`. */
export const workingSetCommand: Command = {
  name: 'working-set',
  usage: [
    'aiwg working-set add <path> --why "..." [--priority N] [--role R] [--truncate-strategy S] [--max-lines N]',
    '       aiwg working-set remove <path> --why "..."',
    '       aiwg working-set priority <path> --priority N --why "..."',
    '       aiwg working-set refresh [--bump-recent N] [--demote-unused N]',
    '       aiwg working-set tool-output add <name> --from FILE --why "..." [--keep N] [--cap N] [--priority N]',
    '       aiwg working-set tool-output remove <name> --why "..."',
  ].join('\n'),
  allowPositionals: true,
  options: {
    priority: { type: 'string' },
    role: { type: 'string' },
    'truncate-strategy': { type: 'string' },
    'max-lines': { type: 'string' },
    why: { type: 'string' },
    by: { type: 'string' },
    'working-set': { type: 'string' },
    root: { type: 'string' },
    'bump-recent': { type: 'string' },
    'demote-unused': { type: 'string' },
    from: { type: 'string' },
    keep: { type: 'string' },
    cap: { type: 'string' },
    json: { type: 'boolean' },
  },
  help: {
    '--why "..."': 'reason for the update, required for add/remove/priority (spec 001: all calls require why)',
    '--priority N': `0.0-1.0, higher = more important (add default ${DEFAULT_ADD_PRIORITY})`,
    '--role R': `how to inject the file: ${WORKING_SET_ROLES.join(', ')} (add only; default context)`,
    '--truncate-strategy S': `add only: ${TRUNCATE_STRATEGIES.join(', ')} (default by role and extension)`,
    '--max-lines N': 'add only: hard limit on lines kept from the file',
    '--by A': `who made the update: ${ACTORS.join(', ')} (default user; refresh is always orchestrator)`,
    '--working-set FILE': 'the manifest (default: <root>/working-set.yml, else <root>/.aiwg/working-set.yml)',
    '--root DIR': 'repository root; paths are relative to it (default: the current directory)',
    '--bump-recent N': 'refresh: raise by 0.1 the files used in the newest N budget records',
    '--demote-unused N': 'refresh: lower by 0.1 the context files unused in the newest N budget records',
    '--from FILE': 'tool-output add: the output to add, a file inside the root (normalised and capped like a conversation\'s tool output)',
    '--keep N': 'tool-output add: keep only the N most recent tool outputs in the working set',
    '--cap N': `tool-output add: token cap of the kept text (default ${TOOL_OUTPUT_MAX_TOKENS}); the full text is stored out of band`,
    '--json': 'print the logged events as JSON',
  },
  async run({ values, positionals }, io) {
    const [sub, path, ...extra] = positionals;
    if (!isSubcommand(sub)) throw new UsageError(`expected a subcommand (${SUBCOMMANDS.join(', ')}), got ${sub === undefined ? 'none' : `"${sub}"`}`);
    const root = await resolveRoot(values.root, io.cwd);
    const file = await resolveWorkingSetPath(root, typeof values['working-set'] === 'string' ? values['working-set'] : undefined, io.cwd);
    const log = createJsonlAppender(resolveWorkingSetEventsPath(root), { root });
    const now = () => Date.now();

    let events: WorkingSetEvent[];
    if (sub === 'tool-output') {
      events = await toolOutput(positionals.slice(1), values, { root, file, log, now }, io);
    } else if (sub === 'refresh') {
      if (path !== undefined) throw new UsageError(`refresh takes no path, got "${path}"`);
      events = await refresh(values, { root, file, log, now }, io.stderr);
    } else {
      if (path === undefined) throw new UsageError(`${sub} needs a path: aiwg working-set ${sub} <path> --why "..."`);
      if (extra.length > 0) throw new UsageError(`one path per update, got also ${extra.join(' ')}`);
      // A path already in the manifest may be removed even when it is invalid (e.g. "../x").
      const relative = sub === 'remove' && !isAbsolute(path) ? normalizeManifestPath(path) : toRootRelative(root, path);
      const update = buildUpdate(sub, relative, values);
      if (sub === 'add') await refuseCredentialFile(root, relative, { values, io });
      if (sub !== 'remove') {
        const located = await locateInRoot(root, root, relative);
        if (located.kind === 'missing') io.stderr(`warning: ${relative}: ${located.reason}; it is excluded from assembly until it exists\n`);
      }
      events = await updateWorkingSetFile({ root, file, updates: [update], by: actorFlag(values), now, log });
    }

    if (values.json === true) io.stdout(`${JSON.stringify(events, null, 2)}\n`);
    else io.stdout(events.length === 0 ? `no changes to ${displayManifestPath(root, file)}\n` : events.map(describeEvent).join(''));
    return 0;
  },
};

/**
 * A working set may not name a file that is a credential by name (`.env`, `id_rsa`, a
 * kubeconfig, `.aws/credentials`, ...): assembly would exclude it anyway, so adding it is
 * refused up front, unless collect.include_secrets opts in.
 */
async function refuseCredentialFile(root: string, path: string, command: { values: OptionValues; io: CliIo }): Promise<void> {
  const reason = credentialFileReason(path);
  if (reason === undefined) return;
  const { config } = await loadCommandConfig(command.values, command.io, { root });
  if (config.collect.include_secrets) return;
  throw new UsageError(`cannot add ${path}: it is a credentials file (${reason.replace(/^secret: /, '')}); a working set never carries it`);
}

function isSubcommand(value: string | undefined): value is (typeof SUBCOMMANDS)[number] {
  return (SUBCOMMANDS as readonly (string | undefined)[]).includes(value);
}

function buildUpdate(sub: 'add' | 'remove' | 'priority', path: string, values: OptionValues): WorkingSetUpdate {
  const why = typeof values.why === 'string' ? values.why.trim() : '';
  if (why === '') throw new UsageError(`--why "..." is required: say why ${path} is being ${sub === 'add' ? 'added' : sub === 'remove' ? 'removed' : 're-prioritised'} (it is logged)`);
  if (sub === 'remove') return { action: 'remove_from_working_set', path, why };
  const priority = priorityFlag(values, sub === 'add' ? DEFAULT_ADD_PRIORITY : undefined);
  if (sub === 'priority') return { action: 'adjust_priority', path, priority, why };
  const role = values.role;
  if (role !== undefined && !(WORKING_SET_ROLES as readonly string[]).includes(String(role))) {
    throw new UsageError(`--role "${String(role)}" is not a role: use one of ${WORKING_SET_ROLES.join(', ')}`);
  }
  const strategy = values['truncate-strategy'];
  if (strategy !== undefined && !(TRUNCATE_STRATEGIES as readonly string[]).includes(String(strategy))) {
    throw new UsageError(`--truncate-strategy "${String(strategy)}" is not valid: use one of ${TRUNCATE_STRATEGIES.join(', ')}`);
  }
  const maxLines = countFlag(values, 'max-lines', 'lines');
  return {
    action: 'add_to_working_set',
    path,
    priority,
    why,
    ...(role !== undefined ? { role: role as WorkingSetRole } : {}),
    ...(strategy !== undefined ? { truncate_strategy: strategy as TruncateStrategy } : {}),
    ...(maxLines !== undefined ? { max_lines: maxLines } : {}),
  };
}

function priorityFlag(values: OptionValues, fallback: number | undefined): number {
  const raw = values.priority;
  if (raw === undefined) {
    if (fallback !== undefined) return fallback;
    throw new UsageError('--priority N is required: a number from 0.0 to 1.0');
  }
  const value = Number(raw);
  if (String(raw).trim() === '' || !Number.isFinite(value) || value < 0 || value > 1) {
    throw new UsageError(`--priority "${String(raw)}" is not a number from 0.0 to 1.0`);
  }
  return value;
}

/** A whole number >= 1, or undefined when the flag is absent. */
function countFlag(values: OptionValues, name: string, unit: string): number | undefined {
  const raw = values[name];
  if (raw === undefined) return undefined;
  if (!/^[1-9]\d*$/.test(String(raw).trim())) throw new UsageError(`--${name} "${String(raw)}" is not a whole number of ${unit} >= 1: pass e.g. --${name} 3`);
  return Number(raw);
}

function actorFlag(values: OptionValues): WorkingSetActor {
  const raw = values.by ?? 'user';
  if (!(ACTORS as readonly string[]).includes(String(raw))) throw new UsageError(`--by "${String(raw)}" is not valid: use one of ${ACTORS.join(', ')}`);
  return raw as WorkingSetActor;
}

async function refresh(
  values: OptionValues,
  options: { root: string; file: string; log: ReturnType<typeof createJsonlAppender>; now: () => number },
  warn: (text: string) => void,
): Promise<WorkingSetEvent[]> {
  const bumpRecent = countFlag(values, 'bump-recent', 'budget records');
  const demoteUnused = countFlag(values, 'demote-unused', 'budget records');
  if (bumpRecent === undefined && demoteUnused === undefined) throw new UsageError('refresh needs --bump-recent N and/or --demote-unused N (N >= 1)');
  const manifest = await loadWorkingSet(options.file);
  const { records, warnings } = await readRecordUsage(resolveRecordsDir(options.root));
  for (const warning of warnings) warn(`warning: ${warning}\n`);
  const changes = planRefresh(manifest, records, { ...(bumpRecent !== undefined ? { bumpRecent } : {}), ...(demoteUnused !== undefined ? { demoteUnused } : {}) });
  const updates: WorkingSetUpdate[] = changes.map((change) => ({
    action: 'adjust_priority',
    path: change.path,
    priority: change.to,
    why: `${change.kind}: ${change.why}`,
  }));
  return updateWorkingSetFile({ ...options, updates, by: 'orchestrator' });
}

/** `tool-output add|remove <name>`: spec 001's orchestrator-initiated updates (always by the orchestrator). */
async function toolOutput(args: string[], values: OptionValues, target: ToolOutputTarget, io: CliIo): Promise<WorkingSetEvent[]> {
  const [action, name, ...extra] = args;
  if (action !== 'add' && action !== 'remove') throw new UsageError(`tool-output expects add or remove, got ${action === undefined ? 'none' : `"${action}"`}`);
  if (name === undefined) throw new UsageError(`tool-output ${action} needs a name: aiwg working-set tool-output ${action} <name> --why "..."`);
  if (extra.length > 0) throw new UsageError(`one tool output per update, got also ${extra.join(' ')}`);
  const why = typeof values.why === 'string' ? values.why.trim() : '';
  if (why === '') throw new UsageError(`--why "..." is required: say why tool output ${name} is being ${action === 'add' ? 'added' : 'removed'} (it is logged)`);
  if (action === 'remove') return (await removeToolOutput({ ...target, name, why })).events;
  if (typeof values.from !== 'string' || values.from === '') throw new UsageError('tool-output add needs --from FILE: the tool output, a file inside the root');
  // The one read-path guard: inside the root after symlinks, a regular file, size checked first.
  const read = await readInsideRoot(target.root, resolve(io.cwd, values.from), { maxBytes: MAX_INPUT_FILE_BYTES });
  if (read.kind === 'refused') {
    const fix = read.code === 'outside-root' ? 'copy it into the root or pass --root' : 'pass a regular file inside the root';
    throw new UsageError(`--from ${values.from}: ${read.code === 'outside-root' ? `is outside the root ${target.root}` : `it ${read.reason}`}; ${fix}`);
  }
  const keep = countFlag(values, 'keep', 'tool outputs');
  const cap = countFlag(values, 'cap', 'tokens');
  const { config } = await loadCommandConfig(values, io, { root: target.root });
  const change = await addToolOutput({
    ...target,
    name,
    why,
    text: read.file.bytes.toString('utf8'),
    tokenizer: await createTokenizer(config.tokenizer),
    ...(values.priority !== undefined ? { priority: priorityFlag(values, undefined) } : {}),
    ...(keep !== undefined ? { keep } : {}),
    ...(cap !== undefined ? { cap } : {}),
  });
  if (change.pointer !== undefined) io.stderr(`tool output ${name}: ${change.tokens ?? 0} tokens kept in ${change.path}; full text ${change.pointer} (aiwg conversation show-output ${change.pointer})\n`);
  return change.events;
}

function describeEvent(event: WorkingSetEvent): string {
  switch (event.action) {
    case 'add_to_working_set':
      return `added ${event.path} (priority ${event.priority}) to ${event.manifest}: ${event.why}\n`;
    case 'remove_from_working_set':
      return `removed ${event.path} from ${event.manifest}: ${event.why}\n`;
    case 'adjust_priority':
      return `${event.path}: priority ${event.previous_priority ?? '?'} -> ${event.priority} in ${event.manifest}: ${event.why}\n`;
  }
}
