import type { Reporter } from '../types.js';

/** A reporter that drops everything: the library default. */
export function silentReporter(): Reporter {
  return { info() {}, warn() {}, debug() {}, progress() {} };
}

/**
 * The CLI reporter: messages to stderr; a one-line progress bar only when stderr is a TTY,
 * throttled so progress never costs more than the work it reports.
 */
export function createStderrReporter(options: { write: (text: string) => void; isTTY: boolean; verbose?: boolean }): Reporter {
  const { write, isTTY, verbose = false } = options;
  let lastDraw = 0;
  let barVisible = false;
  const clearBar = () => {
    if (barVisible) write('\r\x1b[2K');
    barVisible = false;
  };
  return {
    info(message) {
      clearBar();
      write(`${message}\n`);
    },
    warn(message) {
      clearBar();
      write(`warning: ${message}\n`);
    },
    debug(message) {
      if (!verbose) return;
      clearBar();
      write(`debug: ${message}\n`);
    },
    progress(step, done, total) {
      if (!isTTY) return;
      const now = Date.now();
      if (done < total && now - lastDraw < 100) return;
      lastDraw = now;
      const width = 24;
      const filled = total > 0 ? Math.round((done / total) * width) : width;
      write(`\r\x1b[2K${step} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${done}/${total}`);
      barVisible = done < total;
      if (!barVisible) write('\r\x1b[2K');
    },
  };
}
