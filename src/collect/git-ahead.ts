import { realpathSync } from 'node:fs';
import { FIRST_GIT_COMMANDS } from './git-facts.js';
import { execGit, type GitPort } from './git-port.js';

/**
 * The first git commands of a collect (locate the root, list git's index, the working tree's
 * status: FIRST_GIT_COMMANDS), started in a directory before the engine's modules load. The CLI
 * starts them in its working directory for a command that collects the repository there
 * (commands/index.ts `gitAhead`), so git works on the second core while this one loads the
 * engine: git status in a fresh worktree rehashes every racily clean file (0.2-0.4 s on vite),
 * and a warm run otherwise waits for git after loading. The collect stage takes each output once
 * for exactly the same command in exactly the same directory (its root, real path), and runs
 * anything else itself; an output not taken is dropped. The answers are git's at the start of
 * the run, as if git had been that much faster: nothing in the tree is written before collect
 * reads it but the tool's own directories, which ignore themselves.
 */
export interface GitAhead {
  /** The output of `args` started in `cwd` (a real path), once; undefined when it was not started there. */
  take(args: readonly string[], cwd: string): Promise<Buffer> | undefined;
}

/** Start FIRST_GIT_COMMANDS in `cwd`, in the environment git would get from the run (`env`). */
export function startGitAhead(cwd: string, env: Readonly<Record<string, string | undefined>>): GitAhead {
  let dir: string;
  try {
    dir = realpathSync.native(cwd);
  } catch {
    return { take: () => undefined };
  }
  const git = execGit(env);
  const started = new Map<string, Promise<Buffer>>();
  for (const args of FIRST_GIT_COMMANDS) {
    const output = git.run([...args], dir);
    // a failure (not a repository, no HEAD yet) is the taker's to see, or nobody's
    output.catch(() => undefined);
    started.set(commandKey(args, dir), output);
  }
  return {
    take(args, at) {
      const key = commandKey(args, at);
      const output = started.get(key);
      started.delete(key);
      return output;
    },
  };
}

/** `git`, with each command started ahead answered from there (once); the rest run as usual. */
export function withGitAhead(git: GitPort, ahead: GitAhead | undefined): GitPort {
  if (ahead === undefined) return git;
  return {
    run: (args, cwd) => ahead.take(args, cwd) ?? git.run(args, cwd),
    stream: (args, cwd, onData) => git.stream(args, cwd, onData),
  };
}

function commandKey(args: readonly string[], cwd: string): string {
  return `${cwd}\0${args.join('\0')}`;
}
