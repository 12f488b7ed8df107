import { parseArgs } from 'node:util';
import { isAiwgError, UsageError } from '../errors.js';
import { describeWriteFailure } from '../util/atomic-write.js';
import type { CliIo, Command } from './command.js';
import { COMMANDS, findCommand, type CommandEntry } from './commands/index.js';
import { TOOL_VERSION } from '../version.js';

/**
 * Run the CLI on an argv array (without `node` and the script) and return the exit code.
 * Only this layer prints; tests call it with fake io.
 */
export async function runMain(argv: string[], io: CliIo = processIo()): Promise<number> {
  const [name, ...rest] = argv;
  if (name === 'help' && rest.length > 0) {
    const topic = findCommand(rest[0]);
    if (!topic) {
      io.stderr(`aiwg: unknown command "${rest[0]}". Run "aiwg help" for the list.\n`);
      return 2;
    }
    io.stdout(renderCommandHelp(topic, await topic.load()));
    return 0;
  }
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    io.stdout(renderCommandList());
    return name === undefined ? 2 : 0;
  }
  if (name === '--version' || name === '-v') {
    io.stdout(`${TOOL_VERSION}\n`);
    return 0;
  }
  const entry = findCommand(name);
  if (!entry) {
    io.stderr(`aiwg: unknown command "${name}". Run "aiwg --help" for the list.\n`);
    return 2;
  }
  // git starts on the repository here while the command's module loads (collect/git-ahead.ts)
  const gitAhead = startsGitAhead(entry, rest) ? (await import('../collect/git-ahead.js')).startGitAhead(io.cwd, io.env) : undefined;
  // Only the invoked command's module is imported (see commands/index.ts).
  const command = await entry.load();
  if (wantsHelp(rest)) {
    io.stdout(renderCommandHelp(entry, command));
    return 0;
  }
  try {
    const parsed = parseCommandArgs(command, rest);
    return await command.run(parsed, gitAhead ? { ...io, gitAhead } : io);
  } catch (error) {
    const failure = describeFailure(error);
    io.stderr(`aiwg ${command.name}: ${failure.message}\n`);
    return failure.exitCode;
  }
}

/**
 * Whether the runner starts `entry`'s first git commands in the working directory before loading
 * it: a command that collects there (CommandEntry.gitAhead), run for its result, whose root is the
 * working directory (no `--root`, which would name another).
 */
export function startsGitAhead(entry: CommandEntry, args: readonly string[]): boolean {
  return entry.gitAhead === true && !wantsHelp(args) && !args.some((arg) => arg === '--root' || arg.startsWith('--root='));
}

function wantsHelp(args: readonly string[]): boolean {
  return args.includes('--help') || args.includes('-h');
}

/**
 * The error boundary. Every failure the user can fix is one line naming the path, flag or key
 * and the fix, exit 2 (or the AiwgError's own code): typed errors of the engine, and errors of
 * the environment (permissions, a full disk, a missing directory) that escaped a wrapper. Only
 * a real bug (any other exception) is "internal error", exit 70, with its stack.
 */
export function describeFailure(error: unknown): { message: string; exitCode: number } {
  if (isAiwgError(error)) return { message: oneLine(error.message), exitCode: error.exitCode };
  const errno = error as NodeJS.ErrnoException;
  if (error instanceof Error && typeof errno.code === 'string' && ENVIRONMENT_ERRORS.has(errno.code)) {
    const path = typeof errno.path === 'string' ? errno.path : '(unknown path)';
    return { message: describeWriteFailure(path, error).replace(/^cannot write/, `cannot ${errno.syscall ?? 'access'}`), exitCode: 2 };
  }
  const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
  return { message: `internal error (please report it): ${message}`, exitCode: 70 };
}

/** errno codes that mean "the file system said no", not "the program is wrong". */
const ENVIRONMENT_ERRORS = new Set(['EACCES', 'EPERM', 'EROFS', 'ENOSPC', 'EDQUOT', 'ENOENT', 'ENOTDIR', 'EISDIR', 'EEXIST', 'ELOOP', 'ENAMETOOLONG', 'EMFILE', 'ENFILE', 'EBUSY', 'ETXTBSY', 'EIO']);

/** Messages are one line: a multi-line message (a library's) is joined. */
function oneLine(message: string): string {
  return message.replace(/\s*\n\s*/g, ' ').trim();
}

export function parseCommandArgs(command: Command, args: string[]) {
  try {
    const { values, positionals } = parseArgs({
      args: joinNegativeValues(command, args),
      options: command.options,
      allowPositionals: command.allowPositionals ?? false,
      strict: true,
    });
    return { values: values as Record<string, string | boolean | string[] | undefined>, positionals };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new UsageError(`${oneLine(message.replace(/\. To specify a positional.*$/s, '').replace(/\.$/, ''))}. See "aiwg ${command.name} --help".`);
  }
}

/**
 * `--max-tokens -5` reads to parseArgs as a flag followed by an unknown option; joined into
 * `--max-tokens=-5`, the flag's own check says what is wrong with the number.
 */
function joinNegativeValues(command: Command, args: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    const next = args[i + 1];
    const name = arg.startsWith('--') ? arg.slice(2) : undefined;
    if (name !== undefined && command.options[name]?.type === 'string' && next !== undefined && /^-\d/.test(next)) {
      out.push(`${arg}=${next}`);
      i++;
    } else out.push(arg);
  }
  return out;
}

function renderCommandList(): string {
  const width = Math.max(...COMMANDS.map((c) => c.name.length));
  const lines = COMMANDS.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`);
  return (
    `aiwg ${TOOL_VERSION}: decides what a coding agent gets to read.\n\nUsage: aiwg <command> [options]\n\nCommands:\n${lines.join('\n')}\n\n` +
    `Run "aiwg help <command>" or "aiwg <command> --help" (-h) for a command's options; "aiwg --version" (-v) prints the version.\n\n${EXIT_CODES_HELP}`
  );
}

/** The exit codes every command keeps; README "Commands" repeats them. */
export const EXIT_CODES_HELP = [
  'Exit codes:',
  '  0   ok',
  '  1   the result failed (e.g. overflow strategy "error": the context does not fit)',
  '  2   usage, config or input error: one line on stderr naming the flag, key or file and the fix',
  '  70  internal error (a bug): the stack is printed, please report it',
  '',
].join('\n');

export function renderCommandHelp(entry: Pick<CommandEntry, 'summary'>, command: Command): string {
  const flags = Object.entries(command.help).map(([flag, text]) => [withShortFlag(command, flag), text] as const);
  const width = Math.max(0, ...flags.map(([flag]) => flag.length));
  const body = flags.map(([flag, text]) => `  ${flag.padEnd(width)}  ${text}`).join('\n');
  return `${entry.summary}\n\nUsage: ${command.usage}\n\nOptions:\n${body}\n  ${'-h, --help'.padEnd(width)}  this help\n\n${EXIT_CODES_HELP}`;
}

/** "--output FILE" -> "-o, --output FILE" when the option has a short form. */
function withShortFlag(command: Command, flag: string): string {
  const name = /^--([\w-]+)/.exec(flag)?.[1];
  const short = name === undefined ? undefined : command.options[name]?.short;
  return short === undefined ? flag : `-${short}, ${flag}`;
}

export function processIo(): CliIo {
  return {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    env: process.env,
    cwd: process.cwd(),
    isTTY: Boolean(process.stderr.isTTY),
    stdoutIsTTY: Boolean(process.stdout.isTTY),
  };
}
