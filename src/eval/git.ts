import { execFile } from 'node:child_process';
import { InputError } from '../errors.js';

/** The git port of the evaluation: run git in a directory, return stdout. */
export type GitRunner = (cwd: string, args: string[]) => Promise<string>;

/** Git logs of real repositories run to tens of megabytes. */
const MAX_GIT_OUTPUT_BYTES = 512 * 1024 * 1024;

/** The real git: one child process per call, failures wrapped with the command that failed. */
export const runGit: GitRunner = (cwd, args) =>
  new Promise((resolvePromise, reject) => {
    execFile('git', args, { cwd, maxBuffer: MAX_GIT_OUTPUT_BYTES, encoding: 'utf8' }, (error, stdout, stderr) => {
      if (error) {
        const detail = String(stderr || error.message).trim().split('\n')[0];
        reject(new InputError(`git ${args.slice(0, 3).join(' ')} failed in ${cwd}: ${detail}`, { cause: error }));
        return;
      }
      resolvePromise(stdout);
    });
  });
