import type { ParseArgsConfig } from 'node:util';
import type { GitAhead } from '../collect/git-ahead.js';

/** Where a command writes. Tests pass buffers; the binary passes process streams. */
export interface CliIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  /** Environment variables (AIWG_* configure the run). */
  env: Record<string, string | undefined>;
  cwd: string;
  /** True when stderr is a terminal: progress bars only then. */
  isTTY: boolean;
  /** True when stdout is a terminal: colour in human reports only then (and never with NO_COLOR). */
  stdoutIsTTY?: boolean;
  /**
   * git commands the runner started in `cwd` before the command's module loaded
   * (collect/git-ahead.ts; CommandEntry.gitAhead): a command collecting the repository at `cwd`
   * hands them to the engine.
   */
  gitAhead?: GitAhead;
}

export type OptionSpec = NonNullable<ParseArgsConfig['options']>;

/** Parsed values of a command's options. */
export type OptionValues = Record<string, string | boolean | string[] | undefined>;

/** A CLI command: adding one is adding a file and a row in commands/index.ts (which holds its one-line summary). */
export interface Command {
  name: string;
  /** Usage line(s), e.g. `aiwg context-budget <task> [options]`. */
  usage: string;
  /** Option help: flag -> description. */
  help: Record<string, string>;
  options: OptionSpec;
  /** Accept positional arguments (otherwise any is a usage error). */
  allowPositionals?: boolean;
  /** Returns the exit code. Throw AiwgError for user errors; the runner prints them. */
  run(args: { values: OptionValues; positionals: string[] }, io: CliIo): Promise<number>;
}
